//===- FoldAddressStep.h - Pointer steps into load/store offsets -*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_FOLDADDRESSSTEP_H
#define ASMEVO_LIB_TRANSFORMS_FOLDADDRESSSTEP_H

#include "FactsCache.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// A 64-bit VGPR pointer stepped in place by a constant several times in
/// one block (each copy of an unrolled loop body steps it once):
///
///   global_load v16, v[2:3], off
///   v_add_co_u32 v2, vcc, 4, v2 ; v_addc_co_u32 v3, vcc, 0, v3, vcc
///   global_load v22, v[2:3], off
///   v_add_co_u32 v2, vcc, 4, v2 ; v_addc_co_u32 v3, vcc, 0, v3, vcc
///
/// (on gfx942 one v_lshl_add_u64 v[2:3], v[2:3], 0, 4 per step). Each step
/// but the block's last of a chain is removed, what it added goes into the
/// offset of the global loads and stores that use the pointer up to the
/// next step, and that step adds the sum:
///
///   global_load v16, v[2:3], off
///   global_load v22, v[2:3], off offset:4
///   v_add_co_u32 v2, vcc, 8, v2 ; v_addc_co_u32 v3, vcc, 0, v3, vcc
///
/// Every address is the same 64-bit sum and the pointer leaves the block as
/// it did. Not applied when anything else reads or writes the pointer
/// between two steps, an offset would leave the 13-bit signed range, EXEC
/// changes in between (lanes would have stepped differently), the carry
/// (VCC) a removed step or the changed one writes is read before it is
/// written again (or is live out of the block), or a v_lshl_add_u64 step
/// would need a constant beyond the inline ones (no VOP3 literals on gfx9).
/// Each fold is checked by the hazard and waitcnt analyses (RewriteGuard).
class FoldAddressStepPass : public Pass {
public:
  llvm::StringRef name() const override { return "fold-address-step"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

} // namespace asmevo

#endif
