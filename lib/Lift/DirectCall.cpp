//===- DirectCall.cpp - The lifted function a call goes to ----------------===//
#include "asmevo/Lift/DirectCall.h"
#include "asmevo/Lift/InstrKinds.h"
#include "asmevo/Lift/LiftedModule.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"

using namespace llvm;
using namespace asmevo;

const LiftedFunction *asmevo::directCallee(const LiftedModule &LM,
                                           const MachineInstr &Call) {
  const MachineFunction &MF = *Call.getMF();
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  const TargetRegisterInfo &TRI = *MF.getSubtarget().getRegisterInfo();
  Register Src;
  for (const MachineOperand &MO : Call.explicit_uses())
    if (MO.isReg() && MO.getReg()) {
      Src = MO.getReg();
      break;
    }
  if (!Src)
    return nullptr;
  SmallVector<StringRef, 2> Halves;
  StringRef(TRI.getName(Src)).split(Halves, '_');
  if (Halves.size() != 2)
    return nullptr;
  const GlobalValue *Lo = nullptr, *Hi = nullptr;
  const MachineBasicBlock &MBB = *Call.getParent();
  for (auto It = std::next(Call.getReverseIterator()); It != MBB.rend();
       ++It) {
    const MachineInstr &MI = *It;
    const MachineOperand *Def = nullptr;
    for (const MachineOperand &MO : MI.operands())
      if (MO.isReg() && MO.isDef() && MO.getReg() &&
          TRI.regsOverlap(MO.getReg(), Src))
        Def = &MO;
    if (!Def)
      continue;
    StringRef N = TII.getName(MI.getOpcode());
    StringRef DefName = TRI.getName(Def->getReg());
    const GlobalValue *G = nullptr;
    for (const MachineOperand &MO : MI.operands())
      if (MO.isGlobal())
        G = MO.getGlobal();
    if (isGetPC(N)) {
      if (Def->getReg() != Src || !Lo || Lo != Hi)
        return nullptr;
      for (const LiftedFunction &F : LM.functions())
        if (F.IRFunc && F.IRFunc == Lo)
          return &F;
      return nullptr;
    }
    if (G && !Lo && N.starts_with("S_ADD_U32") && DefName == Halves[0])
      Lo = G;
    else if (G && !Hi && N.starts_with("S_ADDC_U32") && DefName == Halves[1])
      Hi = G;
    else
      return nullptr;
  }
  return nullptr;
}

