//===- ParamSweep.h - Coordinate sweeps over pass parameters ----*- C++ -*-===//
//
// --evolve's random mutations draw one parameter of one pass at a time, so
// the few values that matter (an unroll factor of 8, a pipeline depth of 7)
// come up once in dozens of candidates, if at all. A sweep instead walks
// each structural parameter of the passes that changed the parent through
// a short list of values, one candidate each: coordinate search, which the
// gate then judges like any other mutation.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SEARCH_PARAMSWEEP_H
#define ASMEVO_SEARCH_PARAMSWEEP_H

#include "llvm/ADT/ArrayRef.h"
#include <set>
#include <string>
#include <vector>

namespace asmevo {

/// The pass lists one parameter away from \p Parent: for each pass of
/// \p Parent whose name is in \p Active (every pass when \p Active is
/// empty), each of its swept parameters set to each of its swept values
/// other than the one \p Parent already has. A function of its arguments
/// only, in a fixed order: the parameters that change loop structure
/// first (they moved the suite most), then the scheduler's, then the rest.
/// When \p Parent is itself one parameter away from \p Grandparent (it
/// won a sweep), that coordinate goes last: its other values were just
/// tried, and the ones after it were not.
std::vector<std::vector<std::string>>
sweepNeighbours(llvm::ArrayRef<std::string> Parent,
                const std::set<std::string> &Active,
                llvm::ArrayRef<std::string> Grandparent = {});

} // namespace asmevo

#endif
