//===- PackF32.cpp --------------------------------------------------------===//
#include "PackF32.h"
#include "asmevo/Analysis/InstrRecord.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"

using namespace llvm;
using namespace asmevo;

namespace {

enum class Op : uint8_t { FMA, MUL, ADD };

/// VOP3 source modifiers (SISrcMods in LLVM's SIDefines.h): NEG = bit 0,
/// ABS = bit 1; VOP3P adds NEG_HI = bit 1, OP_SEL_0 = bit 2, OP_SEL_1 =
/// bit 3.
enum : unsigned { ModNeg = 1, ModAbs = 2, ModOpSel0 = 4, ModOpSel1 = 8 };

struct Src {
  bool IsImm = false;
  int64_t Imm = 0;
  SlotRange Slot; ///< One 32-bit VGPR or SGPR.
  bool Neg = false;
};

/// One FP32 op as the packed form needs it: a*b(+c) or a+b.
struct F32Op {
  Op K;
  MachineInstr *MI = nullptr;
  unsigned Dst = 0; ///< VGPR number.
  unsigned NumSrc = 0;
  Src S[3];
  bool Clamp = false;
};

bool srcFrom(const MachineOperand &MO, const ISAFacts &F, Src &S) {
  if (MO.isImm()) {
    if (!isInlineConstant32(MO.getImm()))
      return false; // A VOP3P operand cannot be a literal on gfx9.
    S.IsImm = true;
    S.Imm = int32_t(uint32_t(MO.getImm()));
    return true;
  }
  SlotRange R = operandSlots(MO, F);
  if (R.Count != 1)
    return false;
  SlotKind K = slotKind(R.First);
  if (K != SlotKind::VGPR && K != SlotKind::SGPR)
    return false;
  S.Slot = R;
  return true;
}

/// Decodes the forms the lifter produces (real gfx9 "_vi" opcodes).
std::optional<F32Op> decode(MachineInstr &MI, const ISAFacts &F) {
  StringRef N = F.target().opcodeName(MI.getOpcode());
  F32Op O;
  O.MI = &MI;
  bool E64 = false, Fmac = false;
  if (N == "V_FMA_F32_vi" || N == "V_FMA_F32_e64_vi") {
    O.K = Op::FMA, E64 = true;
  } else if (N == "V_FMAC_F32_e32_vi") {
    O.K = Op::FMA, Fmac = true;
  } else if (N == "V_MUL_F32_e32_vi" || N == "V_ADD_F32_e32_vi") {
    O.K = N.starts_with("V_MUL") ? Op::MUL : Op::ADD;
  } else if (N == "V_MUL_F32_e64_vi" || N == "V_ADD_F32_e64_vi") {
    O.K = N.starts_with("V_MUL") ? Op::MUL : Op::ADD, E64 = true;
  } else {
    return std::nullopt;
  }
  O.NumSrc = O.K == Op::FMA ? 3 : 2;
  unsigned NumExpl = MI.getNumExplicitOperands();
  unsigned Want = E64 ? 1 + 2 * O.NumSrc + 2 : 1 + O.NumSrc;
  if (NumExpl != Want || !MI.getOperand(0).isReg())
    return std::nullopt;
  SlotRange D = operandSlots(MI.getOperand(0), F);
  if (D.Count != 1 || slotKind(D.First) != SlotKind::VGPR)
    return std::nullopt;
  O.Dst = D.First - slot::VGPRBase;
  for (unsigned K = 0; K < O.NumSrc; ++K) {
    unsigned Idx = E64 ? 2 + 2 * K : 1 + K;
    if (E64) {
      const MachineOperand &Mods = MI.getOperand(Idx - 1);
      if (!Mods.isImm() || (Mods.getImm() & ~int64_t(ModNeg)))
        return std::nullopt; // abs has no packed form.
      O.S[K].Neg = Mods.getImm() & ModNeg;
    }
    if (!srcFrom(MI.getOperand(Idx), F, O.S[K]))
      return std::nullopt;
  }
  (void)Fmac; // v_fmac's src2 is its tied destination: already operand 3.
  if (E64) {
    const MachineOperand &Clamp = MI.getOperand(NumExpl - 2);
    const MachineOperand &OMod = MI.getOperand(NumExpl - 1);
    if (!Clamp.isImm() || !OMod.isImm() || OMod.getImm() != 0)
      return std::nullopt;
    O.Clamp = Clamp.getImm() != 0;
  }
  return O;
}

/// A packed source: register pair (or constant) and its op_sel bits.
struct PkSrc {
  bool IsImm = false;
  int64_t Imm = 0;
  SlotRange Pair;
  unsigned Mods = 0;
};

std::optional<PkSrc> pairSources(const Src &Lo, const Src &Hi) {
  PkSrc P;
  P.Mods = (Lo.Neg ? ModNeg : 0) | (Hi.Neg ? ModAbs : 0);
  if (Lo.IsImm || Hi.IsImm) {
    // op_sel = op_sel_hi = 0: both lanes read the constant (what LLVM
    // emits for v_pk_add_f32 with 1.0).
    if (!Lo.IsImm || !Hi.IsImm || Lo.Imm != Hi.Imm)
      return std::nullopt;
    P.IsImm = true;
    P.Imm = Lo.Imm;
    return P;
  }
  if (slotKind(Lo.Slot.First) != slotKind(Hi.Slot.First))
    return std::nullopt;
  unsigned Base = slotKind(Lo.Slot.First) == SlotKind::VGPR ? slot::VGPRBase
                                                            : slot::SGPRBase;
  unsigned L = Lo.Slot.First - Base, H = Hi.Slot.First - Base;
  if (L / 2 != H / 2)
    return std::nullopt;
  if (Base == slot::SGPRBase && (L | 1) >= slot::NumSGPRs)
    return std::nullopt;
  P.Pair = SlotRange{uint16_t(Base + (L & ~1u)), 2};
  P.Mods |= ((L & 1) ? ModOpSel0 : 0) | ((H & 1) ? ModOpSel1 : 0);
  return P;
}

struct Plan {
  F32Op *Lo, *Hi;
  PkSrc S[3];
};

/// Sources of \p Lo and \p Hi paired operand by operand, trying the
/// commuted order of Hi's multiplicands/addends when the direct one fails.
std::optional<Plan> planPair(F32Op &Lo, F32Op &Hi) {
  if (Lo.K != Hi.K || Lo.Clamp != Hi.Clamp)
    return std::nullopt;
  for (int Swap = 0; Swap < 2; ++Swap) {
    Plan P{&Lo, &Hi, {}};
    bool OK = true;
    unsigned SGPRPairs = 0;
    SlotRange SPair;
    for (unsigned K = 0; K < Lo.NumSrc && OK; ++K) {
      unsigned KH = (Swap && K < 2) ? 1 - K : K;
      auto S = pairSources(Lo.S[K], Hi.S[KH]);
      if (!S) {
        OK = false;
        break;
      }
      if (!S->IsImm && slotKind(S->Pair.First) == SlotKind::SGPR &&
          !(SGPRPairs && SPair == S->Pair)) {
        ++SGPRPairs;
        SPair = S->Pair;
      }
      P.S[K] = *S;
    }
    // gfx9 VOP3: one SGPR (pair) on the constant bus.
    if (OK && SGPRPairs <= 1)
      return P;
  }
  return std::nullopt;
}

MCRegister regOf(const TargetContext &TC, SlotRange R) {
  bool V = slotKind(R.First) == SlotKind::VGPR;
  unsigned N = R.First - (V ? slot::VGPRBase : slot::SGPRBase);
  std::string Name = (V ? "v" : "s");
  if (R.Count == 1)
    Name += std::to_string(N);
  else
    Name += "[" + std::to_string(N) + ":" + std::to_string(N + R.Count - 1) + "]";
  return TC.reg(Name);
}

bool blocksHoist(const InstrRecord &R) {
  const OpcodeFacts &F = R.facts();
  return F.Flow != FlowKind::None ||
         F.is(ic::Waitcnt | ic::Barrier | ic::SetReg | ic::Message |
              ic::Sleep | ic::EndPgm);
}

/// Reads of the 32-bit VGPR slot \p D after \p From in its block, up to the
/// next write of it: the operands to rename. None when a read is part of a
/// tuple or implicit, or when the value is live out of the block.
std::optional<SmallVector<MachineOperand *, 8>>
readsToRename(MachineInstr &From, unsigned D, const ISAFacts &F,
              const SlotSet &LiveOut) {
  SmallVector<MachineOperand *, 8> Uses;
  SlotRange DS{uint16_t(D), 1};
  MachineBasicBlock &MBB = *From.getParent();
  for (auto It = std::next(From.getIterator()); It != MBB.end(); ++It) {
    if (It->isMetaInstruction())
      continue;
    bool Defines = false;
    for (MachineOperand &MO : It->operands()) {
      SlotRange R = operandSlots(MO, F);
      if (!R.overlaps(DS))
        continue;
      if (MO.isDef()) {
        if (MO.isImplicit() && R.Count != 1)
          return std::nullopt;
        Defines = true;
        continue;
      }
      if (MO.isImplicit() || R.Count != 1 || MO.isTied())
        return std::nullopt;
      Uses.push_back(&MO);
    }
    if (It->isCall())
      return std::nullopt;
    if (Defines)
      return Uses;
  }
  if (LiveOut.test(D))
    return std::nullopt;
  return Uses;
}

} // namespace

Expected<bool> PackF32Pass::run(LiftedModule &LM, LiftedFunction &LF) {
  const ISAFacts &F = Facts.get(LM);
  const TargetContext &TC = LM.target();
  const char *Names[] = {"V_PK_FMA_F32_vi", "V_PK_MUL_F32_vi",
                         "V_PK_ADD_F32_vi"};
  unsigned PkOpc[3];
  for (unsigned I = 0; I < 3; ++I)
    if ((PkOpc[I] = TC.opcode(Names[I])) == ~0u)
      return false; // No packed FP32 on this target.
  if (F.gen() != GPUGen::GFX90A && F.gen() != GPUGen::GFX94X &&
      F.gen() != GPUGen::GFX950)
    return false;

  // Liveness for renaming, recomputed after each accepted rewrite (the
  // instruction numbering changes).
  FunctionAnalysis A;
  std::vector<const MachineBasicBlock *> BBs;
  DenseMap<const MachineBasicBlock *, unsigned> BlockIdx;
  DenseMap<const MachineInstr *, unsigned> InstrIdx;
  auto Reanalyze = [&] {
    A = analyzeFunction(LM, LF, F);
    BBs.clear();
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
  unsigned NumVGPRs = A.Regs.vgprs();
  // A pair dead before \p At whose registers nothing from \p First to
  // \p Last (inclusive, in one block) reads or writes: the renamed results
  // may live there. Below the function's VGPR count, so occupancy stays.
  auto freePair = [&](unsigned AtIdx, MachineInstr &First,
                      MachineInstr *Last) -> int {
    SlotSet Live = A.Live.liveBefore(A.Seq, AtIdx);
    for (unsigned V = 0; V + 1 < NumVGPRs; V += 2) {
      SlotRange P{uint16_t(slot::VGPRBase + V), 2};
      if (Live.test(P.First) || Live.test(P.First + 1))
        continue;
      bool Free = true;
      for (auto It = First.getIterator();; ++It) {
        if (!It->isMetaInstruction()) {
          InstrRecord R = InstrRecord::fromMachineInstr(*It, F);
          if (R.defines(P) || R.reads(P)) {
            Free = false;
            break;
          }
        }
        if (&*It == Last || std::next(It) == First.getParent()->end())
          break;
      }
      if (Free)
        return V;
    }
    return -1;
  };

  RewriteGuard Guard(LM, LF, F);
  const TargetInstrInfo &TII = *LF.MF->getSubtarget().getInstrInfo();
  bool InPrologue = LF.PreloadEntry != nullptr;
  bool Changed = false;
  constexpr unsigned Window = 24;

  for (MachineBasicBlock &MBB : *LF.MF) {
    if (&MBB == LF.PreloadEntry)
      InPrologue = false;
    if (InPrologue)
      continue;
    auto BI = BlockIdx.find(&MBB);
    if (BI == BlockIdx.end())
      continue;
    SlotSet LiveOut = A.Live.LiveOut[BI->second];
    for (auto AIt = MBB.begin(); AIt != MBB.end(); ++AIt) {
      std::optional<F32Op> OA = decode(*AIt, F);
      if (!OA)
        continue;
      InstrRecord RA = InstrRecord::fromMachineInstr(*AIt, F);
      unsigned Seen = 0;
      for (auto BIt = std::next(AIt); BIt != MBB.end() && Seen < Window;
           ++BIt) {
        if (BIt->isMetaInstruction())
          continue;
        ++Seen;
        InstrRecord RB = InstrRecord::fromMachineInstr(*BIt, F);
        std::optional<F32Op> OB = decode(*BIt, F);
        if (OB && OB->Dst != OA->Dst) {
          // B moves up to A: it must not read what A or anything in
          // between writes, and nothing in between may touch its result.
          bool Indep = true;
          for (const RegAccess &U : RB.Regs)
            if (!U.Def && RA.defines(U.Slots))
              Indep = false;
          for (auto X = std::next(AIt); X != BIt && Indep; ++X) {
            if (X->isMetaInstruction())
              continue;
            InstrRecord RX = InstrRecord::fromMachineInstr(*X, F);
            if (blocksHoist(RX))
              Indep = false;
            for (const RegAccess &U : RB.Regs)
              if (U.Def ? (RX.defines(U.Slots) || RX.reads(U.Slots))
                        : RX.defines(U.Slots))
                Indep = false;
          }
          std::optional<Plan> P;
          bool LoIsA = true;
          if (Indep) {
            P = planPair(*OA, *OB);
            if (!P) {
              P = planPair(*OB, *OA);
              LoIsA = false;
            }
          }
          if (P) {
            unsigned DLo = P->Lo->Dst, DHi = P->Hi->Dst;
            bool Aligned = DLo % 2 == 0 && DHi == DLo + 1;
            if (!Aligned && LoIsA && DHi % 2 == 0 && DLo == DHi + 1) {
              // Swap lanes: A's result is the high dword.
              auto Q = planPair(*OB, *OA);
              if (Q) {
                P = Q;
                LoIsA = false;
                Aligned = true;
              }
            }
            SmallVector<std::pair<MachineOperand *, Register>, 8> Renamed;
            if (P) {
              MachineInstr *MA = &*AIt, *MB = &*BIt;
              unsigned AIdx = InstrIdx.lookup(MA);
              auto BNext = std::next(BIt);
              MB->removeFromParent();
              MCRegister Dst =
                  regOf(TC, SlotRange{uint16_t(slot::VGPRBase + (P->Lo->Dst & ~1u)), 2});
              MachineInstrBuilder MIB =
                  BuildMI(MBB, MA->getIterator(), MA->getDebugLoc(),
                          TII.get(PkOpc[unsigned(OA->K)]), Dst);
              for (unsigned K = 0; K < OA->NumSrc; ++K) {
                MIB.addImm(P->S[K].Mods);
                if (P->S[K].IsImm)
                  MIB.addImm(P->S[K].Imm);
                else
                  MIB.addReg(regOf(TC, P->S[K].Pair));
              }
              MIB.addImm(OA->Clamp).addImm(0).addImm(0).addImm(0).addImm(0);
              MachineInstr *Pk = MIB;
              MA->removeFromParent();
              bool OK = true;
              if (!Aligned) {
                // Reads of the two results move to a pair that is free
                // while they live; the old registers keep what they held,
                // dead.
                SmallVector<MachineOperand *, 8> Uses[2];
                MachineInstr *Last = Pk;
                for (unsigned Lane = 0; Lane < 2 && OK; ++Lane) {
                  unsigned Old = slot::VGPRBase +
                                 (Lane ? P->Hi->Dst : P->Lo->Dst);
                  auto U = readsToRename(*Pk, Old, F, LiveOut);
                  if (!U) {
                    OK = false;
                    break;
                  }
                  Uses[Lane] = *U;
                  for (MachineOperand *MO : *U) {
                    MachineInstr *UI = MO->getParent();
                    for (auto It = Last->getIterator(); It != MBB.end(); ++It)
                      if (&*It == UI) {
                        Last = UI;
                        break;
                      }
                  }
                }
                int NewPair = OK ? freePair(AIdx, *Pk, Last) : -1;
                OK = NewPair >= 0;
                for (unsigned Lane = 0; Lane < 2 && OK; ++Lane) {
                  MCRegister New = regOf(
                      TC, SlotRange{uint16_t(slot::VGPRBase + NewPair + Lane),
                                    1});
                  for (MachineOperand *MO : Uses[Lane]) {
                    Renamed.push_back({MO, MO->getReg()});
                    MO->setReg(New);
                  }
                }
                if (OK)
                  Pk->getOperand(0).setReg(regOf(
                      TC, SlotRange{uint16_t(slot::VGPRBase + NewPair), 2}));
              }
              if (OK && shouldRewrite() && Guard.accept()) {
                LF.MF->deleteMachineInstr(MA);
                LF.MF->deleteMachineInstr(MB);
                AIt = Pk->getIterator();
                Changed = true;
                Reanalyze();
                break;
              }
              for (auto &[MO, R] : llvm::reverse(Renamed))
                MO->setReg(R);
              MBB.insert(Pk->getIterator(), MA);
              MBB.insert(BNext, MB);
              Pk->eraseFromParent();
              BIt = MB->getIterator();
              AIt = MA->getIterator();
            }
          }
        }
        // Nothing moves across a branch, wait or barrier.
        if (blocksHoist(RB))
          break;
      }
    }
  }
  return Changed;
}
