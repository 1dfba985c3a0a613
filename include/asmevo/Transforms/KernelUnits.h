//===- KernelUnits.h - Kernels with the device functions they reach -*- C++ -*-//
//
// The optimizer decides which passes to keep per kernel, not per code
// object: one kernel whose cost rises must not cost the other 153 of a
// hipBLASLt object their edits. A decision applies to a kernel and every
// device function it reaches, so kernels that share a device function are
// decided together (one edited callee serves all its callers): a unit is a
// connected component of the reference graph between lifted functions.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_TRANSFORMS_KERNELUNITS_H
#define ASMEVO_TRANSFORMS_KERNELUNITS_H

#include "asmevo/Lift/LiftedModule.h"
#include <set>
#include <string>
#include <vector>

namespace asmevo {

struct KernelUnit {
  /// Its kernels, in file order (none for device functions that no lifted
  /// kernel reaches, e.g. ones only called through a pointer in data).
  std::vector<std::string> Kernels;
  /// Every function of the unit, kernels included, in file order.
  std::vector<std::string> Functions;
  /// For reports: the kernels (or the functions) joined by ", ".
  std::string name() const;
};

/// The units of the simple and patch-only functions of \p LM, ordered by
/// their first function in file order (deterministic for a given input).
/// Other non-simple functions keep their bytes and belong to no unit.
std::vector<KernelUnit> kernelUnits(const LiftedModule &LM);

/// The names of \p Kernels' functions and of every simple (or patch-only)
/// function they reach (the function filter of
/// PipelineOptions::OnlyFunctions).
std::set<std::string> reachedFunctions(const LiftedModule &LM,
                                       llvm::ArrayRef<std::string> Kernels);

} // namespace asmevo

#endif
