//===- TestSwapDependent.h - Test-only: a pass that is wrong ----*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_TESTSWAPDEPENDENT_H
#define ASMEVO_LIB_TRANSFORMS_TESTSWAPDEPENDENT_H

#include "EditSupport.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// Deliberately wrong, for the gate's and the reduction's tests: swaps the
/// first two adjacent ALU instructions (outside a preload prologue) where
/// the second explicitly reads a register the first explicitly writes:
/// VALU pairs first in layout order, then the other pairs. Every such pair
/// is one rewrite in that order; the first one the rewrite filter allows
/// is swapped and the pass stops.
class TestSwapDependentPass : public Pass {
public:
  llvm::StringRef name() const override { return "test-swap-dependent"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
  bool Done = false;
};

} // namespace asmevo

#endif
