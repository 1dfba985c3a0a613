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

/// Unrolls a loop that is one block ending in
///   s_andn2_b64 exec, exec, sM ; s_cbranch_execnz L
/// (lanes leave as they finish) into N copies (-exec-loop-pipeline-depth,
/// default 4; 2 when registers do not allow N) and issues every later
/// iteration's head (everything before the body's first wait: its loads)
/// before the first iteration's tail:
///   H1 ; s1 = exec ; X ; s2 = exec ; H2 ; ... X ; sN = exec ; HN ;
///   exec = s1 ; T1 ; exec = s2 ; T2 ; ... exec = sN ; TN ; X ;
///   s_cbranch_execnz L
/// Each part runs under the EXEC it ran under before. When a copy leaves
/// EXEC = 0, the later ones do nothing that is seen afterwards: their
/// loads, VALU and LDS work are masked off, their lane masks are 0 (an
/// s_or_b64 of a zero mask into sM keeps sM), and any other scalar they
/// write must be dead at the exit. Head VALU work that writes only VGPRs,
/// that no later head instruction needs and that touches a register the
/// tail writes is first sunk below the wait (it would otherwise keep the
/// next head from moving). Scalars a head writes before reading and uses
/// only itself are renamed in the later heads; when a later head still
/// shares a VGPR with an earlier tail, the first copy's temporaries are
/// renamed too. Tail scalar ALU work and tail VALU updates of registers
/// the head reads that need nothing the first wait is for move above it
/// first (so that the lane-mask bookkeeping of a flattened guarded loop is
/// in the head), with the tail VALU work they read and a VCC carry that
/// nothing else in the tail touches (a 64-bit address step on gfx90a); a
/// tail temporary the compiler put in a VGPR a head load writes gets a
/// free VGPR for that when it does not cross the back edge (LoadReuse.h).
/// The head may narrow EXEC with s_and_saveexec_b64 sS and
/// put it back with s_or_b64 exec, exec, sS (a guarded load, after
/// exec-loop-flatten); writes in between are partial for renaming, and
/// nothing in between is sunk. Not applied when the head holds stores, LDS or scalar
/// memory, the tail VMEM, SALU writes or SCC reads, the body a barrier or
/// anything that ignores EXEC, a moved head and an earlier tail share a
/// register after renaming, or there are no two free SGPR pairs. A loop
/// whose renaming does not fit the kernel's occupancy may lower it by one
/// wave per SIMD (parameter occupancy-drop, default 1; never below 4). Each
/// tail's waits are renumbered for the later heads' loads. A loop that
/// cannot be rewritten is put back on its own; the hazard and waitcnt
/// checks run after, and if they find more than before, the function is
/// put back.
class ExecLoopPipelinePass : public Pass {
public:
  llvm::StringRef name() const override { return "exec-loop-pipeline"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

} // namespace asmevo

#endif
