//===- LoadReuse.h - Free a loaded VGPR's register for early reuse -*- C++ -*-===//
//
// Once a loop body's wait has passed, the compiler reuses a loaded VGPR for
// a new temporary (gfx90a's B-tile loop in gemm_mfma_f16: `v_mov_b32 v24,
// s15` for the high half of the address step, after `global_load_ushort
// v24` was stored to LDS). The reuse ties the temporary to the wait: it
// may not be written while the load still is. exec-loop-pipeline needs the
// address step above the wait, so the temporary gets a register of its own.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_TRANSFORMS_LOADREUSE_H
#define ASMEVO_LIB_TRANSFORMS_LOADREUSE_H

#include "asmevo/Analysis/ISAFacts.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/CodeGen/MachineBasicBlock.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include <utility>
#include <vector>

namespace asmevo {

class TargetContext;

/// Each operand renamed and its old register, to put back.
using RegLog = std::vector<std::pair<llvm::MachineOperand *, llvm::Register>>;

/// \p Body is a one-block loop body in order, without its exit mask and
/// branch; \p Exit the block the loop falls through to. After the body's
/// first wait, a VALU instruction that writes all of a VGPR (or aligned
/// group) a load before that wait also writes, without reading it, starts
/// a new value. When every later operand naming those VGPRs names the same
/// register until an unguarded whole rewrite (or, to the end of the body,
/// when the next iteration writes them whole before any other use and the
/// exit does not read them), the value moves to VGPRs below \p Limit that
/// \p UsedVGPR says are free (and marks them). Bodies with other EXEC
/// writes than s_and_saveexec_b64 / s_or_b64 exec pairs, or with lane
/// crossing operations, are left alone. Returns whether anything changed.
bool renameLoadReuse(llvm::ArrayRef<llvm::MachineInstr *> Body,
                     const llvm::MachineBasicBlock &Exit, const ISAFacts &F,
                     const llvm::TargetInstrInfo &TII,
                     const llvm::MCRegisterInfo &MRI, const TargetContext &TC,
                     std::vector<bool> &UsedVGPR, unsigned Limit,
                     RegLog &Log);

} // namespace asmevo

#endif
