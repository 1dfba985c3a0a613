//===- LiveIns.h - Block live-ins for lifted functions ----------*- C++ -*-===//
#ifndef ASMEVO_LIB_LIFT_LIVEINS_H
#define ASMEVO_LIB_LIFT_LIVEINS_H

namespace llvm {
class MachineFunction;
}

namespace asmevo {

/// Sets every block's live-in list from a backward dataflow over register
/// units. LLVM's fullyRecomputeLiveIns walks super-register lists, which on
/// AMDGPU (every VGPR belongs to dozens of tuples) dominates lifting time.
void recomputeLiveIns(llvm::MachineFunction &MF);

} // namespace asmevo

#endif
