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

bool blocksHoist(const OpcodeFacts &F) {
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

  // Block-end liveness, once: a rewrite only renames values that live
  // inside one block into registers dead there, so no block's live-out set
  // changes. Inside the block liveness is walked back from its end.
  FunctionAnalysis A = analyzeFunction(LM, LF, F);
  if (A.FromBytes)
    return false;
  std::vector<const MachineBasicBlock *> BBs;
  buildInstrSeq(*LF.MF, F, &BBs);
  DenseMap<const MachineBasicBlock *, unsigned> BlockIdx;
  for (unsigned I = 0; I < BBs.size(); ++I)
    BlockIdx[BBs[I]] = I;
  if (A.Live.LiveOut.size() != BBs.size())
    return false;
  unsigned NumVGPRs = A.Regs.vgprs();
  // Registers some MFMA/DOT/transcendental op or VALU-written SGPR holds
  // somewhere: hoisting a read of one to a block's top may bring it within
  // the wait states of a producer at a predecessor's end.
  SlotSet LongWritten = makeSlotSet();
  for (const InstrRecord &R : A.Seq.Instrs) {
    bool Long = R.facts().is(ic::MFMA | ic::DOT | ic::Trans);
    if (Long || R.facts().isVALU())
      for (const RegAccess &RA : R.Regs)
        if (RA.Def && (Long || isSGPRLike(RA.Slots.First)))
          addRange(LongWritten, RA.Slots);
  }
  // A pair the renamed results may live in. Below the function's VGPR
  // count, so occupancy stays.
  auto freePair = [&](MachineInstr &Pk, MachineInstr *Last,
                      const SlotSet &LiveOut) -> int {
    // Not live out, and nothing from Pk to the block's end touches it:
    // dead after Pk (stronger than liveness, and a walk over operands only).
    SlotSet Busy = LiveOut;
    for (auto It = Pk.getIterator(); It != Pk.getParent()->end(); ++It)
      for (const MachineOperand &MO : It->operands())
        addRange(Busy, operandSlots(MO, F));
    (void)Last;
    for (unsigned V = 0; V + 1 < NumVGPRs; V += 2)
      if (!Busy.test(slot::VGPRBase + V) && !Busy.test(slot::VGPRBase + V + 1))
        return V;
    return -1;
  };

  // A block's rewrites first go in unchecked, with what undoes them; one
  // check of the function then accepts them all. Only when that check
  // finds a new violation is the block redone checking each rewrite.
  struct Applied {
    MachineInstr *Pk, *MA, *MB, *MBNext;
    SmallVector<std::pair<MachineOperand *, Register>, 8> Renamed;
  };
  std::vector<Applied> Log;
  RewriteGuard Guard(LM, LF, F);
  const TargetInstrInfo &TII = *LF.MF->getSubtarget().getInstrInfo();
  bool Changed = false;
  constexpr unsigned Window = 24;
  bool InPrologue = LF.PreloadEntry != nullptr;
  for (MachineBasicBlock &MBB : *LF.MF) {
    if (&MBB == LF.PreloadEntry)
      InPrologue = false;
    if (InPrologue)
      continue;
    auto BI = BlockIdx.find(&MBB);
    if (BI == BlockIdx.end())
      continue;
    SlotSet LiveOut = A.Live.LiveOut[BI->second];
    size_t LogStart = Log.size();
    for (bool CheckEach : {false, true}) {
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
        std::optional<F32Op> OB = decode(*BIt, F);
        std::optional<Plan> P;
        if (OB && OB->Dst != OA->Dst && OB->K == OA->K) {
          P = planPair(*OA, *OB);
          if (!P)
            P = planPair(*OB, *OA);
        }
        if (P) {
          // What the packed op reads: whole 64-bit pairs, also the dword
          // a lane does not use.
          SmallVector<SlotRange, 3> PkReads;
          for (unsigned K = 0; K < OA->NumSrc; ++K)
            if (!P->S[K].IsImm)
              PkReads.push_back(P->S[K].Pair);
          P.reset();
          InstrRecord RB = InstrRecord::fromMachineInstr(*BIt, F);
          // B moves up to A: it must not read what A or anything in
          // between writes, and nothing in between may touch its result.
          bool Indep = true;
          for (const RegAccess &U : RB.Regs)
            if (!U.Def && RA.defines(U.Slots))
              Indep = false;
          // Hoisting B shortens the distance from the producers of its
          // sources: MFMA (passes + 2 or 3 wait states), DOT and
          // transcendental results and VALU-written SGPRs need wait states.
          // Pairs whose producer would come too close are left alone here
          // (the guard would undo them, at the cost of an analysis each).
          unsigned Dist = 0; // Wait states between X and A.
          for (auto X = AIt; X != MBB.begin() && Dist < 24 && Indep;) {
            --X;
            if (X->isMetaInstruction())
              continue;
            const OpcodeFacts &FX = F.get(X->getOpcode());
            bool Long = FX.is(ic::MFMA | ic::DOT | ic::Trans);
            if (Long || FX.isVALU()) {
              InstrRecord RX = InstrRecord::fromMachineInstr(*X, F);
              unsigned Need = FX.is(ic::MFMA)
                                  ? std::max(RX.Passes, FX.Passes) + 3u
                              : Long          ? 3u
                                              : 4u;
              // A VALU write of an SGPR read by a VALU needs wait states.
              for (SlotRange U : PkReads)
                if (RX.defines(U) && Dist < Need &&
                    (Long || isSGPRLike(U.First)))
                  Indep = false;
            }
            Dist += InstrRecord::fromMachineInstr(*X, F).waitStates();
            if (X == MBB.begin() && Dist < 24)
              for (SlotRange U : PkReads)
                for (unsigned S = U.First; S < U.end(); ++S)
                  if (LongWritten.test(S))
                    Indep = false; // A producer may end a predecessor.
          }
          if (AIt == MBB.begin())
            for (SlotRange U : PkReads)
              for (unsigned S = U.First; S < U.end(); ++S)
                if (LongWritten.test(S))
                  Indep = false;
          for (auto X = std::next(AIt); X != BIt && Indep; ++X) {
            if (X->isMetaInstruction())
              continue;
            InstrRecord RX = InstrRecord::fromMachineInstr(*X, F);
            if (blocksHoist(RX.facts()))
              Indep = false;
            for (const RegAccess &U : RB.Regs)
              if (U.Def ? (RX.defines(U.Slots) || RX.reads(U.Slots))
                        : RX.defines(U.Slots))
                Indep = false;
          }
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
                int NewPair = OK ? freePair(*Pk, Last, LiveOut) : -1;
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
              if (OK && shouldRewrite() && (!CheckEach || Guard.accept())) {
                Log.push_back({Pk, MA, MB, BNext == MBB.end() ? nullptr : &*BNext,
                               Renamed});
                AIt = Pk->getIterator();
                Changed = true;
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
        if (blocksHoist(F.get(BIt->getOpcode())))
          break;
      }
    }
    if (CheckEach || Log.size() == LogStart || Guard.accept())
      break;
    // Some rewrite of this block added a violation: undo the block's
    // rewrites (last first) and redo each under the check.
    while (Log.size() > LogStart) {
      Applied &R = Log.back();
      for (auto &[MO, Reg] : llvm::reverse(R.Renamed))
        MO->setReg(Reg);
      MBB.insert(R.Pk->getIterator(), R.MA);
      MBB.insert(R.MBNext ? R.MBNext->getIterator() : MBB.end(), R.MB);
      R.Pk->eraseFromParent();
      Log.pop_back();
    }
    }
  }
  Changed = !Log.empty();
  for (Applied &R : Log) {
    LF.MF->deleteMachineInstr(R.MA);
    LF.MF->deleteMachineInstr(R.MB);
  }
  return Changed;
}
