//===- TestSwapDependent.h - Test-only: a pass that is wrong ----*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_TESTSWAPDEPENDENT_H
#define ASMEVO_LIB_TRANSFORMS_TESTSWAPDEPENDENT_H

#include "EditSupport.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// Deliberately wrong, for the gate's and the reduction's tests: swaps two
/// adjacent ALU instructions (outside a preload prologue) where the second
/// explicitly reads a register the first explicitly writes, so that the
/// second reads the register's older value.
///
/// A swap is only a test of the gate if it changes what the kernel
/// writes; a stale operand that is equal to the new one, or whose result
/// never reaches memory, leaves the output as it was and the verifier is
/// right to call it equivalent (argmax_rows' v_mbcnt_lo/hi pair, whose
/// second result the first overwrites and which differs only in lanes
/// 32..63 that never store; matmul_naive's sign extension of a row offset
/// that is never negative; conv2d's reciprocal estimate, which the two
/// correction steps of the unsigned division absorb while the quotient is
/// at most 2). So a pair is swapped only when the two write different
/// registers (both results live on) and the second's result reaches a
/// store later in the block; pairs whose first instruction computes from a
/// value loaded from global memory or LDS are tried first, then the others,
/// in layout order. A kernel without such a pair is left alone. Every pair
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
