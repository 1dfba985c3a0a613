//===- LoopUnroll.h - Unroll counted single-block loops by two --*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_LOOPUNROLL_H
#define ASMEVO_LIB_TRANSFORMS_LOOPUNROLL_H

#include "FactsCache.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// Unrolls by two a loop that is one block branching back to itself on a
/// scalar down-counter:
///
///   L:  ... sC = s_add_i32 sC, -1 ... s_cmp_eq_u32 sC, 0
///       s_cbranch_scc0 L            (falls through to the exit X)
///
/// The body runs sC times (2^32 when sC is 0 on entry), so the parity of
/// the trip count is bit 0 of sC on entry. The loop becomes
///
///   C:  s_bitcmp1_b32 sC, 0 ; s_cbranch_scc0 L   (even: straight to L)
///   P:  body ; s_cbranch_scc1 X                   (odd: one iteration)
///   L:  body ; body' ; s_cbranch_scc0 L
///
/// which runs exactly the same instructions in the same order on every
/// trip count: no iteration is speculated, nothing is read or written
/// that the original did not. In body' (the second copy) the VGPR values
/// that live only within one iteration are renamed into VGPRs the kernel
/// does not use (one even shift, so 64-bit pairs stay aligned), so that
/// schedule-window, which runs after, can issue the second iteration's
/// loads before the first iteration's wait: two loads in flight where
/// there was one. Renaming stops short of lowering occupancy.
///
/// Not applied: in callees or kernels that call (a callee may use the
/// free VGPRs), in preload prologues, to bodies with other control flow,
/// PC-relative or symbolic operands, more than -loop-unroll-max-body
/// instructions, a counter written anywhere else, or SCC read before it
/// is written (the parity check writes SCC). VGPR renaming is skipped for
/// bodies that write EXEC, read lanes across (readlane, DPP, permutes,
/// swizzles) or write 16-bit halves, and for values live after the loop.
/// The hazard and waitcnt checks run after; if they find more than before,
/// the function is put back.
class LoopUnrollPass : public Pass {
public:
  llvm::StringRef name() const override { return "loop-unroll"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

/// Unrolls by two a loop that is one block ending in
///   s_andn2_b64 exec, exec, sM ; s_cbranch_execnz L
/// (lanes leave as they finish), and issues the second iteration's head
/// (everything before the body's first wait: its loads) before the first
/// iteration's tail:
///   H1 ; sA = exec ; X1 ; sB = exec ; H2 ; exec = sA ; T1 ;
///   exec = sB ; T2 ; X2 ; s_cbranch_execnz L
/// Each half runs under the EXEC it ran under before. When the first copy
/// leaves EXEC = 0, the second does nothing that is seen afterwards: its
/// loads, VALU and LDS work are masked off, its lane masks are 0 (an
/// s_or_b64 of a zero mask into sM keeps sM), and any other scalar it
/// writes must be dead at the exit. Not applied when the head holds
/// stores, LDS or scalar memory, the tail VMEM, scalar writes or SCC
/// reads, the body a barrier or anything that ignores EXEC, the moved
/// head and the first tail share a register after renaming, or there are
/// no two free SGPR pairs. The first tail's waits are renumbered for the
/// second head's loads. The hazard and waitcnt checks run after; if they
/// find more than before, the function is put back.
class ExecLoopPipelinePass : public Pass {
public:
  llvm::StringRef name() const override { return "exec-loop-pipeline"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

} // namespace asmevo

#endif
