//===- Scalarize.h - Wave-uniform VALU work onto the SALU --------*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_SCALARIZE_H
#define ASMEVO_LIB_TRANSFORMS_SCALARIZE_H

#include "RewriteGuard.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// Moves wave-uniform integer and bit work off the VALU. Uniformity is
/// tracked forward through each block: an SGPR or a constant is uniform,
/// and so is a VGPR that v_mov_b32 set from one while EXEC has not changed
/// since (a write of EXEC, or of the SGPR, forgets it; nothing is assumed
/// at a block's entry). Two rewrites:
///  - a VALU integer/bit op (add, sub, and, or, xor, shifts, not, brev,
///    mul_lo) whose sources are all uniform becomes its SALU op writing an
///    SGPR that is dead there and untouched while the result lives (below
///    the function's SGPR count), when SCC is dead if the SALU op writes
///    it; gfx9 has no SALU float ops, so float work stays;
///  - a v_mov_b32 of an SGPR or inline constant disappears.
/// Either way every read of the VGPR result, up to its next write, must
/// take the SGPR/constant instead: an operand whose register class admits
/// it, of a VALU op that reads only its own lane (no DPP, SDWA, lane
/// reads or writes, MFMA), within the constant-bus limit (LLVM's
/// verifyInstruction), with EXEC unchanged from the def (the old VALU op
/// wrote only the active lanes; readers under the same EXEC read only
/// those). The result must be dead at the block's end. A rewrite that
/// adds a hazard or waitcnt violation is undone.
class ScalarizePass : public Pass {
public:
  llvm::StringRef name() const override { return "scalarize"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

} // namespace asmevo

#endif
