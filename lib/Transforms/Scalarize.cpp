//===- Scalarize.cpp ------------------------------------------------------===//
#include "Scalarize.h"
#include "asmevo/Analysis/InstrRecord.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"

using namespace llvm;
using namespace asmevo;

namespace {

struct SaluOp {
  const char *Valu;
  const char *Salu;
  unsigned NumSrc;
  bool Swap; ///< VALU "rev" forms: the SALU takes the sources swapped.
};

// VOP1/VOP2 e32 and VOP3 integer/bit ops with an exact SALU counterpart
// (same 32-bit result; the SALU op may also write SCC).
const SaluOp Ops[] = {
    {"V_ADD_U32_e32_gfx9", "S_ADD_U32_vi", 2, false},
    {"V_SUB_U32_e32_gfx9", "S_SUB_U32_vi", 2, false},
    {"V_SUBREV_U32_e32_gfx9", "S_SUB_U32_vi", 2, true},
    {"V_AND_B32_e32_vi", "S_AND_B32_vi", 2, false},
    {"V_OR_B32_e32_vi", "S_OR_B32_vi", 2, false},
    {"V_XOR_B32_e32_vi", "S_XOR_B32_vi", 2, false},
    {"V_LSHLREV_B32_e32_vi", "S_LSHL_B32_vi", 2, true},
    {"V_LSHRREV_B32_e32_vi", "S_LSHR_B32_vi", 2, true},
    {"V_ASHRREV_I32_e32_vi", "S_ASHR_I32_vi", 2, true},
    {"V_MAX_U32_e32_vi", "S_MAX_U32_vi", 2, false},
    {"V_MAX_I32_e32_vi", "S_MAX_I32_vi", 2, false},
    {"V_MIN_U32_e32_vi", "S_MIN_U32_vi", 2, false},
    {"V_MIN_I32_e32_vi", "S_MIN_I32_vi", 2, false},
    {"V_NOT_B32_e32_vi", "S_NOT_B32_vi", 1, false},
    {"V_BFREV_B32_e32_vi", "S_BREV_B32_vi", 1, false},
    {"V_MUL_LO_U32_vi", "S_MUL_I32_vi", 2, false},
};

/// A uniform 32-bit value: an SGPR or an immediate.
struct UValue {
  bool IsImm = false;
  int64_t Imm = 0;
  Register Reg;
  SlotRange Slot;
};

bool isGeneralSGPR(SlotRange R) {
  return R.Count == 1 && R.First < slot::NumSGPRs;
}

/// Readers that see only their own lane of a VGPR and may read an SGPR.
bool laneLocalVALU(const OpcodeFacts &F) {
  return F.isLegacyVALU() &&
         !F.is(ic::DPP | ic::SDWA | ic::ReadLane | ic::WriteLane | ic::MFMA |
               ic::DOT | ic::DivFmas) &&
         !F.Name.contains("PERMLANE") && !F.Name.contains("SWAP") &&
         !F.Name.contains("MOVREL");
}

} // namespace

Expected<bool> ScalarizePass::run(LiftedModule &LM, LiftedFunction &LF) {
  const ISAFacts &F = Facts.get(LM);
  const TargetContext &TC = LM.target();
  const TargetSubtargetInfo &ST = LF.MF->getSubtarget();
  const TargetInstrInfo &TII = *ST.getInstrInfo();

  FunctionAnalysis A;
  DenseMap<const MachineBasicBlock *, unsigned> BlockIdx;
  DenseMap<const MachineInstr *, unsigned> InstrIdx;
  auto Reanalyze = [&] {
    A = analyzeFunction(LM, LF, F);
    std::vector<const MachineBasicBlock *> BBs;
    buildInstrSeq(*LF.MF, F, &BBs);
    BlockIdx.clear();
    for (unsigned I = 0; I < BBs.size(); ++I)
      BlockIdx[BBs[I]] = I;
    InstrIdx.clear();
    unsigned N = 0;
    for (MachineBasicBlock &MBB : *LF.MF)
      for (MachineInstr &MI : MBB)
        if (!MI.isMetaInstruction())
          InstrIdx[&MI] = N++;
  };
  Reanalyze();
  if (A.FromBytes || InstrIdx.size() != A.Seq.Instrs.size())
    return false;
  unsigned NumSGPRs = std::min<unsigned>(A.Regs.sgprs(), slot::NumSGPRs);
  RewriteGuard Guard(LM, LF, F);
  bool InPrologue = LF.PreloadEntry != nullptr;
  bool Changed = false;

  // A second sweep drops the v_movs whose last reader the first one
  // scalarized.
  for (unsigned Sweep = 0; Sweep < 2; ++Sweep)
  for (MachineBasicBlock &MBB : *LF.MF) {
    if (&MBB == LF.PreloadEntry)
      InPrologue = false;
    else if (&MBB == &LF.MF->front())
      InPrologue = LF.PreloadEntry != nullptr;
    if (InPrologue || !BlockIdx.count(&MBB))
      continue;
    // VGPR slot -> the uniform value v_mov_b32 put there.
    DenseMap<unsigned, UValue> Known;
    bool Advance = true;
    for (auto CIt = MBB.begin(); CIt != MBB.end();
         CIt = Advance ? std::next(CIt) : CIt) {
      Advance = true;
      MachineInstr &C = *CIt;
      if (C.isMetaInstruction())
        continue;
      InstrRecord RC = InstrRecord::fromMachineInstr(C, F);
      StringRef Name = TC.opcodeName(C.getOpcode());
      auto Forget = [&] {
        for (const RegAccess &R : RC.Regs) {
          if (!R.Def)
            continue;
          if (R.Slots.overlaps({slot::ExecLo, 2})) {
            Known.clear();
            return;
          }
          for (unsigned S = R.Slots.First; S < R.Slots.end(); ++S)
            Known.erase(S);
          SmallVector<unsigned, 4> Stale;
          for (auto &[V, Val] : Known)
            if (!Val.IsImm && Val.Slot.overlaps(R.Slots))
              Stale.push_back(V);
          for (unsigned V : Stale)
            Known.erase(V);
        }
      };
      // Operand value: uniform or not.
      auto uniformOf = [&](const MachineOperand &MO) -> std::optional<UValue> {
        UValue V;
        if (MO.isImm()) {
          V.IsImm = true;
          V.Imm = MO.getImm();
          return V;
        }
        SlotRange S = operandSlots(MO, F);
        if (isGeneralSGPR(S)) {
          V.Reg = MO.getReg();
          V.Slot = S;
          return V;
        }
        if (S.Count == 1 && slotKind(S.First) == SlotKind::VGPR) {
          auto It = Known.find(S.First);
          if (It != Known.end())
            return It->second;
        }
        return std::nullopt;
      };

      bool IsMov = Name == "V_MOV_B32_e32_vi";
      const SaluOp *Op = nullptr;
      for (const SaluOp &O : Ops)
        if (Name == O.Valu)
          Op = &O;
      SlotRange D;
      if ((IsMov || Op) && C.getNumExplicitOperands() ==
                               1 + (IsMov ? 1 : Op->NumSrc))
        D = operandSlots(C.getOperand(0), F);
      if (D.Count != 1 || slotKind(D.First) != SlotKind::VGPR) {
        Forget();
        continue;
      }
      SmallVector<UValue, 2> Srcs;
      bool Uniform = true;
      for (unsigned I = 1; I < C.getNumExplicitOperands() && Uniform; ++I) {
        auto V = uniformOf(C.getOperand(I));
        if (!V)
          Uniform = false;
        else
          Srcs.push_back(*V);
      }
      if (!Uniform) {
        Forget();
        continue;
      }
      if (IsMov && (Srcs[0].IsImm || Srcs[0].Reg)) {
        // Its value is known from here on, whatever happens to it below.
        UValue V = Srcs[0];
        Forget();
        Known[D.First] = V;
      } else {
        Forget();
      }
      // The replacement the readers of D take.
      unsigned SaluOpc = ~0u;
      bool NeedSGPR = false;
      UValue R;
      if (IsMov) {
        R = Srcs[0];
        if (R.IsImm && !isInlineConstant32(R.Imm))
          continue; // A literal would cost an s_mov; not worth it here.
      } else {
        unsigned Literals = 0;
        for (const UValue &V : Srcs)
          Literals += V.IsImm && !isInlineConstant32(V.Imm);
        if (Literals > 1)
          continue;
        SaluOpc = TC.opcode(Op->Salu);
        if (SaluOpc == ~0u)
          continue;
        NeedSGPR = true;
      }

      // Readers of D up to its next write, all rewritable; D dead after.
      SmallVector<MachineOperand *, 8> Uses;
      bool OK = true;
      MachineInstr *Last = &C;
      bool Redefined = false;
      for (auto It = std::next(CIt); It != MBB.end() && OK; ++It) {
        if (It->isMetaInstruction())
          continue;
        InstrRecord RX = InstrRecord::fromMachineInstr(*It, F);
        bool Reads = RX.reads(D);
        if (Reads) {
          if (!laneLocalVALU(RX.facts()))
            OK = false;
          for (MachineOperand &MO : It->operands()) {
            SlotRange S = operandSlots(MO, F);
            if (!S.overlaps(D) || MO.isDef())
              continue;
            if (MO.isImplicit() || S.Count != 1 || MO.isTied()) {
              OK = false;
              break;
            }
            Uses.push_back(&MO);
          }
          Last = &*It;
        }
        // The value must stay what it was at C: EXEC and (for an SGPR
        // source) the SGPR unchanged while D is read.
        bool ExecWrite = RX.defines({slot::ExecLo, 2});
        bool SrcWrite = false;
        for (const UValue &V : Srcs)
          if (!V.IsImm && RX.defines(V.Slot))
            SrcWrite = true;
        if (RX.defines(D)) {
          Redefined = true;
          break;
        }
        if (ExecWrite || (IsMov && SrcWrite)) {
          // Reads after this point would see another value: stop here
          // only if D is not read again before its next write.
          for (auto J = std::next(It); J != MBB.end(); ++J) {
            if (J->isMetaInstruction())
              continue;
            InstrRecord RJ = InstrRecord::fromMachineInstr(*J, F);
            if (RJ.reads(D)) {
              OK = false;
              break;
            }
            if (RJ.defines(D)) {
              Redefined = true;
              break;
            }
          }
          break;
        }
        if (It->isCall())
          OK = false;
      }
      // A v_mov nothing reads any more is dropped as well.
      if (!OK || (Uses.empty() && !IsMov))
        continue;
      SlotSet LiveOut = A.Live.LiveOut[BlockIdx[&MBB]];
      if (!Redefined && LiveOut.test(D.First))
        continue;

      // A free SGPR for the SALU result; SCC dead if the op writes it.
      unsigned CIdx = InstrIdx.lookup(&C);
      SlotSet Live = A.Live.liveBefore(A.Seq, CIdx);
      MCRegister SReg;
      if (NeedSGPR) {
        const MCInstrDesc &SD = TII.get(SaluOpc);
        bool WritesSCC = false;
        for (MCPhysReg IR : SD.implicit_defs())
          WritesSCC |= F.slots().slots(IR).contains(slot::SCC);
        if (WritesSCC && Live.test(slot::SCC))
          continue;
        for (unsigned S = 0; S < NumSGPRs && !SReg; ++S) {
          if (Live.test(S))
            continue;
          SlotRange SR{uint16_t(S), 1};
          bool Free = true;
          for (auto It = CIt;; ++It) {
            if (!It->isMetaInstruction()) {
              InstrRecord RX = InstrRecord::fromMachineInstr(*It, F);
              if (RX.defines(SR) || RX.reads(SR))
                Free = false;
            }
            if (!Free || &*It == Last)
              break;
          }
          if (Free)
            SReg = TC.reg("s" + std::to_string(S));
        }
        if (!SReg)
          continue;
        R = UValue();
        R.Reg = SReg;
        R.Slot = F.slots().slots(SReg);
      }

      // Rewrite the readers, check each against LLVM's operand rules.
      SmallVector<std::tuple<MachineOperand *, Register, bool, int64_t>, 8>
          Undo;
      for (MachineOperand *MO : Uses) {
        MachineInstr &UI = *MO->getParent();
        unsigned OpIdx = MO->getOperandNo();
        const TargetRegisterClass *RC = TII.getRegClass(UI.getDesc(), OpIdx);
        MCRegister AnySGPR = R.IsImm ? TC.reg("s0") : R.Reg.asMCReg();
        if (!RC || !RC->contains(AnySGPR)) {
          OK = false;
          break;
        }
        Undo.push_back({MO, MO->getReg(), false, 0});
        if (R.IsImm)
          MO->ChangeToImmediate(R.Imm);
        else
          MO->setReg(R.Reg);
      }
      if (OK)
        for (MachineOperand *MO : Uses) {
          StringRef Err;
          if (!TII.verifyInstruction(*MO->getParent(), Err)) {
            OK = false;
            break;
          }
        }
      MachineInstr *New = nullptr;
      if (OK && NeedSGPR) {
        MachineInstrBuilder B =
            BuildMI(MBB, CIt, C.getDebugLoc(), TII.get(SaluOpc), SReg);
        SmallVector<UValue, 2> S = Srcs;
        if (Op->Swap)
          std::swap(S[0], S[1]);
        for (const UValue &V : S)
          if (V.IsImm)
            B.addImm(V.Imm);
          else
            B.addReg(V.Reg);
        New = B;
        StringRef Err;
        if (!TII.verifyInstruction(*New, Err))
          OK = false;
      }
      if (OK) {
        auto NextIt = std::next(C.getIterator());
        bool First = C.getIterator() == MBB.begin() ||
                     (New && New->getIterator() == MBB.begin());
        auto PrevIt = First ? MBB.end()
                            : std::prev(New ? New->getIterator()
                                            : C.getIterator());
        C.removeFromParent();
        if (shouldRewrite() && Guard.accept()) {
          LF.MF->deleteMachineInstr(&C);
          Changed = true;
          Known.erase(D.First);
          Reanalyze();
          if (New) {
            CIt = New->getIterator();
          } else if (PrevIt != MBB.end()) {
            CIt = PrevIt;
          } else {
            // C was the block's first instruction: go on from what
            // followed it without stepping past it.
            CIt = NextIt;
            Advance = false;
          }
          continue;
        }
        MBB.insert(NextIt, &C);
        CIt = C.getIterator();
      }
      if (New)
        New->eraseFromParent();
      for (auto &[MO, Reg, WasImm, Imm] : llvm::reverse(Undo))
        MO->ChangeToRegister(Reg, false);
    }
  }
  return Changed;
}
