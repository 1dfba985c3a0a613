//===- TestSwapDependent.cpp ----------------------------------------------===//
#include "TestSwapDependent.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineOperand.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

static bool isPlainALU(const OpcodeFacts &F) {
  return (F.is(ic::SALU) || F.is(ic::VALU)) && F.Flow == FlowKind::None &&
         !F.MayLoad && !F.MayStore &&
         !F.is(ic::Waitcnt | ic::Nop | ic::Barrier | ic::Message | ic::VMEM |
               ic::DS | ic::SMEM | ic::LDSDMA | ic::SetReg | ic::GetReg) &&
         !(F.TSFlags >> tsflag::SOPP & 1);
}

/// An operand as the ISA sees it: explicit, or the VCC a VOPC or
/// v_cndmask_e32 writes or reads implicitly.
static bool isOperand(const RegAccess &R) {
  return !R.Implicit || R.Slots.overlaps({slot::VCCLo, 2});
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
  // x op x with no other operand (an immediate makes it x op c).
  bool OnlyRegs = llvm::all_of(MI.explicit_uses(), [](const MachineOperand &MO) {
    return MO.isReg();
  });
  if (AnyReg && AllSame && OnlyRegs)
    return true;
  StringRef Name = F.get(MI.getOpcode()).Name;
  if (Name.starts_with("S_ASHR_I32") && MI.getNumExplicitOperands() > 2 &&
      MI.getOperand(2).isImm() && MI.getOperand(2).getImm() == 31)
    return true;
  return Name.starts_with("V_ASHRREV_I32") && MI.getNumExplicitOperands() > 1 &&
         MI.getOperand(1).isImm() && MI.getOperand(1).getImm() == 31;
}

/// Per instruction, whether it computes directly from a value a stale copy
/// of which is, at the sizes tests run, often the same, or stands in a
/// sequence whose later steps absorb a stale operand:
///  - a sign (v_ashrrev_i32 31 of an index; an XOR of signs), the high
///    dword of a 64-bit product of small numbers or of a 64-bit sum
///    (s_addc_u32, v_addc), a lane number (v_mbcnt:
///    shuffle partners of lanes whose results a reduction never reads);
///  - LLVM's unsigned-division expansion after v_rcp_iflag_f32 (its two
///    correction steps absorb any estimate while the quotient is at most
///    2) and the f32/f64 division from v_div_scale to v_div_fixup (its
///    Newton steps refine by less than the output's tolerance).
static std::vector<bool> readsWeakValue(const SeqView &V, const ISAFacts &F) {
  SlotSet Weak = makeSlotSet();
  std::vector<bool> Out(V.At.size());
  unsigned Window = 0;
  bool InDiv = false;
  for (unsigned I = 0; I < V.At.size(); ++I) {
    const MachineInstr &MI = *V.At[I];
    const InstrRecord &R = V.Seq.Instrs[I];
    StringRef Name = F.get(MI.getOpcode()).Name;
    if (Name.starts_with("V_RCP_IFLAG_F32"))
      Window = 24;
    if (Name.starts_with("V_DIV_SCALE"))
      InDiv = true;
    bool Reads = false, AllWeak = true, AnySrc = false;
    for (const RegAccess &U : R.Regs)
      if (!U.Def && !U.Implicit) {
        AnySrc = true;
        bool W = anyIn(Weak, U.Slots);
        Reads |= W;
        AllWeak &= W;
      }
    // The high dword of a 64-bit sum: with an addend below 2^32 and no
    // carry it is the base's high dword, stale or not.
    bool HighSum = Name.starts_with("S_ADDC_U32") || Name.starts_with("V_ADDC");
    Out[I] = Reads || Window > 0 || InDiv || HighSum;
    Window -= Window > 0;
    if (Name.starts_with("V_DIV_FIXUP"))
      InDiv = false;
    bool Source = Name.starts_with("V_MBCNT") || keepsValue(MI, F) ||
                  (AnySrc && AllWeak);
    bool Wide = Name.starts_with("V_MAD_U64_U32") ||
                Name.starts_with("V_MAD_I64_I32");
    for (const RegAccess &D : R.Regs)
      if (D.Def && !D.Slots.overlaps({slot::ExecLo, 2}))
        for (unsigned S = D.Slots.First; S < D.Slots.end(); ++S)
          Weak[S] = Source || (Wide && !D.Implicit && D.Slots.Count == 2 &&
                               S == D.Slots.First + 1);
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
  // Explicit operands only, and never through EXEC: a value that only
  // chooses lanes or a branch (gelu_tanh picks one of two equal-enough
  // tanh forms by |x|) is not what a store writes.
  auto Tracked = [](const RegAccess &R) {
    return isOperand(R) && !R.Slots.overlaps({slot::ExecLo, 2});
  };
  SlotSet Live = makeSlotSet();
  for (const RegAccess &D : V.Seq.Instrs[B].Regs)
    if (D.Def && Tracked(D))
      addRange(Live, D.Slots);
  for (unsigned I = B + 1; I < V.At.size() && Live.any(); ++I) {
    const InstrRecord &R = V.Seq.Instrs[I];
    bool Reads = false;
    for (const RegAccess &U : R.Regs)
      if (!U.Def && Tracked(U) && anyIn(Live, U.Slots))
        Reads = true;
    if (Reads && R.F->is(ic::MemStore | ic::Atomic))
      return true;
    for (const RegAccess &D : R.Regs)
      if (D.Def)
        for (unsigned S = D.Slots.First; S < D.Slots.end(); ++S)
          Live[S] = Reads && Tracked(D);
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
    // The next instruction but s_nops: the wait states a hazard asks for
    // between a producer and its reader do not make them independent.
    unsigned J = I + 1;
    while (J + 1 < V.At.size() && V.Seq.Instrs[J].F->is(ic::Nop) &&
           V.Seq.BlockOf[J + 1] == V.Seq.BlockOf[I])
      ++J;
    if (V.Seq.BlockOf[I] != V.Seq.BlockOf[J])
      continue;
    const InstrRecord &A = V.Seq.Instrs[I], &B = V.Seq.Instrs[J];
    MachineInstr &MA = *V.At[I], &MB = *V.At[J];
    if (!isPlainALU(*A.F) || !isPlainALU(*B.F) || !Region.editable(MA) ||
        MA.getParent() != MB.getParent())
      continue;
    bool Dep = false, SameDef = false;
    for (const RegAccess &D : A.Regs)
      if (D.Def && isOperand(D))
        for (const RegAccess &U : B.Regs) {
          if (!U.Def && isOperand(U) && U.Slots.overlaps(D.Slots))
            Dep = true;
          if (U.Def && U.Slots.overlaps(D.Slots))
            SameDef = true;
        }
    // Both results live on (the second does not overwrite the first), and
    // the stale operand is not the same value as the fresh one.
    if (!Dep || SameDef || keepsValue(MA, F) || keepsValue(MB, F) ||
        Weak[I] || Weak[J])
      continue;
    bool Data = A.F->isVALU() && B.F->isVALU() && FromData[I] &&
                reachesStore(V, J);
    bool Vector = A.F->isVALU() && B.F->isVALU();
    // Each pair is asked once, in the first group it belongs to.
    if (G == DataPairs ? !Data : G == VectorPairs ? Data || !Vector
                                                  : Data || Vector)
      continue;
    // The register the second reads must hold a value before the first
    // (the stale one): when it holds none, the MachineVerifier alone
    // refuses the swap and the verifier, which is what this pass tests,
    // never judges it. Tried on the input as it is, so which pairs count
    // as rewrites does not depend on the filter.
    MachineBasicBlock &MBB = *MA.getParent();
    auto After = std::next(MB.getIterator());
    MBB.splice(MA.getIterator(), &MBB, MB.getIterator());
    bool Defined = LF.MF->verify(nullptr, nullptr, &nulls(),
                                 /*AbortOnError=*/false);
    if (!Defined || !shouldRewrite()) {
      MBB.splice(After, &MBB, MB.getIterator());
      continue;
    }
    Done = true;
    return true;
  }
  return false;
}
