//===- HoistGuardedLoad.cpp - Overlap consecutive guarded loads -----------===//
#include "HoistGuardedLoad.h"
#include "EditSupport.h"
#include "ExecMask.h"
#include "ViolationSites.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "asmevo/Analysis/Waitcnt.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"

using namespace llvm;
using namespace asmevo;

namespace {

class Hoister {
public:
  Hoister(asmevo::Pass &P, LiftedModule &LM, LiftedFunction &LF,
          const ISAFacts &F)
      : P(P), LM(LM), LF(LF), MF(*LF.MF), F(F),
        TII(*MF.getSubtarget().getInstrInfo()),
        TRI(*MF.getSubtarget().getRegisterInfo()) {}
  bool run();

private:
  /// One rewrite: the block's instructions from the wait to R2's restore
  /// in their old order, the instruction after them, the renamed operands
  /// and the wait's old value.
  struct Undo {
    MachineBasicBlock *MBB = nullptr;
    std::vector<MachineInstr *> Order;
    MachineInstr *Next = nullptr;
    std::vector<std::pair<MachineOperand *, Register>> Renamed;
    MachineInstr *Wait = nullptr;
    int64_t OldImm = 0;
  };

  StringRef nameOf(const MachineInstr &MI) const {
    return TII.getName(MI.getOpcode());
  }
  bool isExec(Register R) const { return isExecRegister(TRI, R); }
  bool isSave(const MachineInstr &MI) const { return isSaveExec(MI, TII); }
  bool isRestore(const MachineInstr &MI, Register S) const {
    return isRestoreExec(MI, TII, TRI, S);
  }
  bool writesExec(const MachineInstr &MI) const {
    return asmevo::writesExec(MI, TRI);
  }
  /// A writes a register other than EXEC that B reads or writes.
  bool writesInto(const MachineInstr &A, const MachineInstr &B) const {
    for (const MachineOperand &MO : A.operands())
      if (MO.isReg() && MO.isDef() && MO.getReg() && !isExec(MO.getReg()) &&
          (B.readsRegister(MO.getReg(), &TRI) ||
           B.modifiesRegister(MO.getReg(), &TRI)))
        return true;
    return false;
  }
  bool conflict(const MachineInstr &A, const MachineInstr &B) const {
    return writesInto(A, B) || writesInto(B, A);
  }
  bool touches(const MachineInstr &MI, ArrayRef<Register> Regs) const {
    for (const MachineOperand &MO : MI.operands())
      if (MO.isReg() && MO.getReg())
        for (Register R : Regs)
          if (TRI.regsOverlap(MO.getReg(), R))
            return true;
    return false;
  }
  bool isWait(const MachineInstr &MI) const {
    return F.get(MI.getOpcode()).is(ic::Waitcnt) &&
           (nameOf(MI) == "S_WAITCNT_vi" || nameOf(MI) == "S_WAITCNT") &&
           MI.getNumOperands() && MI.getOperand(0).isImm();
  }
  bool isVMemLoad(const MachineInstr &MI) const {
    const OpcodeFacts &OF = F.get(MI.getOpcode());
    return OF.is(ic::VMEM) && OF.MayLoad && !OF.MayStore &&
           !OF.is(ic::Atomic) && (OF.is(ic::Global) || !OF.is(ic::FLAT));
  }
  /// Work R2 may hold besides its EXEC pair.
  bool movable(const MachineInstr &MI) const;
  /// Renames the value \p D that \p Load writes, from its last full write
  /// before the load to its last read after \p W; false when that web is
  /// not simple enough or no VGPR is free.
  bool renameWeb(ArrayRef<MachineInstr *> I, size_t Load, size_t W,
                 Register D, Undo &U);
  bool tryBlock(MachineBasicBlock &MBB);
  void undo(Undo &U);
  bool freeVGPRs();

  asmevo::Pass &P;
  LiftedModule &LM;
  LiftedFunction &LF;
  MachineFunction &MF;
  const ISAFacts &F;
  const TargetInstrInfo &TII;
  const TargetRegisterInfo &TRI;
  std::vector<bool> UsedVGPR = std::vector<bool>(NumVGPRs);
  unsigned VGPRLimit = 0;
  std::vector<Undo> Done;
};

bool Hoister::movable(const MachineInstr &MI) const {
  const OpcodeFacts &OF = F.get(MI.getOpcode());
  if (OF.is(ic::Nop | ic::Waitcnt))
    return true;
  if (MI.isCall() || MI.isBranch() || MI.isTerminator() ||
      OF.Flow != FlowKind::None || MI.getPostInstrSymbol() || writesExec(MI))
    return false;
  if (isVMemLoad(MI))
    return true;
  StringRef N = OF.Name;
  if (!OF.isVALU() || OF.is(ic::MFMA) || N.contains("LANE") ||
      N.contains("CMPX"))
    return false;
  for (const MachineOperand &MO : MI.operands())
    if (!MO.isReg() && !MO.isImm())
      return false;
  return true;
}

bool Hoister::freeVGPRs() {
  unsigned MaxV = 0;
  for (MachineBasicBlock &MBB : MF)
    for (MachineInstr &MI : MBB) {
      StringRef N = nameOf(MI);
      if (MI.isCall() || N.starts_with("S_SWAPPC") ||
          N.starts_with("S_SETPC") || N.starts_with("S_GETPC"))
        return false;
      for (const MachineOperand &MO : MI.operands()) {
        if (!MO.isReg() || !MO.getReg())
          continue;
        StringRef RN = TRI.getName(MO.getReg());
        // AGPRs would sit above a raised VGPR count (accum_offset).
        if (RN.starts_with("AGPR") || RN.starts_with("TTMP"))
          return false;
        if (auto V = vgprsOf(TRI, MO.getReg().asMCReg()))
          for (unsigned U = V->First; U < V->First + V->Count; ++U) {
            UsedVGPR[U] = true;
            MaxV = std::max(MaxV, U + 1);
          }
      }
    }
  unsigned Waves = wavesPerSIMD(MaxV);
  VGPRLimit = MaxV;
  while (VGPRLimit < 256 && wavesPerSIMD(VGPRLimit + 1) == Waves)
    ++VGPRLimit;
  return true;
}

bool Hoister::renameWeb(ArrayRef<MachineInstr *> I, size_t Load, size_t W,
                        Register D, Undo &U) {
  // Operands naming D exactly; any wider register overlapping it (a pair
  // holding D) leaves the web alone.
  auto Refs = [&](MachineInstr &MI, bool &Wider) {
    SmallVector<MachineOperand *, 4> Out;
    for (MachineOperand &MO : MI.operands())
      if (MO.isReg() && MO.getReg() && TRI.regsOverlap(MO.getReg(), D)) {
        if (MO.getReg() != D)
          Wider = true;
        Out.push_back(&MO);
      }
    return Out;
  };
  // A full write: D defined, not read (a guarded write has an implicit use
  // of D from exec-if-flatten, or reads it as a tied operand).
  auto FullDef = [&](const MachineInstr &MI) {
    return MI.modifiesRegister(D, &TRI) && !MI.readsRegister(D, &TRI);
  };
  size_t Start = Load;
  while (Start > 0 && !FullDef(*I[Start - 1]))
    --Start;
  if (Start == 0)
    return false;
  --Start;
  size_t End = W + 1;
  while (End < I.size() && !FullDef(*I[End]))
    ++End;
  if (End == I.size())
    return false; // D may be live after the block
  std::vector<MachineOperand *> Ops;
  for (size_t K = Start; K < End; ++K) {
    bool Wider = false;
    auto R = Refs(*I[K], Wider);
    if (Wider)
      return false;
    Ops.insert(Ops.end(), R.begin(), R.end());
  }
  unsigned To = 0;
  while (To < VGPRLimit && UsedVGPR[To])
    ++To;
  if (To >= VGPRLimit)
    return false;
  MCRegister NewReg = LM.target().reg("v" + utostr(To));
  if (!NewReg)
    return false;
  UsedVGPR[To] = true;
  for (MachineOperand *MO : Ops) {
    U.Renamed.push_back({MO, MO->getReg()});
    MO->setReg(NewReg);
  }
  return true;
}

bool Hoister::tryBlock(MachineBasicBlock &MBB) {
  std::vector<MachineInstr *> I;
  for (MachineInstr &MI : MBB)
    if (!MI.isMetaInstruction())
      I.push_back(&MI);
  size_t LastFull = 0; // after the last wait for every VMEM operation
  for (size_t W = 0; W < I.size(); ++W) {
    if (!isWait(*I[W]))
      continue;
    WaitcntValue V = WaitcntValue::decode(uint64_t(I[W]->getOperand(0).getImm()));
    if (V.VM >= WaitcntValue::MaxVM)
      continue;
    size_t From = LastFull;
    if (V.VM == 0)
      LastFull = W + 1;
    // The loads this wait waits for, in the block.
    std::vector<size_t> Loads;
    for (size_t K = From; K < W; ++K)
      if (F.get(I[K]->getOpcode()).is(ic::VMEM))
        Loads.push_back(K);
    if (Loads.empty() ||
        llvm::any_of(Loads, [&](size_t K) { return !isVMemLoad(*I[K]); }))
      continue;
    // R2: the next s_and_saveexec_b64 after the wait, up to its restore.
    size_t S = W + 1;
    bool OK = true;
    while (S < I.size() && !isSave(*I[S])) {
      const OpcodeFacts &OF = F.get(I[S]->getOpcode());
      if (writesExec(*I[S]) || OF.is(ic::Barrier) || I[S]->isBranch() ||
          I[S]->isCall() || OF.Flow != FlowKind::None ||
          I[S]->getPostInstrSymbol())
        OK = false;
      ++S;
    }
    if (!OK || S >= I.size())
      continue;
    Register SS = I[S]->getOperand(0).getReg();
    size_t R = S + 1;
    unsigned R2Loads = 0;
    while (R < I.size() && !isRestore(*I[R], SS)) {
      if (!movable(*I[R]) || I[R]->modifiesRegister(SS, &TRI))
        OK = false;
      if (isVMemLoad(*I[R]))
        ++R2Loads;
      ++R;
    }
    if (!OK || R >= I.size() || !R2Loads)
      continue;
    Undo U;
    U.MBB = &MBB;
    // The first loads' values: renamed when R2 or what follows the wait
    // reuses their registers.
    std::vector<Register> Pending;
    for (size_t K : Loads)
      for (const MachineOperand &MO : I[K]->defs())
        if (MO.isReg() && MO.getReg()) {
          Register Dst = MO.getReg();
          bool Reused = false;
          for (size_t X = W + 1; X <= R && !Reused; ++X)
            Reused = I[X]->modifiesRegister(Dst, &TRI);
          auto VR = vgprsOf(TRI, Dst.asMCReg());
          if (Reused && (!VR || VR->Half || VR->Count != 1 ||
                         !renameWeb(I, K, W, Dst, U)))
            OK = false;
          // After renaming the operand names the new register.
          Pending.push_back(MO.getReg());
        }
    if (!OK) {
      undo(U);
      continue;
    }
    // S between the wait and R2: C (needs the wait) stays after it, P
    // moves up with R2.
    std::vector<MachineInstr *> C, Pm;
    for (size_t K = W + 1; K < S; ++K) {
      MachineInstr &MI = *I[K];
      const OpcodeFacts &OF = F.get(MI.getOpcode());
      bool ALU = OF.isVALU() || nameOf(MI).starts_with("S_");
      bool Stay = OF.MayLoad || OF.MayStore || !ALU ||
                  OF.is(ic::VMEM | ic::DS | ic::SMEM | ic::Waitcnt |
                        ic::Nop | ic::MFMA | ic::Message | ic::Sleep |
                        ic::SetPrio | ic::SetReg) ||
                  touches(MI, Pending);
      for (MachineInstr *X : C)
        Stay = Stay || conflict(*X, MI);
      (Stay ? C : Pm).push_back(&MI);
    }
    // R2 moves above C and above the wait.
    for (size_t K = S; K <= R && OK; ++K) {
      if (touches(*I[K], Pending))
        OK = false;
      for (MachineInstr *X : C)
        if (conflict(*X, *I[K]))
          OK = false;
    }
    // Loads the wait counted that R2 now issues after them.
    WaitcntValue NV = V;
    NV.VM = V.VM + R2Loads;
    if (!OK || NV.VM >= WaitcntValue::MaxVM) {
      undo(U);
      continue;
    }
    if (!P.shouldRewrite()) {
      undo(U);
      continue;
    }
    U.Wait = I[W];
    U.OldImm = I[W]->getOperand(0).getImm();
    U.Order.assign(I.begin() + W, I.begin() + R + 1);
    U.Next = R + 1 < I.size() ? I[R + 1] : nullptr;
    std::vector<MachineInstr *> New(Pm);
    New.insert(New.end(), I.begin() + S, I.begin() + R + 1);
    New.push_back(I[W]);
    New.insert(New.end(), C.begin(), C.end());
    MachineBasicBlock::iterator At = U.Next ? U.Next->getIterator() : MBB.end();
    for (MachineInstr *MI : New) {
      MI->removeFromParent();
      MBB.insert(At, MI);
    }
    I[W]->getOperand(0).setImm(NV.encode());
    Done.push_back(std::move(U));
    return true;
  }
  return false;
}

void Hoister::undo(Undo &U) {
  if (!U.Order.empty()) {
    MachineBasicBlock::iterator At =
        U.Next ? U.Next->getIterator() : U.MBB->end();
    for (MachineInstr *MI : U.Order) {
      MI->removeFromParent();
      U.MBB->insert(At, MI);
    }
  }
  if (U.Wait)
    U.Wait->getOperand(0).setImm(U.OldImm);
  for (auto It = U.Renamed.rbegin(); It != U.Renamed.rend(); ++It)
    It->first->setReg(It->second);
  U = Undo();
}

bool Hoister::run() {
  if (!LF.Range.IsKernel || MF.empty())
    return false;
  const TargetInfo &T = LM.original().target();
  if (!(T.isGFX90A() || T.isGFX94X() || T.isGFX950()) || !freeVGPRs())
    return false;
  SmallPtrSet<MachineBasicBlock *, 8> Pinned = fixedBlocks(MF, LF);
  AnalysisOptions AO;
  AO.Liveness = false;
  FunctionAnalysis A0 = analyzeFunction(LM, LF, F, AO);
  if (A0.FromBytes)
    return false;
  SiteSet Before = SiteSet::of(A0, /*Advisories=*/true);
  for (MachineBasicBlock &MBB : MF) {
    if (Pinned.count(&MBB))
      continue;
    // Each rewrite may pair the moved wait with a later region.
    for (unsigned K = 0; K < 8 && tryBlock(MBB); ++K)
      ;
  }
  if (Done.empty())
    return false;
  if (!Before.noneIntroducedBy(SiteSet::of(LM, LF, F, /*Advisories=*/true))) {
    for (auto It = Done.rbegin(); It != Done.rend(); ++It)
      undo(*It);
    return false;
  }
  return true;
}

} // namespace

Expected<bool> HoistGuardedLoadPass::run(LiftedModule &LM, LiftedFunction &LF) {
  Hoister H(*this, LM, LF, Facts.get(LM));
  return H.run();
}
