//===- GuardedDefault.cpp - Give a guarded load's default its own VGPR ----===//
//
// Why the rename is sound: the default's lanes (those the region masks
// off) and the loaded lanes together are the value later reads see; both
// now live in the new register. The old register keeps only what the
// region computes in it before the load (an address half), read only
// there, under the region's EXEC.
//
//===----------------------------------------------------------------------===//
#include "GuardedDefault.h"
#include "ExecMask.h"
#include "asmevo/Support/TargetContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCRegisterInfo.h"

using namespace llvm;
using namespace asmevo;

namespace {

/// How \p MI names the single VGPR \p U.
struct Naming {
  bool Reads = false, Writes = false;
  /// Some operand names U within a wider range (a pair).
  bool Wide = false;
};

Naming naming(const MachineInstr &MI, unsigned U, const MCRegisterInfo &MRI) {
  Naming N;
  for (const MachineOperand &MO : MI.operands()) {
    if (!MO.isReg() || !MO.getReg())
      continue;
    auto V = vgprsOf(MRI, MO.getReg().asMCReg());
    if (!V || U < V->First || U >= V->First + V->Count)
      continue;
    if (V->Count != 1 || V->Half)
      N.Wide = true;
    if (MO.isDef())
      N.Writes = true;
    else if (!MO.isImplicit() ||
             !llvm::any_of(MI.operands(), [&](const MachineOperand &D) {
               return D.isReg() && D.isDef() && D.getReg() == MO.getReg();
             }))
      // An implicit use beside a def of the same register is the lifter's
      // mark of a masked write keeping the other lanes, not a read of
      // them by this instruction.
      N.Reads = true;
  }
  return N;
}

} // namespace

bool asmevo::splitGuardedDefaults(
    ArrayRef<MachineInstr *> Body, ArrayRef<const MachineBasicBlock *> LiveAfter,
    const ISAFacts &F, const TargetInstrInfo &TII, const MCRegisterInfo &MRI,
    const TargetContext &TC, std::vector<bool> &UsedVGPR, unsigned Limit,
    RegLog &Log, std::vector<MachineOperand *> &MadeUndef) {
  // Regions: [Save, Restore) pairs, not nested (nothing else is reasoned
  // about here); anything else writing EXEC, or moving values between
  // lanes, leaves the body alone.
  std::vector<size_t> RegionEnd(Body.size(), 0);
  std::vector<bool> Guarded(Body.size());
  {
    size_t Open = Body.size();
    for (size_t I = 0; I < Body.size(); ++I) {
      const MachineInstr &MI = *Body[I];
      if (crossesLanes(TII.getName(MI.getOpcode())))
        return false;
      if (Open != Body.size() &&
          isRestoreExec(MI, TII, MRI, Body[Open]->getOperand(0).getReg())) {
        RegionEnd[Open] = I;
        Open = Body.size();
        continue;
      }
      Guarded[I] = Open != Body.size();
      if (isSaveExec(MI, TII)) {
        if (Open != Body.size())
          return false;
        Open = I;
      } else if (writesExec(MI, MRI)) {
        return false;
      }
    }
    if (Open != Body.size())
      return false;
  }
  std::vector<bool> LiveOut(NumVGPRs);
  for (const MachineBasicBlock *B : LiveAfter)
    for (const auto &LI : B->liveins())
      if (auto V = vgprsOf(MRI, LI.PhysReg))
        for (unsigned U = V->First; U < V->First + V->Count; ++U)
          LiveOut[U] = true;

  bool Changed = false;
  for (size_t I = 0; I < Body.size(); ++I) {
    MachineInstr &Mov = *Body[I];
    if (Guarded[I] || !isOp(TII.getName(Mov.getOpcode()), "V_MOV_B32_e32") ||
        Mov.getNumExplicitOperands() < 2 || !Mov.getOperand(0).isReg() ||
        !Mov.getOperand(1).isImm())
      continue;
    auto RV = vgprsOf(MRI, Mov.getOperand(0).getReg().asMCReg());
    if (!RV || RV->Count != 1 || RV->Half)
      continue;
    unsigned R = RV->First;
    // The default reaches the next region untouched.
    size_t S = I + 1;
    bool OK = true;
    for (; S < Body.size() && !isSaveExec(*Body[S], TII); ++S) {
      Naming N = naming(*Body[S], R, MRI);
      if (N.Reads || N.Writes)
        OK = false;
    }
    if (!OK || S == Body.size())
      continue;
    // In the region: R written before it is read, then one load into it,
    // the region's last mention of R.
    size_t E = RegionEnd[S], Load = Body.size();
    bool Written = false;
    for (size_t J = S + 1; J < E && OK; ++J) {
      Naming N = naming(*Body[J], R, MRI);
      const OpcodeFacts &OF = F.get(Body[J]->getOpcode());
      if (Load != Body.size()) {
        OK = !N.Reads && !N.Writes;
      } else if (N.Writes && !N.Wide && OF.is(ic::VMEM) && OF.MayLoad &&
                 Body[J]->getNumExplicitDefs() == 1 &&
                 Body[J]->getOperand(0).isReg() &&
                 Body[J]->getOperand(0).getReg() == Mov.getOperand(0).getReg() &&
                 !N.Reads) {
        Load = J;
      } else {
        if (N.Reads && !Written)
          OK = false;
        if (N.Writes)
          Written = true;
      }
    }
    if (!OK || Load == Body.size() || !Written)
      continue;
    // After the region: the reads that see the value, up to a whole
    // unguarded rewrite of R; at the end of the body R must be dead.
    std::vector<MachineOperand *> Uses;
    bool Ended = false;
    for (size_t J = E + 1; J < Body.size() && OK && !Ended; ++J) {
      Naming N = naming(*Body[J], R, MRI);
      if (N.Wide || (N.Writes && (Guarded[J] || N.Reads ||
                                  writesPartOfVGPR(TII.getName(
                                      Body[J]->getOpcode()))))) {
        OK = false;
        break;
      }
      if (N.Reads)
        for (MachineOperand &MO : Body[J]->operands())
          if (MO.isReg() && !MO.isDef() && MO.getReg() == Mov.getOperand(0).getReg())
            Uses.push_back(&MO);
      if (N.Writes)
        Ended = true;
    }
    if (!OK || Uses.empty() || (!Ended && LiveOut[R]))
      continue;
    unsigned Free = 0;
    while (Free < Limit && Free < UsedVGPR.size() && UsedVGPR[Free])
      ++Free;
    if (Free >= Limit || Free >= UsedVGPR.size())
      return Changed;
    MCRegister New = TC.reg("v" + utostr(Free));
    if (!New)
      return Changed;
    UsedVGPR[Free] = true;
    Register Old = Mov.getOperand(0).getReg();
    auto Rename = [&](MachineOperand &MO) {
      Log.push_back({&MO, MO.getReg()});
      MO.setReg(New);
    };
    Rename(Mov.getOperand(0));
    for (MachineOperand &MO : Body[Load]->operands())
      if (MO.isReg() && MO.getReg() == Old)
        Rename(MO); // its def, and the mark that it keeps the default
    for (MachineOperand *MO : Uses)
      Rename(*MO);
    // The region's writes of R before the load kept the default's lanes;
    // R no longer holds the default, and nothing reads those lanes.
    for (size_t J = S + 1; J < Load; ++J)
      for (MachineOperand &MO : Body[J]->operands())
        if (MO.isReg() && MO.isImplicit() && !MO.isDef() && !MO.isUndef() &&
            MO.getReg() == Old) {
          MO.setIsUndef(true);
          MadeUndef.push_back(&MO);
        }
    Changed = true;
  }
  return Changed;
}
