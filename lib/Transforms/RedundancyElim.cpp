//===- RedundancyElim.cpp -------------------------------------------------===//
#include "RedundancyElim.h"
#include "llvm/CodeGen/MachineFunction.h"
#include <map>

using namespace llvm;
using namespace asmevo;

namespace {
enum class Why { None, Wait, DupMove, Dead };

bool isSpecialDef(SlotRange S) {
  for (unsigned Sl = S.First; Sl < S.end(); ++Sl) {
    if (Sl < slot::NumSGPRs || Sl == slot::VCCLo || Sl == slot::VCCHi ||
        Sl == slot::SCC || (Sl >= slot::VGPRBase && Sl < slot::AGPRBase))
      continue;
    return true;
  }
  return false;
}

/// SGPRs, VCC, EXEC, M0 or VGPRs: registers whose every write the
/// instruction records show.
bool plainRange(SlotRange S) {
  if (S.empty())
    return false;
  for (unsigned Sl = S.First; Sl < S.end(); ++Sl)
    if (!(Sl < slot::NumSGPRs || Sl == slot::VCCLo || Sl == slot::VCCHi ||
          Sl == slot::ExecLo || Sl == slot::ExecHi || Sl == slot::M0 ||
          (Sl >= slot::VGPRBase && Sl < slot::AGPRBase)))
      return false;
  return true;
}

bool isVGPRRange(SlotRange S) {
  return S.First >= slot::VGPRBase && S.end() <= slot::AGPRBase;
}

/// An instruction that computes and writes registers, nothing else. (The
/// encoding-specific MC opcodes are all marked hasSideEffects; the classes
/// decide instead.)
bool isPureALU(const MachineInstr &MI, const OpcodeFacts &F) {
  if (!(F.is(ic::SALU) || F.is(ic::VALU)) || F.Flow != FlowKind::None ||
      F.MayLoad || F.MayStore || MI.mayLoadOrStore() || isGetPC(F.Name) || !hasOnlyRegImmOperands(MI))
    return false;
  if (F.is(ic::MFMA | ic::DPP | ic::SDWA | ic::WriteLane | ic::VMEM | ic::DS |
           ic::SMEM | ic::LDSDMA | ic::Waitcnt | ic::Nop | ic::Barrier |
           ic::Message | ic::SetReg | ic::GetReg | ic::SetPrio | ic::Sleep |
           ic::CacheCtl | ic::MovRel))
    return false;
  if ((F.TSFlags >> tsflag::SOPP) & 1)
    return false;
  return true;
}

/// Writes every lane (or the whole scalar) of its destinations.
bool isFullWriter(const MachineInstr &MI, const OpcodeFacts &F) {
  if (!isPureALU(MI, F))
    return false;
  StringRef N = F.Name;
  if (N.contains("CMOV") || N.contains("BITSET") || N.contains("SETREG"))
    return false;
  return true;
}

/// Writes whole 32-bit VGPRs in the lanes EXEC enables.
bool isFullVGPRWriter(const MachineInstr &MI, const OpcodeFacts &F) {
  if (!isFullWriter(MI, F) || !F.isVALU())
    return false;
  StringRef N = F.Name;
  return !N.contains("16") && !N.contains("OPSEL") &&
         !N.contains("READLANE") && !N.contains("READFIRSTLANE") &&
         (N.contains("_e32") || N.contains("_e64"));
}

bool isMove(const OpcodeFacts &F, bool &VALU) {
  StringRef N = F.Name;
  VALU = N.starts_with("V_MOV_B32_e32");
  return VALU || N.starts_with("S_MOV_B32") || N.starts_with("S_MOV_B64");
}

struct HeldValue {
  bool IsImm = false;
  int64_t Imm = 0;
  SlotRange Reg;
  bool VALU = false;
  bool operator==(const HeldValue &O) const {
    return IsImm == O.IsImm && (IsImm ? Imm == O.Imm : Reg == O.Reg);
  }
};
} // namespace

Expected<bool> RedundancyElimPass::run(LiftedModule &LM, LiftedFunction &LF) {
  const ISAFacts &F = Facts.get(LM);
  AnalysisOptions AO;
  AO.Liveness = false;
  FunctionAnalysis A = analyzeFunction(LM, LF, F, AO);
  if (A.FromBytes)
    return false;
  SeqView V = SeqView::build(*LF.MF, F);
  if (Error E = checkSameInstructions("redundancy-elim", A.Seq.Instrs.size(), V.At.size()))
    return std::move(E);
  bool HasExp = llvm::any_of(V.Seq.Instrs, [](const InstrRecord &R) {
    return (R.F->Counters & cnt::EXP) != 0;
  });
  const RegSlotMap &Slots = F.slots();
  EditableRegion Region(LF);
  bool IsKernel = LF.Range.IsKernel;

  // What each instruction is, decided on the original function.
  std::vector<Why> Verdict(V.At.size(), Why::None);
  for (unsigned B = 0; B < V.Seq.BlockBegin.size(); ++B) {
    unsigned Begin = V.Seq.BlockBegin[B], End = V.Seq.blockEnd(B);
    std::map<std::pair<unsigned, unsigned>, HeldValue> Holds;
    for (unsigned I = Begin; I < End; ++I) {
      const InstrRecord &R = V.Seq.Instrs[I];
      MachineInstr &MI = *V.At[I];
      // Waits the operations in flight already satisfy.
      if (R.F->is(ic::Waitcnt) && IsKernel && MI.getNumOperands() &&
          MI.getOperand(0).isImm() && hasOnlyRegImmOperands(MI)) {
        WaitcntValue W = WaitcntValue::decode(MI.getOperand(0).getImm());
        if (A.Waits.PendingVM[I] <= W.VM && A.Waits.PendingLgkm[I] <= W.Lgkm &&
            (!HasExp || W.Exp == WaitcntValue::MaxExp))
          Verdict[I] = Why::Wait;
      }
      // Moves of a value the destination already holds.
      bool VALU = false;
      bool Dup = false;
      HeldValue New;
      SlotRange Dst;
      if (isMove(*R.F, VALU) && MI.getNumExplicitOperands() == 2 &&
          MI.getOperand(0).isReg() && hasOnlyRegImmOperands(MI)) {
        Dst = Slots.slots(MI.getOperand(0).getReg());
        const MachineOperand &Src = MI.getOperand(1);
        New.VALU = VALU;
        if (Src.isImm()) {
          New.IsImm = true;
          New.Imm = Src.getImm();
        } else if (Src.isReg()) {
          New.Reg = Slots.slots(Src.getReg());
        }
        bool Known = New.IsImm || plainRange(New.Reg);
        if (!plainRange(Dst))
          Dst = SlotRange();
        if (!Dst.empty() && Known) {
          auto It = Holds.find({Dst.First, Dst.Count});
          if (It != Holds.end() && It->second == New &&
              It->second.VALU == VALU)
            Dup = true;
          if (!New.IsImm) {
            auto Rev = Holds.find({New.Reg.First, New.Reg.Count});
            HeldValue D;
            D.Reg = Dst;
            if (Rev != Holds.end() && Rev->second == D &&
                Rev->second.VALU == VALU)
              Dup = true;
          }
        }
        if (Dup)
          Verdict[I] = Why::DupMove;
      }
      if (Dup)
        continue; // Changes nothing the table holds.
      // Forget what this instruction overwrites.
      bool WritesExec = R.defines({slot::ExecLo, 2});
      for (auto It = Holds.begin(); It != Holds.end();) {
        SlotRange K{(uint16_t)It->first.first, (uint16_t)It->first.second};
        bool Kill = R.defines(K) ||
                    (!It->second.IsImm && R.defines(It->second.Reg)) ||
                    (WritesExec && It->second.VALU);
        It = Kill ? Holds.erase(It) : std::next(It);
      }
      if (!Dst.empty() && isMove(*R.F, VALU) &&
          MI.getNumExplicitOperands() == 2 && hasOnlyRegImmOperands(MI) &&
          (New.IsImm || !New.Reg.overlaps(Dst)))
        Holds[{Dst.First, Dst.Count}] = New;
    }
    // Dead writes: every destination written again before it is read.
    for (unsigned I = Begin; I < End; ++I) {
      const InstrRecord &R = V.Seq.Instrs[I];
      MachineInstr &MI = *V.At[I];
      if (Verdict[I] != Why::None || !isPureALU(MI, *R.F))
        continue;
      SlotSet Open = makeSlotSet();
      bool Any = false, Special = false;
      for (const RegAccess &D : R.Regs)
        if (D.Def) {
          addRange(Open, D.Slots);
          Any = true;
          Special |= isSpecialDef(D.Slots);
        }
      if (!Any || Special)
        continue;
      bool ExecChanged = false, Dead = false;
      for (unsigned J = I + 1; J < End; ++J) {
        const InstrRecord &Y = V.Seq.Instrs[J];
        MachineInstr &MY = *V.At[J];
        if (llvm::any_of(Y.Regs, [&](const RegAccess &U) {
              return !U.Def &&
                     Open.find_first_in(U.Slots.First, U.Slots.end()) != -1;
            }))
          break;
        if (Y.F->Flow != FlowKind::None)
          break;
        bool Full = isFullWriter(MY, *Y.F) && Verdict[J] == Why::None;
        bool FullV = Full && !ExecChanged && isFullVGPRWriter(MY, *Y.F);
        for (const RegAccess &D : Y.Regs)
          if (D.Def && (isVGPRRange(D.Slots) ? FullV : Full))
            Open.reset(D.Slots.First, D.Slots.end());
        if (Open.none()) {
          Dead = true;
          break;
        }
        ExecChanged |= Y.defines({slot::ExecLo, 2});
      }
      if (Dead)
        Verdict[I] = Why::Dead;
    }
  }

  HazardBaseline Base(V, F);
  if (llvm::all_of(Verdict, [](Why W) { return W == Why::None; }))
    return false;
  SiteSet Before = SiteSet::of(A, /*Advisories=*/true);
  EditLog Log(*LF.MF);
  std::vector<Why> Left = Verdict;
  for (unsigned I = 0; I < V.At.size(); ++I) {
    if (Left[I] == Why::None)
      continue;
    MachineInstr &MI = *V.At[I];
    unsigned B = V.Seq.BlockOf[I];
    if (!Region.editable(MI) || V.Seq.blockEnd(B) - V.Seq.BlockBegin[B] == 1 ||
        V.nearFunctionBoundary(I, IsKernel))
      continue;
    if (!V.tryErase(I, Base))
      continue;
    if (!shouldRewrite()) {
      V.insert(I, B, InstrRecord::fromMachineInstr(MI, F), &MI);
      continue;
    }
    Log.remove(MI);
    Left.erase(Left.begin() + I);
    --I;
  }
  if (Log.empty())
    return false;
  if (!Before.noneIntroducedBy(SiteSet::of(LM, LF, F, true))) {
    Log.undo();
    return false;
  }
  return true;
}
