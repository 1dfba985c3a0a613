//===- LoadReuse.cpp - Free a loaded VGPR's register for early reuse ------===//
#include "LoadReuse.h"
#include "ExecMask.h"
#include "asmevo/Support/TargetContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCRegisterInfo.h"

using namespace llvm;
using namespace asmevo;

namespace {

struct Ref {
  bool Reads = false, Writes = false;
  /// Every operand naming the range names exactly it, explicitly.
  bool Exact = true;
};

} // namespace

bool asmevo::renameLoadReuse(ArrayRef<MachineInstr *> Body,
                             const MachineBasicBlock &Exit, const ISAFacts &F,
                             const TargetInstrInfo &TII,
                             const MCRegisterInfo &MRI, const TargetContext &TC,
                             std::vector<bool> &UsedVGPR, unsigned Limit,
                             RegLog &Log) {
  size_t WI = Body.size();
  for (size_t I = 0; I < Body.size() && WI == Body.size(); ++I)
    if (F.get(Body[I]->getOpcode()).is(ic::Waitcnt))
      WI = I;
  if (WI + 1 >= Body.size())
    return false;
  // Writes under a narrowed EXEC keep the other lanes: they are not the
  // start of a new value. Anything else that writes EXEC, or moves values
  // between lanes, is beyond what this reasons about.
  std::vector<bool> Guarded(Body.size());
  SmallVector<Register, 2> Open;
  for (size_t I = 0; I < Body.size(); ++I) {
    const MachineInstr &MI = *Body[I];
    if (crossesLanes(TII.getName(MI.getOpcode())))
      return false;
    if (!Open.empty() && isRestoreExec(MI, TII, MRI, Open.back())) {
      Open.pop_back();
      continue;
    }
    Guarded[I] = !Open.empty();
    if (isSaveExec(MI, TII))
      Open.push_back(MI.getOperand(0).getReg());
    else if (writesExec(MI, MRI))
      return false;
  }
  if (!Open.empty())
    return false;

  std::vector<bool> Pending(NumVGPRs), ExitLive(NumVGPRs);
  for (size_t I = 0; I < WI; ++I) {
    const OpcodeFacts &OF = F.get(Body[I]->getOpcode());
    if (OF.MayLoad && OF.is(ic::VMEM | ic::DS))
      for (const MachineOperand &MO : Body[I]->operands())
        if (MO.isReg() && MO.isDef() && MO.getReg())
          if (auto V = vgprsOf(MRI, MO.getReg().asMCReg()))
            for (unsigned U = V->First; U < V->First + V->Count; ++U)
              Pending[U] = true;
  }
  for (const auto &LI : Exit.liveins())
    if (auto V = vgprsOf(MRI, LI.PhysReg))
      for (unsigned U = V->First; U < V->First + V->Count; ++U)
        ExitLive[U] = true;

  // A 16-bit, SDWA or D16 destination keeps the rest of its register.
  auto Partial = [&](const MachineInstr &MI) {
    return writesPartOfVGPR(TII.getName(MI.getOpcode()));
  };
  auto RefOf = [&](const MachineInstr &MI, Register R, VRange V) {
    Ref Out;
    for (const MachineOperand &MO : MI.operands()) {
      if (!MO.isReg() || !MO.getReg())
        continue;
      auto W = vgprsOf(MRI, MO.getReg().asMCReg());
      if (!W || W->First >= V.First + V.Count || V.First >= W->First + W->Count)
        continue;
      (MO.isDef() ? Out.Writes : Out.Reads) = true;
      if (MO.getReg() != R || MO.isImplicit() || MO.isTied())
        Out.Exact = false;
    }
    return Out;
  };
  // A whole, unguarded write that reads nothing of the range.
  auto Starts = [&](size_t I, Register R, VRange V) {
    Ref X = RefOf(*Body[I], R, V);
    return X.Writes && !X.Reads && X.Exact && !Guarded[I] &&
           !Partial(*Body[I]);
  };

  bool Changed = false;
  for (size_t J = WI + 1; J < Body.size(); ++J) {
    MachineInstr &MI = *Body[J];
    const OpcodeFacts &OF = F.get(MI.getOpcode());
    if (!OF.isVALU() || OF.MayLoad || OF.MayStore ||
        OF.is(ic::VMEM | ic::DS | ic::MFMA) || MI.getNumExplicitDefs() == 0)
      continue;
    MachineOperand &D = MI.getOperand(0);
    if (!D.isReg() || !D.isDef() || !D.getReg())
      continue;
    Register R = D.getReg();
    auto V = vgprsOf(MRI, R.asMCReg());
    if (!V || V->Half || !Starts(J, R, *V) ||
        llvm::none_of(llvm::seq(V->First, V->First + V->Count),
                      [&](unsigned U) { return bool(Pending[U]); }))
      continue;
    // The value's readers, up to its next whole write.
    SmallVector<MachineInstr *, 4> Web{&MI};
    bool OK = true, Ended = false;
    for (size_t K = J + 1; K < Body.size() && OK && !Ended; ++K) {
      Ref X = RefOf(*Body[K], R, *V);
      if (!X.Reads && !X.Writes)
        continue;
      if (Starts(K, R, *V))
        Ended = true;
      else if (X.Writes || !X.Exact)
        OK = false;
      else
        Web.push_back(Body[K]);
    }
    if (!OK)
      continue;
    if (!Ended) {
      // The value reaches the back edge: the next iteration must start
      // the range anew before reading it, and the exit must not read it.
      if (llvm::any_of(llvm::seq(V->First, V->First + V->Count),
                       [&](unsigned U) { return bool(ExitLive[U]); }))
        continue;
      bool Fresh = false;
      for (size_t K = 0; K < J; ++K) {
        Ref X = RefOf(*Body[K], R, *V);
        if (!X.Reads && !X.Writes)
          continue;
        Fresh = Starts(K, R, *V);
        break;
      }
      if (!Fresh)
        continue;
    }
    unsigned Step = V->Count > 1 ? 2 : 1, B = 0;
    for (; B + V->Count <= Limit; B += Step)
      if (llvm::none_of(llvm::seq(B, B + V->Count),
                        [&](unsigned U) { return bool(UsedVGPR[U]); }))
        break;
    if (B + V->Count > Limit)
      continue;
    MCRegister To = TC.reg(V->Count == 1 ? "v" + utostr(B)
                                         : "v[" + utostr(B) + ":" +
                                               utostr(B + V->Count - 1) + "]");
    if (!To)
      continue;
    for (MachineInstr *W : Web)
      for (MachineOperand &MO : W->operands())
        if (MO.isReg() && MO.getReg() == R) {
          Log.push_back({&MO, R});
          MO.setReg(To);
        }
    for (unsigned U = B; U < B + V->Count; ++U)
      UsedVGPR[U] = true;
    Changed = true;
  }
  return Changed;
}
