//===- ExecLoopFlatten.h - Guarded exec loops into one block ----*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_EXECLOOPFLATTEN_H
#define ASMEVO_LIB_TRANSFORMS_EXECLOOPFLATTEN_H

#include "FactsCache.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// An exec-masked loop whose body is an `if` over lane-masked work, as the
/// compiler lays out `for (e = tid; e < n; e += step) v[e] = c ? a[e] : 0`:
///
///   L:  exec |= sS ; ... ; exec &= ~sM ; s_cbranch_execz X   (the latch)
///   H:  ... ; sS = s_and_saveexec sC ; s_cbranch_execz L     (the guard)
///   B:  ... lane-masked work ... ; s_branch L                (the body)
///   X:  ...
///
/// becomes one block that branches back to itself,
///
///   H:  ... ; sS = s_and_saveexec sC ; B ; L ; s_cbranch_execnz H
///   X:  ...
///
/// (with a new block after it that branches to X when X is not laid out
/// after B), so that exec-loop-pipeline, which takes single-block loops, can keep
/// several iterations' loads in flight. The skip branch is only an
/// optimisation when B does nothing with EXEC = 0: B may hold only VALU,
/// vector memory and LDS work (all masked by EXEC), s_nop and s_waitcnt;
/// nothing that ignores EXEC (SALU, SMEM, readlane/writelane, v_cmpx,
/// barriers, MFMA, GDS); and every scalar B writes (VCC, a carry-out, a
/// lane mask: 0 under EXEC = 0) must be dead at L. B's vector register
/// writes keep the lanes EXEC masks off, which L saw through the skip
/// branch: each gets an implicit use of the register it writes (where that
/// register holds a value), so that later passes' liveness still sees the
/// older value read (gemm_mfma_f16's v_mov_b32 v23, 0 before the guard is
/// what out-of-bounds lanes store). Every path runs the
/// same instructions as before, in the same order, apart from the removed
/// branches. The hazard and waitcnt checks run after; a violation site the
/// function did not have puts it back.
class ExecLoopFlattenPass : public Pass {
public:
  llvm::StringRef name() const override { return "exec-loop-flatten"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

/// The same for an if outside such a loop:
///
///   H:  ... ; sS = s_and_saveexec sC ; s_cbranch_execz J
///   B:  ... lane-masked work ... [; s_branch J]
///   J:  exec |= sS ; ...
///
/// becomes H ; B ; J in one block (ending in an s_branch to J's old
/// fall-through successor when J was not laid out after B), J reached
/// from H and B only, under the same conditions on B. Two guarded loads
/// one after the other (the A and B tiles of the suite's tiled matmuls)
/// then sit in one block, where hoist-guarded-load can overlap them.
class ExecIfFlattenPass : public Pass {
public:
  llvm::StringRef name() const override { return "exec-if-flatten"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

} // namespace asmevo

#endif
