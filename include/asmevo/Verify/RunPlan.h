//===- RunPlan.h - Which runs a verification makes --------------*- C++ -*-===//
//
// The runs K0 and K1 are compared on. Every problem size the spec lists
// runs with every input seed; the first seed of a size uses the spec as
// written, later ones vary the float inputs (InputVariation.h) and draw
// the spec's non-size scalars (alpha, eps, ...) from their ranges, so a
// candidate that is right only for the default parameter values fails.
// Extra "random size" runs also draw the scalars that size buffers and
// grids, within their ranges but no larger than the largest size the spec
// lists (the cost of a run stays what the spec author chose), log-uniformly
// so that small sizes come up often, and ragged: the k-th such run makes
// every size one less than a multiple of 2^k (k = 1..6), so the last tile
// of every power-of-two width up to 64 is partial; later ones keep the
// plain draw.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_VERIFY_RUNPLAN_H
#define ASMEVO_VERIFY_RUNPLAN_H

#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Verify/InputVariation.h"
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace asmevo {
namespace verify {

/// One run: an input seed at a problem size under an interleaving.
struct RunConfig {
  uint64_t InputSeed = 0;
  unsigned Variant = 0;    ///< 0 = the spec's sizes, N = variants[N-1].
  bool RandomSize = false; ///< Size scalars drawn too (Variant is 0).
  uint64_t Interleave = 0; ///< Wave/workgroup interleaving seed.
  InputVariation Inputs;
  /// Scalars drawn for this run (text, as a spec would write them).
  std::map<std::string, std::string> Drawn;

  std::string describe() const;
};

struct PlanOptions {
  unsigned Seeds = 3;
  unsigned RandomSizes = 8;
};

/// Scalars that determine buffer sizes, grids or kernarg layout.
std::set<std::string> sizeScalars(const emu::LaunchSpec &Spec);

llvm::Expected<std::vector<RunConfig>> planRuns(const emu::LaunchSpec &Spec,
                                                const PlanOptions &O);

} // namespace verify
} // namespace asmevo

#endif
