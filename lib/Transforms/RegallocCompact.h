//===- RegallocCompact.h - VGPRs renumbered to close holes ------*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_REGALLOCCOMPACT_H
#define ASMEVO_LIB_TRANSFORMS_REGALLOCCOMPACT_H

#include "FactsCache.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// Renumbers a kernel's VGPRs so that unused ones above the lowest stop
/// counting towards its VGPR count, and marks the kernel
/// (LiftedFunction::RegistersRenumbered) so that the emitter declares the
/// lower count. The unit is an aligned quad v[4q:4q+3]: each quad any
/// operand names keeps its order and moves down past the quads nobody
/// names, so every index keeps its value mod 4 (64-bit tuples stay
/// even-aligned, as gfx90a+ requires, and VGPR banks stay as they were)
/// and a tuple spanning two quads still spans two adjacent ones. v0..v3
/// never move: the dispatch puts the work-item IDs there.
///
/// Only a kernel with no call or indirect jump (a callee or the code after
/// a jump would see other numbers), no GPR indexing (s_set_gpr_idx_*,
/// v_movrel*: the index is data), no AGPR (the unified register file's
/// split, ACCUM_OFFSET, is left alone) and no VGPR read before it is
/// written outside v0..v3, and only when the VGPR granule it declares
/// drops. One rewrite per kernel.
class RegallocCompactPass : public Pass {
public:
  llvm::StringRef name() const override { return "regalloc-compact"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

} // namespace asmevo

#endif
