//===- PackF32.h - Two FP32 ops into one v_pk_*_f32 -------------*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_PACKF32_H
#define ASMEVO_LIB_TRANSFORMS_PACKF32_H

#include "RewriteGuard.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// Merges two independent v_fma_f32 / v_mul_f32 / v_add_f32 (v_fmac_f32
/// counts as v_fma_f32) of one block into v_pk_fma_f32 / v_pk_mul_f32 /
/// v_pk_add_f32 (gfx90a, gfx94x, gfx950: packed FP32 does two lanes' work
/// per issue, CDNA3 ISA 6.4). The pair must be expressible: its results in
/// one even-aligned VGPR pair (renamed to a pair the function never
/// touches when they are not and the results die in the block), each
/// source pair in one aligned 64-bit register pair (op_sel picks the
/// dword) or one inline constant for both, only neg modifiers (no abs, no
/// omod), one clamp, one SGPR pair at most (constant bus). The later op is
/// hoisted to the earlier one, so nothing in between may touch its
/// registers. A pair that adds a hazard or waitcnt violation is undone.
class PackF32Pass : public Pass {
public:
  llvm::StringRef name() const override { return "pack-f32"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

} // namespace asmevo

#endif
