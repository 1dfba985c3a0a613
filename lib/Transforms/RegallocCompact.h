//===- RegallocCompact.h - GPRs renumbered to close holes -------*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_REGALLOCCOMPACT_H
#define ASMEVO_LIB_TRANSFORMS_REGALLOCCOMPACT_H

#include "FactsCache.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// Renumbers a kernel's VGPRs, AGPRs and SGPRs so that unused ones above
/// the lowest stop counting towards its register counts, and marks the
/// kernel (LiftedFunction::RegistersRenumbered, SGPRsRenumbered) so that
/// the emitter declares the lower counts: the descriptor's VGPR and SGPR
/// granules and ACCUM_OFFSET, and the note's .vgpr_count, .agpr_count and
/// .sgpr_count, rewritten together.
///
/// The unit is an aligned quad r[4q:4q+3] of one file: each quad any
/// operand names keeps its order and moves down past the quads nobody
/// names, so every index keeps its value mod 4 (64-bit tuples stay
/// even-aligned, as gfx90a+ wants of VGPR and AGPR tuples, SGPR tuples of
/// 128 bits and more stay 4-aligned, VGPR banks stay as they were) and a
/// tuple spanning two quads still spans two adjacent ones. What never
/// moves: VGPR quad 0 (the work-item IDs) and the SGPR quads holding what
/// the dispatch writes (user SGPRs, then the enabled workgroup IDs,
/// workgroup info and private segment wave offset; VCC, FLAT_SCRATCH and
/// XNACK_MASK are not SGPRn and are counted on top), and any register read
/// before it is written or named by the preload prologue (its whole file
/// then stays; VGPRs and AGPRs go together, as ACCUM_OFFSET ties them).
///
/// On the unified register file (gfx90a, gfx94x, gfx950) the AGPRs start at
/// ACCUM_OFFSET, so the vector count is align(VGPRs, 4) + AGPRs: the VGPRs
/// and AGPRs are renumbered when that total needs fewer granules of 8 than
/// the kernel declared, and ACCUM_OFFSET comes down to the compacted VGPRs
/// rounded up to 4. SGPRs are renumbered when their count with VCC,
/// FLAT_SCRATCH and XNACK_MASK needs fewer blocks of 16 (the gfx9
/// allocation) than declared; that changes waves per SIMD only above 96
/// SGPRs (800 per SIMD, at most 8 waves: 800 / 112 = 7), see the .cpp.
///
/// A kernel that calls is renumbered around its callees, which keep their
/// numbers: every register any function it reaches names (explicitly or
/// implicitly: the argument and return registers as the callees use them,
/// the callee-saved ones they save, what they clobber), plus s[30:31],
/// s32 and s33, stays where it is with the rest of its quad, and no other
/// register moves into such a quad. A call reads and writes only what its
/// callees name, so a value live across it, wherever it moves, is left
/// alone. The kernel's counts then include the callees' registers. Kept,
/// with the reason in --pass-stats, when a reached function is not simple
/// (not lifted), a call's target is not a known function (only s_getpc_b64
/// + s_add_u32/s_addc_u32 into the s_swappc_b64 pair is followed; s_call_b64
/// is not), or a callee indexes registers.
///
/// Never: a kernel with an indirect jump or GPR indexing (s_set_gpr_idx_*,
/// v_movrel*, s_movrel*: the index is data). One rewrite per kernel.
class RegallocCompactPass : public Pass {
public:
  llvm::StringRef name() const override { return "regalloc-compact"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

} // namespace asmevo

#endif
