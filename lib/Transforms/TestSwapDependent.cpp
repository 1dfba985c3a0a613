//===- TestSwapDependent.cpp ----------------------------------------------===//
#include "TestSwapDependent.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineOperand.h"

using namespace llvm;
using namespace asmevo;

static bool isPlainALU(const OpcodeFacts &F) {
  return (F.is(ic::SALU) || F.is(ic::VALU)) && F.Flow == FlowKind::None &&
         !F.MayLoad && !F.MayStore &&
         !F.is(ic::Waitcnt | ic::Nop | ic::Barrier | ic::Message | ic::VMEM |
               ic::DS | ic::SMEM | ic::LDSDMA | ic::SetReg | ic::GetReg) &&
         !(F.TSFlags >> tsflag::SOPP & 1);
}

static bool anyIn(const SlotSet &S, SlotRange R) {
  for (unsigned I = R.First; I < R.end(); ++I)
    if (S.test(I))
      return true;
  return false;
}

/// An instruction whose result is, at the sizes tests run, the value its
/// register already had or a constant: every register source is the
/// destination (v_max_f32 v2, v2, v2 canonicalizes, v_mov v1, v1 copies),
/// or it keeps only a sign (v_ashrrev_i32 31 of an index is 0 below 2^31).
/// A stale operand there is the fresh one.
static bool keepsValue(const MachineInstr &MI, const ISAFacts &F) {
  const MachineOperand *Dst = nullptr;
  bool AllSame = true, AnyReg = false;
  for (const MachineOperand &MO : MI.explicit_operands()) {
    if (!MO.isReg())
      continue;
    if (MO.isDef()) {
      Dst = Dst ? Dst : &MO;
      continue;
    }
    AnyReg = true;
    AllSame &= Dst && MO.getReg() == Dst->getReg();
  }
  if (AnyReg && AllSame)
    return true;
  StringRef Name = F.get(MI.getOpcode()).Name;
  if (Name.starts_with("S_ASHR_I32") && MI.getNumExplicitOperands() > 2 &&
      MI.getOperand(2).isImm() && MI.getOperand(2).getImm() == 31)
    return true;
  return Name.starts_with("V_ASHRREV_I32") && MI.getNumExplicitOperands() > 1 &&
         MI.getOperand(1).isImm() && MI.getOperand(1).getImm() == 31;
}

/// Per instruction, whether it computes directly from a value a stale copy
/// of which is, at the sizes tests run, often the same: a sign (v_ashrrev_i32 31 of
/// an index), a lane number (v_mbcnt: shuffle partners of lanes whose
/// results a reduction never reads), or a step of LLVM's unsigned-division
/// expansion after v_rcp_iflag_f32 (its two correction steps absorb any
/// estimate while the quotient is at most 2).
static std::vector<bool> readsWeakValue(const SeqView &V, const ISAFacts &F) {
  SlotSet Weak = makeSlotSet();
  std::vector<bool> Out(V.At.size());
  unsigned DivWindow = 0;
  for (unsigned I = 0; I < V.At.size(); ++I) {
    const InstrRecord &R = V.Seq.Instrs[I];
    StringRef Name = F.get(V.At[I]->getOpcode()).Name;
    if (Name.starts_with("V_RCP_IFLAG_F32"))
      DivWindow = 24;
    bool Reads = false;
    for (const RegAccess &U : R.Regs)
      if (!U.Def && anyIn(Weak, U.Slots))
        Reads = true;
    Out[I] = Reads || DivWindow > 0;
    DivWindow -= DivWindow > 0;
    bool Source = Name.starts_with("V_MBCNT") || keepsValue(*V.At[I], F);
    for (const RegAccess &D : R.Regs)
      if (D.Def && !D.Slots.overlaps({slot::ExecLo, 2}))
        for (unsigned S = D.Slots.First; S < D.Slots.end(); ++S)
          Weak[S] = Source; // One step: what is computed further on
                            // from it usually differs.
  }
  return Out;
}

/// Per instruction, whether it reads a value computed from VMEM or DS
/// load results (not from SMEM: kernel arguments and sizes are the same in
/// every lane and often in every run). Forward in layout order, twice so
/// that values carried around a loop are seen.
static std::vector<bool> readsLoadedData(const SeqView &V) {
  SlotSet Data = makeSlotSet();
  std::vector<bool> Out(V.At.size());
  for (unsigned Round = 0; Round < 2; ++Round)
    for (unsigned I = 0; I < V.At.size(); ++I) {
      const InstrRecord &R = V.Seq.Instrs[I];
      bool Reads = false;
      for (const RegAccess &U : R.Regs)
        if (!U.Def && anyIn(Data, U.Slots))
          Reads = true;
      Out[I] = Out[I] || Reads;
      // Lane masks computed from data (v_cmp into SGPRs, EXEC logic) are
      // not followed: a mask ANDed with EXEC is often the mask itself.
      bool Load = R.F->MayLoad && R.F->is(ic::VMEM | ic::DS);
      for (const RegAccess &D : R.Regs)
        if (D.Def)
          for (unsigned S = D.Slots.First; S < D.Slots.end(); ++S)
            Data[S] = (Load || (Reads && R.F->isVALU())) &&
                      slotKind(S) == SlotKind::VGPR;
    }
  return Out;
}

/// Does what entry \p B writes reach a store, through the instructions
/// that read it, following the layout (a loop's back edge is not taken)?
static bool reachesStore(const SeqView &V, unsigned B) {
  SlotSet Live = makeSlotSet();
  for (const RegAccess &D : V.Seq.Instrs[B].Regs)
    if (D.Def && !D.Implicit)
      addRange(Live, D.Slots);
  for (unsigned I = B + 1; I < V.At.size() && Live.any(); ++I) {
    const InstrRecord &R = V.Seq.Instrs[I];
    bool Reads = false;
    for (const RegAccess &U : R.Regs)
      if (!U.Def && anyIn(Live, U.Slots))
        Reads = true;
    if (Reads && R.F->is(ic::MemStore | ic::Atomic))
      return true;
    for (const RegAccess &D : R.Regs)
      if (D.Def)
        for (unsigned S = D.Slots.First; S < D.Slots.end(); ++S)
          Live[S] = Reads;
  }
  return false;
}

Expected<bool> TestSwapDependentPass::run(LiftedModule &LM,
                                          LiftedFunction &LF) {
  if (Done)
    return false;
  const ISAFacts &F = Facts.get(LM);
  SeqView V = SeqView::build(*LF.MF, F);
  EditableRegion Region(LF);
  std::vector<bool> FromData = readsLoadedData(V);
  std::vector<bool> Weak = readsWeakValue(V, F);
  // Loaded data first: a stale copy of it is least likely to be equal.
  enum Group { DataPairs, VectorPairs, OtherPairs };
  for (Group G : {DataPairs, VectorPairs, OtherPairs})
  for (unsigned I = 0; I + 1 < V.At.size(); ++I) {
    if (V.Seq.BlockOf[I] != V.Seq.BlockOf[I + 1])
      continue;
    const InstrRecord &A = V.Seq.Instrs[I], &B = V.Seq.Instrs[I + 1];
    MachineInstr &MA = *V.At[I], &MB = *V.At[I + 1];
    if (!isPlainALU(*A.F) || !isPlainALU(*B.F) || !Region.editable(MA) ||
        std::next(MA.getIterator()) != MB.getIterator())
      continue;
    bool Dep = false, SameDef = false;
    for (const RegAccess &D : A.Regs)
      if (D.Def && !D.Implicit)
        for (const RegAccess &U : B.Regs) {
          if (!U.Def && !U.Implicit && U.Slots.overlaps(D.Slots))
            Dep = true;
          if (U.Def && U.Slots.overlaps(D.Slots))
            SameDef = true;
        }
    // Both results live on (the second does not overwrite the first), and
    // the stale operand is not the same value as the fresh one.
    if (!Dep || SameDef || keepsValue(MA, F) || keepsValue(MB, F) ||
        Weak[I] || Weak[I + 1])
      continue;
    bool Data = A.F->isVALU() && B.F->isVALU() && FromData[I] &&
                reachesStore(V, I + 1);
    bool Vector = A.F->isVALU() && B.F->isVALU();
    // Each pair is asked once, in the first group it belongs to.
    if (G == DataPairs ? !Data : G == VectorPairs ? Data || !Vector
                                                  : Data || Vector)
      continue;
    if (!shouldRewrite())
      continue;
    MA.getParent()->splice(MA.getIterator(), MA.getParent(), MB.getIterator());
    Done = true;
    return true;
  }
  return false;
}
