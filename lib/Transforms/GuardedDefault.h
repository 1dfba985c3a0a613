//===- GuardedDefault.h - Give a guarded load's default its own VGPR -*- C++ -*-===//
//
// `x = cond ? p[i] : 0` compiles to `v_mov_b32 vR, 0` and, under an
// s_and_saveexec_b64 region, the load into vR. The compiler may also use vR
// inside the region before the load (matmul_tiled: the high half of the
// address pair v[4:5], whose low half v4 the loop carries). Paired with a
// loop-carried register, vR cannot be renamed per unrolled copy, so a
// guarded unroll cannot issue the next copy's loads before this copy's
// tail reads vR. Moving the default and the loaded value (not the address
// half) into a free VGPR separates the two.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_TRANSFORMS_GUARDEDDEFAULT_H
#define ASMEVO_LIB_TRANSFORMS_GUARDEDDEFAULT_H

#include "LoadReuse.h"
#include "asmevo/Analysis/ISAFacts.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/CodeGen/MachineBasicBlock.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include <vector>

namespace asmevo {

class TargetContext;

/// \p Body is a one-block loop body in order, without its branches; \p
/// LiveAfter the blocks whose live-ins say what is read after it (the
/// exit, and the loop itself for the next trip). For each VGPR R that an
/// unguarded `v_mov_b32 R, imm` sets, that nothing reads before the next
/// save region, where R is written before any read and then written by one
/// VMEM load whose value (and R's defaults) is what every later read of R
/// sees until R is written whole again (or, at the end of the body, dead),
/// the v_mov, the load and those later reads move to a VGPR below \p Limit
/// that \p UsedVGPR says is free (and marks). Returns whether anything
/// changed; \p Log records every rename, \p MadeUndef every mark of a
/// masked write keeping R's old lanes that no longer hold anything read
/// (now undef), to put back.
bool splitGuardedDefaults(llvm::ArrayRef<llvm::MachineInstr *> Body,
                          llvm::ArrayRef<const llvm::MachineBasicBlock *> LiveAfter,
                          const ISAFacts &F, const llvm::TargetInstrInfo &TII,
                          const llvm::MCRegisterInfo &MRI,
                          const TargetContext &TC, std::vector<bool> &UsedVGPR,
                          unsigned Limit, RegLog &Log,
                          std::vector<llvm::MachineOperand *> &MadeUndef);

} // namespace asmevo

#endif
