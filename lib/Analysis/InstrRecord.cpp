//===- InstrRecord.cpp ----------------------------------------------------===//
#include "asmevo/Analysis/InstrRecord.h"
#include "asmevo/Lift/LiftedModule.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrInfo.h"

using namespace llvm;
using namespace asmevo;

static void setPasses(InstrRecord &R, const ISAFacts &Facts,
                      const MCInst *Inst) {
  R.Passes = R.F->Passes;
  R.XDL = R.F->is(ic::XDL);
  unsigned P;
  bool X;
  if (R.F->VariantSched && Inst && Facts.resolveMFMA(*Inst, P, X)) {
    R.Passes = P;
    R.XDL = X;
  }
}

/// \p Imm(I) gives explicit operand I as an immediate, or nullopt when it is
/// not one. SDWA's trailing fields (no register class, not source
/// modifiers) end in [clamp, [omod,] dst_sel, dst_unused, src0_sel
/// [, src1_sel]]; VOPC has no dst_sel. DWORD is 6.
template <typename ImmFn>
static uint8_t writesThroughDstSel(const MCInstrDesc &D, const OpcodeFacts &F,
                                unsigned NumExplicit, unsigned InputMods,
                                ImmFn Imm) {
  if (!F.isLegacyVALU())
    return InstrRecord::NoDstSel;
  unsigned N = std::min<unsigned>(NumExplicit, D.getNumOperands());
  if (F.is(ic::SDWA)) {
    if ((F.TSFlags >> tsflag::VOPC) & 1)
      return InstrRecord::NoDstSel;
    SmallVector<int64_t, 8> Trailing;
    unsigned Sources = 0; // register-class operands not tied to vdst
    for (unsigned I = D.getNumDefs(); I < N; ++I) {
      const MCOperandInfo &OI = D.operands()[I];
      if (OI.RegClass >= 0) {
        Sources += D.getOperandConstraint(I, MCOI::TIED_TO) < 0;
        continue;
      }
      if (OI.OperandType == InputMods)
        continue;
      if (std::optional<int64_t> V = Imm(I))
        Trailing.push_back(*V);
    }
    bool TwoSources = Sources >= 2;
    unsigned FromEnd = TwoSources ? 4 : 3;
    if (Trailing.size() < FromEnd + 1)
      return InstrRecord::NoDstSel;
    return Trailing[Trailing.size() - FromEnd] != 6 ? InstrRecord::DstSelWrite
                                                    : InstrRecord::NoDstSel;
  }
  unsigned Src0Mods = D.getNumDefs();
  if (Src0Mods >= N || D.operands()[Src0Mods].OperandType != InputMods)
    return InstrRecord::NoDstSel;
  std::optional<int64_t> M = Imm(Src0Mods);
  if (!M || !(*M & 8))
    return InstrRecord::NoDstSel;
  return (F.TSFlags >> tsflag::VOP3P) & 1 ? InstrRecord::DstSelVOP3P
                                          : InstrRecord::DstSelWrite;
}

static uint8_t dppSource(const MCInstrDesc &D, const OpcodeFacts &F) {
  if (!F.is(ic::DPP))
    return 255;
  for (unsigned I = D.getNumDefs(); I < D.getNumOperands(); ++I)
    if (D.operands()[I].RegClass >= 0 &&
        D.getOperandConstraint(I, MCOI::TIED_TO) < 0)
      return (uint8_t)std::min(I, 254u);
  return 255;
}

InstrRecord InstrRecord::fromMachineInstr(const MachineInstr &MI,
                                          const ISAFacts &Facts) {
  InstrRecord R;
  R.Opcode = MI.getOpcode();
  R.F = &Facts.get(R.Opcode);
  if (R.F->VariantSched) {
    MCInst Tmp;
    Tmp.setOpcode(R.Opcode);
    for (const MachineOperand &MO : MI.explicit_operands())
      Tmp.addOperand(MO.isReg()   ? MCOperand::createReg(MO.getReg())
                     : MO.isImm() ? MCOperand::createImm(MO.getImm())
                                  : MCOperand::createImm(0));
    setPasses(R, Facts, &Tmp);
  } else {
    setPasses(R, Facts, nullptr);
  }
  R.NumDefs = MI.getDesc().getNumDefs();
  R.DPPSrc = dppSource(MI.getDesc(), *R.F);
  R.DstSel = writesThroughDstSel(
      MI.getDesc(), *R.F, MI.getNumExplicitOperands(), Facts.inputModsType(),
      [&](unsigned I) -> std::optional<int64_t> {
        const MachineOperand &MO = MI.getOperand(I);
        if (MO.isImm())
          return MO.getImm();
        return std::nullopt;
      });
  R.Addr = LiftedModule::originalAddress(MI).value_or(~0ull);
  bool HaveImm = false;
  unsigned NumExplicit = MI.getNumExplicitOperands();
  for (unsigned I = 0, E = MI.getNumOperands(); I < E; ++I) {
    const MachineOperand &MO = MI.getOperand(I);
    if (MO.isImm() && !HaveImm) {
      R.Imm = MO.getImm();
      HaveImm = true;
    }
    if (!MO.isReg() || !MO.getReg() || !MO.getReg().isPhysical())
      continue;
    SlotRange S = Facts.slots().slots(MO.getReg().asMCReg());
    if (S.empty())
      continue;
    R.Regs.push_back(
        {S, (uint8_t)std::min(I, 255u), MO.isDef(), I >= NumExplicit});
  }
  return R;
}

InstrRecord InstrRecord::fromMCInst(const MCInst &MI, const ISAFacts &Facts) {
  InstrRecord R;
  R.Opcode = MI.getOpcode();
  R.F = &Facts.get(R.Opcode);
  setPasses(R, Facts, &MI);
  const MCInstrDesc &D = Facts.target().instrInfo().get(R.Opcode);
  R.NumDefs = D.getNumDefs();
  R.DPPSrc = dppSource(D, *R.F);
  R.DstSel = writesThroughDstSel(
      D, *R.F, MI.getNumOperands(), Facts.inputModsType(),
      [&](unsigned I) -> std::optional<int64_t> {
        const MCOperand &Op = MI.getOperand(I);
        if (Op.isImm())
          return Op.getImm();
        return std::nullopt;
      });
  R.Addr = ~0ull;
  bool HaveImm = false;
  // Decoded operand lists can be longer or shorter than the descriptor
  // (see notes/lifting.md); only descriptor operands have a role.
  unsigned N = std::min<unsigned>(MI.getNumOperands(), D.getNumOperands());
  for (unsigned I = 0; I < N; ++I) {
    const MCOperand &Op = MI.getOperand(I);
    if (Op.isImm() && !HaveImm) {
      R.Imm = Op.getImm();
      HaveImm = true;
    }
    if (!Op.isReg() || !Op.getReg())
      continue;
    SlotRange S = Facts.slots().slots(Op.getReg());
    if (!S.empty())
      R.Regs.push_back({S, (uint8_t)I, I < R.NumDefs, false});
  }
  for (MCPhysReg Reg : D.implicit_defs())
    if (SlotRange S = Facts.slots().slots(Reg); !S.empty())
      R.Regs.push_back({S, 255, true, true});
  for (MCPhysReg Reg : D.implicit_uses())
    if (SlotRange S = Facts.slots().slots(Reg); !S.empty())
      R.Regs.push_back({S, 255, false, true});
  return R;
}

const RegAccess *InstrRecord::storeData() const {
  if (!F->MayStore)
    return nullptr;
  if (F->is(ic::Buffer)) {
    const RegAccess *A = operand(NumDefs);
    return A && isVectorSlot(A->Slots.First) ? A : nullptr;
  }
  // FLAT/global/scratch: vaddr (absent in scratch "off" forms) comes before
  // vdata, so the data is the last explicit vector use.
  const RegAccess *Data = nullptr;
  for (const RegAccess &A : Regs)
    if (!A.Def && !A.Implicit && isVectorSlot(A.Slots.First))
      Data = &A;
  return Data;
}

bool InstrRecord::hasSOffsetReg() const {
  for (const RegAccess &A : Regs)
    if (!A.Def && !A.Implicit && isSGPRLike(A.Slots.First) &&
        A.Slots.Count == 1)
      return true;
  return false;
}
