//===- InsertNops.cpp -----------------------------------------------------===//
#include "InsertNops.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"

using namespace llvm;
using namespace asmevo;

Expected<bool> InsertNopsPass::run(LiftedModule &LM, LiftedFunction &LF) {
  unsigned Opc = LM.target().encodedOpcode("S_NOP");
  if (Opc == ~0u)
    return createStringError("no s_nop opcode in this LLVM");
  const TargetInstrInfo &TII = *LF.MF->getSubtarget().getInstrInfo();
  bool InPrologue = LF.PreloadEntry != nullptr;
  bool Changed = false;
  for (MachineBasicBlock &MBB : *LF.MF) {
    if (&MBB == LF.PreloadEntry)
      InPrologue = false;
    if (InPrologue)
      continue;
    BuildMI(MBB, MBB.begin(), DebugLoc(), TII.get(Opc)).addImm(0);
    Changed = true;
  }
  return Changed;
}
