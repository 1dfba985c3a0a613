//===- HoistGuardedLoad.h - Overlap consecutive guarded loads ---*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_HOISTGUARDEDLOAD_H
#define ASMEVO_LIB_TRANSFORMS_HOISTGUARDEDLOAD_H

#include "FactsCache.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// Two guarded loads in one block (after exec-if-flatten), each waited for
/// before the next is issued, as a tiled matmul stages its A and B tiles:
///
///   R1:  v5 = 0 ; s_and_saveexec ; ... ; v5 = global_load ; exec |= sS
///   W:   s_waitcnt vmcnt(0)
///   S:   ds_write v9, v5 ; v5 = ... ; v_cmp ; s_and ; v5 = 0
///   R2:  s_and_saveexec ; ... ; v5 = global_load ; exec |= sS
///
/// The second region and the work of S that does not need the first load
/// (P) move above the wait, which then lets R2's loads stay in flight:
///
///   R1 ; P ; R2 ; s_waitcnt vmcnt(N) ; C
///
/// where C is what of S needs the first load (its uses, memory operations,
/// and what depends on them). The first load's value is renamed into a
/// VGPR the kernel does not use (without lowering occupancy) when R2 or P
/// reuses its register, from its last full write before R1 to its last use
/// before it is written again. R2 moves whole: its EXEC pair leaves EXEC as
/// it found it, so C runs under the EXEC it ran under. Not applied when R2
/// holds stores, LDS or scalar memory, barriers, or anything else that
/// writes EXEC; when R2 or P reads what a load in flight at the wait
/// writes, or C and the moved code share a register other than EXEC; in
/// kernels that call, or use AGPRs. The hazard and waitcnt checks run
/// after; a violation site the function did not have puts it back.
class HoistGuardedLoadPass : public Pass {
public:
  llvm::StringRef name() const override { return "hoist-guarded-load"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

} // namespace asmevo

#endif
