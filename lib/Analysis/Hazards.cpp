//===- Hazards.cpp - Matching the rule table ------------------------------===//
//
// For a consumer C and a rule, walk back over the instructions issued
// before C (along every CFG path, or the run-time history) counting wait
// states. As LLVM's getWaitStatesSinceDef does, only the nearest producer
// of each consumer operand counts: once an operand has met its producer it
// is resolved. A hit is a producer closer than the rule's wait states.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Analysis/Hazards.h"
#include "Uncached.h"
#include "llvm/ADT/SmallVector.h"

using namespace llvm;
using namespace asmevo;

bool asmevo::ruleApplies(const HazardRule &R, GPUGen G) {
  uint8_t T = G == GPUGen::GFX90A   ? TgtGFX90A
              : G == GPUGen::GFX950 ? TgtGFX950
                                    : TgtGFX94X;
  return R.Targets & T;
}

static bool matches(HzInst K, const InstrRecord &I) {
  const OpcodeFacts &F = *I.F;
  switch (K) {
  case HzInst::VALU:
    return F.isVALU();
  case HzInst::LegacyVALU:
    return F.isLegacyVALU();
  case HzInst::LegacyVALUNotDot:
    return F.isLegacyVALU() && !F.is(ic::DOT);
  case HzInst::SALU:
    return F.is(ic::SALU);
  case HzInst::Trans:
    return F.is(ic::Trans);
  case HzInst::NonTransVALU:
    return F.isVALU() && !F.is(ic::Trans);
  case HzInst::VMem:
    return F.is(ic::VMEM);
  case HzInst::VecMemOrExp:
    return F.is(ic::VMEM | ic::DS | ic::Export);
  case HzInst::ValuNotMFMA:
    return F.isLegacyVALU() && !F.is(ic::VMEM);
  case HzInst::ValuOrVecMemOrExp:
    return !F.is(ic::MFMA) &&
           (F.isVALU() || F.is(ic::VMEM | ic::DS | ic::Export));
  case HzInst::MFMA:
    return F.is(ic::MFMA);
  case HzInst::XDL:
    return F.is(ic::MFMA) && I.XDL;
  case HzInst::SMFMA:
    return F.is(ic::MFMA) && !I.XDL && !F.is(ic::DGEMM);
  case HzInst::DGEMM:
    return F.is(ic::DGEMM);
  case HzInst::NonXDLMFMA:
    return F.is(ic::MFMA) && !I.XDL;
  case HzInst::DOT:
    return F.is(ic::DOT);
  case HzInst::RWLaneSel:
    return F.is(ic::WriteLane) ||
           (F.is(ic::ReadLane) && F.Name.starts_with("V_READLANE"));
  case HzInst::RWLaneAny:
    return F.is(ic::ReadLane | ic::WriteLane);
  case HzInst::ReadLane:
    return F.is(ic::ReadLane);
  case HzInst::DivFmas:
    return F.is(ic::DivFmas);
  case HzInst::DPP:
    return F.is(ic::DPP);
  case HzInst::SetReg:
    return F.is(ic::SetReg);
  case HzInst::GetReg:
    return F.is(ic::GetReg);
  case HzInst::M0Reader:
    return F.is(ic::MovRel | ic::Message | ic::GDS | ic::AddTID);
  case HzInst::LDSDMA:
    return F.is(ic::LDSDMA);
  case HzInst::WideStore: {
    const RegAccess *D = I.storeData();
    if (!D || D->Slots.Count <= 2 || !F.is(ic::VMEM))
      return false;
    return !F.is(ic::Buffer) || !I.hasSOffsetReg();
  }
  case HzInst::FMA64:
    return F.is(ic::FMA64);
  case HzInst::DstSelVALU:
    return I.DstSel == InstrRecord::DstSelWrite;
  case HzInst::DstSelVOP3P:
    return I.DstSel == InstrRecord::DstSelVOP3P;
  case HzInst::PermlaneSwap:
    return F.Name.starts_with("V_PERMLANE16_SWAP") ||
           F.Name.starts_with("V_PERMLANE32_SWAP");
  }
  return false;
}

/// Which producers "resolve" a consumer operand for a relation: for the
/// MFMA-destination relations the nearest MFMA writing the register
/// decides (LLVM's IsOverlappedMFMAFn / IsMFMAWriteFn), whatever its kind.
static bool resolvesAsMFMA(HzRel R) {
  return R == HzRel::DstSrcCOverlap || R == HzRel::DstSrcCExact ||
         R == HzRel::DstSrcAB || R == HzRel::DstUse || R == HzRel::DstDef;
}

static int waitsFor(const HazardRule &R, const InstrRecord &P) {
  if (R.PassesPlus >= 0)
    return P.Passes + R.PassesPlus;
  if (R.ByPasses[0] | R.ByPasses[1] | R.ByPasses[2] | R.ByPasses[3]) {
    unsigned Pa = P.Passes;
    unsigned Idx = Pa <= 2 ? 0 : Pa <= 4 ? 1 : Pa <= 8 ? 2 : 3;
    return R.ByPasses[Idx];
  }
  return R.Fixed;
}

static int maxWaits(const HazardRule &R) {
  if (R.PassesPlus >= 0)
    return 16 + R.PassesPlus;
  int M = R.Fixed;
  for (int8_t W : R.ByPasses)
    M = std::max<int>(M, W);
  return M;
}

/// \p A is the carry-in of v_addc/v_subb/v_subbrev: the one 64-bit scalar
/// source of those opcodes (wave64), an explicit SGPR pair (VOP3) or the
/// implicit VCC (VOP2, DPP, SDWA).
static bool isCarryInRead(const InstrRecord &C, const RegAccess &A) {
  if (A.Def || A.Slots.Count != 2 || !isSGPRLike(A.Slots.First))
    return false;
  StringRef N = C.F->Name;
  return N.starts_with("V_ADDC_") || N.starts_with("V_SUBB_") ||
         N.starts_with("V_SUBBREV_");
}

static constexpr uint64_t SingleBit = 1ull << 63;

namespace {
/// Evaluates one producer against the still-unresolved consumer operands.
struct Prober {
  const HazardRule &R;
  const InstrRecord &C;

  /// Initial pending mask: consumer operands the relation looks at.
  uint64_t initial() const {
    uint64_t M = 0;
    for (unsigned I = 0; I < C.Regs.size() && I < 63; ++I)
      if (looksAt(C.Regs[I]))
        M |= 1ull << I;
    switch (R.Rel) {
    case HzRel::VCCDef:
    case HzRel::ExecDef:
    case HzRel::M0Def:
    case HzRel::SameHwReg:
    case HzRel::None:
    case HzRel::VCCDefReadsVCCZ:
    case HzRel::ExecDefReadsEXECZ:
      return relationSingleApplies() ? SingleBit : 0;
    default:
      return M;
    }
  }

  bool relationSingleApplies() const {
    if (R.Rel == HzRel::VCCDefReadsVCCZ)
      return C.reads({slot::SrcVCCZ, 1});
    if (R.Rel == HzRel::ExecDefReadsEXECZ)
      return C.reads({slot::SrcEXECZ, 1});
    return true;
  }

  bool looksAt(const RegAccess &A) const {
    bool Vec = isVectorSlot(A.Slots.First);
    switch (R.Rel) {
    case HzRel::SGPRDefUse:
      return !A.Def && isSGPRLike(A.Slots.First);
    case HzRel::SGPRDefExplUse:
      return !A.Def && isSGPRLike(A.Slots.First) &&
             (!A.Implicit || A.Slots.overlaps({slot::VCCLo, 2})) &&
             !isCarryInRead(C, A);
    case HzRel::SGPRDefCarryUse:
      return isCarryInRead(C, A) &&
             (!A.Implicit || A.Slots.overlaps({slot::VCCLo, 2}));
    case HzRel::SGPRDefLaneSel:
      return !A.Def && !A.Implicit && A.OpIdx == 2 && isSGPRLike(A.Slots.First);
    case HzRel::VGPRDefVecUse:
      return !A.Def && Vec;
    case HzRel::VGPRDefExplUse:
    case HzRel::DstUse:
    case HzRel::DotDstUseOtherOp:
      return !A.Def && !A.Implicit && Vec;
    case HzRel::VGPRDefSrc0:
      return !A.Def && !A.Implicit && Vec && A.OpIdx == C.NumDefs;
    case HzRel::VGPRDefDPPSrc:
      return !A.Def && !A.Implicit && Vec && A.OpIdx == C.DPPSrc;
    case HzRel::DstSrcCOverlap:
    case HzRel::DstSrcCExact:
      return C.isSrcC(A) && Vec;
    case HzRel::DstSrcAB:
    case HzRel::DotDstSrcABSameOp:
      return !A.Def && !A.Implicit && Vec && !C.isSrcC(A);
    case HzRel::DstDef:
    case HzRel::SrcCDef:
    case HzRel::DataDef:
    case HzRel::DotDstDefOtherOp:
      return A.Def && Vec;
    default:
      return false;
    }
  }

  /// The producer-side register for the relation, if any.
  const RegAccess *producerReg(const InstrRecord &P) const {
    switch (R.Rel) {
    case HzRel::DstSrcCOverlap:
    case HzRel::DstSrcCExact:
    case HzRel::DstSrcAB:
    case HzRel::DstUse:
    case HzRel::DstDef:
    case HzRel::DotDstUseOtherOp:
    case HzRel::DotDstSrcABSameOp:
    case HzRel::DotDstDefOtherOp: {
      const RegAccess *D = P.operand(0);
      return D && D->Def ? D : nullptr;
    }
    case HzRel::SrcCDef:
      return P.srcC();
    case HzRel::DataDef:
      return P.storeData();
    default:
      return nullptr;
    }
  }

  bool producerDefines(const InstrRecord &P, SlotRange S, bool SGPROnly,
                       SlotRange &Hit) const {
    for (const RegAccess &A : P.Regs)
      if (A.Def && A.Slots.overlaps(S) &&
          (!SGPROnly || isSGPRLike(A.Slots.First))) {
        Hit = A.Slots;
        return true;
      }
    return false;
  }

  /// Returns the wait states P requires (0 if none) and clears the
  /// consumer operands P resolves from \p Pending.
  int probe(const InstrRecord &P, uint64_t &Pending, SlotRange &Conf) const {
    bool PredOK = matches(R.Producer, P);
    bool Family = resolvesAsMFMA(R.Rel) ? P.F->is(ic::MFMA) : PredOK;
    if (!Family)
      return 0;
    if (Pending & SingleBit) {
      SlotRange Hit;
      bool Holds = false;
      switch (R.Rel) {
      case HzRel::VCCDef:
      case HzRel::VCCDefReadsVCCZ:
        Holds = producerDefines(P, {slot::VCCLo, 2}, false, Hit);
        break;
      case HzRel::ExecDef:
      case HzRel::ExecDefReadsEXECZ:
        Holds = producerDefines(P, {slot::ExecLo, 2}, false, Hit);
        break;
      case HzRel::M0Def:
        Holds = producerDefines(P, {slot::M0, 1}, false, Hit);
        break;
      case HzRel::SameHwReg:
        Holds = P.hwRegId() == C.hwRegId();
        break;
      case HzRel::None:
        Holds = true;
        break;
      default:
        break;
      }
      if (!Holds)
        return 0;
      Pending &= ~SingleBit;
      Conf = Hit;
      return waitsFor(R, P);
    }
    int Need = 0;
    const RegAccess *PR = producerReg(P);
    if (resolvesAsMFMA(R.Rel) || R.Rel == HzRel::SrcCDef ||
        R.Rel == HzRel::DataDef || R.Rel == HzRel::DotDstUseOtherOp ||
        R.Rel == HzRel::DotDstSrcABSameOp || R.Rel == HzRel::DotDstDefOtherOp)
      if (!PR)
        return 0;
    for (unsigned I = 0; I < C.Regs.size() && I < 63; ++I) {
      if (!(Pending & (1ull << I)))
        continue;
      const RegAccess &A = C.Regs[I];
      bool Hit = false;
      SlotRange HitRange = A.Slots;
      switch (R.Rel) {
      case HzRel::SGPRDefUse:
      case HzRel::SGPRDefExplUse:
      case HzRel::SGPRDefCarryUse:
      case HzRel::SGPRDefLaneSel:
        Hit = producerDefines(P, A.Slots, true, HitRange);
        break;
      case HzRel::VGPRDefVecUse:
      case HzRel::VGPRDefExplUse:
      case HzRel::VGPRDefSrc0:
      case HzRel::VGPRDefDPPSrc:
        Hit = producerDefines(P, A.Slots, false, HitRange);
        break;
      default:
        Hit = PR->Slots.overlaps(A.Slots);
        break;
      }
      if (!Hit)
        continue;
      Pending &= ~(1ull << I);
      if (!PredOK)
        continue;
      int W = 0;
      switch (R.Rel) {
      case HzRel::DstSrcCOverlap:
        W = PR->Slots == A.Slots ? 0 : waitsFor(R, P);
        break;
      case HzRel::DstSrcCExact:
        W = PR->Slots == A.Slots ? waitsFor(R, P) : 0;
        break;
      case HzRel::DotDstUseOtherOp:
      case HzRel::DotDstDefOtherOp:
        W = P.Opcode != C.Opcode ? waitsFor(R, P) : 0;
        break;
      case HzRel::DotDstSrcABSameOp:
        W = P.Opcode == C.Opcode ? waitsFor(R, P) : 0;
        break;
      default:
        W = waitsFor(R, P);
        break;
      }
      if (W > Need) {
        Need = W;
        Conf = HitRange;
      }
    }
    return Need;
  }
};
} // namespace

int asmevo::hazardWaitStates(const HazardRule &R, const InstrRecord &P,
                             const InstrRecord &C, SlotRange *Conflict) {
  if (!matches(R.Consumer, C))
    return 0;
  Prober Pr{R, C};
  uint64_t Pending = Pr.initial();
  SlotRange Conf;
  int W = Pending ? Pr.probe(P, Pending, Conf) : 0;
  if (Conflict)
    *Conflict = Conf;
  return W;
}

namespace {
/// Backward walk over a laid-out function for one (consumer, rule).
class CFGWalker {
public:
  CFGWalker(const InstrSeq &Seq) : Seq(Seq) {}

  void run(unsigned CIdx, const HazardRule &R, std::vector<HazardHit> &Out) {
    const InstrRecord &C = Seq.Instrs[CIdx];
    Prober Pr{R, C};
    uint64_t Pending = Pr.initial();
    if (!Pending)
      return;
    Limit = maxWaits(R);
    Best = HazardHit();
    Seen.clear();
    walk(Pr, Seq.BlockOf[CIdx], CIdx, 0, Pending);
    if (Best.Rule) {
      Best.Consumer = CIdx;
      Out.push_back(Best);
    }
  }

private:
  void walk(const Prober &Pr, unsigned B, unsigned From, int Dist,
            uint64_t Pending) {
    unsigned Begin = Seq.BlockBegin[B];
    for (unsigned J = From; J > Begin;) {
      --J;
      const InstrRecord &P = Seq.Instrs[J];
      SlotRange Conf;
      int W = Pr.probe(P, Pending, Conf);
      if (W - Dist > Best.Missing) {
        Best.Rule = &Pr.R;
        Best.Producer = J;
        Best.Missing = W - Dist;
        Best.Reg = Conf;
      }
      Dist += P.waitStates();
      if (!Pending || Dist >= Limit)
        return;
    }
    for (unsigned Pred : Seq.Preds[B]) {
      bool Skip = false;
      for (auto &S : Seen)
        if (S.Block == Pred && S.Dist <= Dist &&
            (S.Pending & Pending) == Pending)
          Skip = true;
      if (Skip)
        continue;
      Seen.push_back({Pred, Dist, Pending});
      walk(Pr, Pred, Seq.blockEnd(Pred), Dist, Pending);
    }
  }

  struct Visit {
    unsigned Block;
    int Dist;
    uint64_t Pending;
  };
  const InstrSeq &Seq;
  int Limit = 0;
  HazardHit Best;
  SmallVector<Visit, 8> Seen;
};
} // namespace

static std::vector<const HazardRule *> rulesFor(GPUGen G) {
  std::vector<const HazardRule *> Out;
  for (const HazardRule &R : hazardRules())
    if (ruleApplies(R, G))
      Out.push_back(&R);
  return Out;
}

std::vector<HazardHit> asmevo::uncached::checkHazards(const InstrSeq &Seq,
                                                      const ISAFacts &F) {
  std::vector<HazardHit> Out;
  std::vector<const HazardRule *> Rules = rulesFor(F.gen());
  CFGWalker W(Seq);
  for (unsigned I = 0; I < Seq.Instrs.size(); ++I) {
    const InstrRecord &C = Seq.Instrs[I];
    for (const HazardRule *R : Rules)
      if (matches(R->Consumer, C))
        W.run(I, *R, Out);
  }
  return Out;
}

std::vector<HazardHit> asmevo::checkHazardsAt(const InstrSeq &Seq,
                                              const ISAFacts &F,
                                              ArrayRef<unsigned> Consumers) {
  std::vector<HazardHit> Out;
  std::vector<const HazardRule *> Rules = rulesFor(F.gen());
  CFGWalker W(Seq);
  for (unsigned I : Consumers) {
    const InstrRecord &C = Seq.Instrs[I];
    for (const HazardRule *R : Rules)
      if (matches(R->Consumer, C))
        W.run(I, *R, Out);
  }
  return Out;
}

std::vector<HazardHit> asmevo::checkSoftClauses(const InstrSeq &Seq,
                                                const ISAFacts &F) {
  std::vector<HazardHit> Out;
  if (!F.xnackReplay())
    return Out;
  auto KindOf = [](const InstrRecord &I) {
    return I.F->is(ic::SMEM) ? 1 : I.F->is(ic::VMEM) ? 2 : 0;
  };
  SlotSet Defs = makeSlotSet(), Uses = makeSlotSet();
  for (unsigned B = 0; B < Seq.BlockBegin.size(); ++B) {
    int Kind = 0;
    unsigned Start = 0;
    for (unsigned I = Seq.BlockBegin[B], E = Seq.blockEnd(B); I < E; ++I) {
      const InstrRecord &M = Seq.Instrs[I];
      int K = KindOf(M);
      if (K == 0 || K != Kind) {
        Kind = K;
        Start = I;
        Defs.reset();
        Uses.reset();
        for (const RegAccess &A : M.Regs)
          addRange(A.Def ? Defs : Uses, A.Slots);
        continue;
      }
      // M continues a clause started at Start.
      bool Hazard = false;
      if (Defs.any()) {
        // LLVM starts a new clause at every store so that a replayed load
        // cannot see a replayed store's data; LDS DMA writes LDS, which no
        // VMEM load of the clause reads.
        if (M.F->MayStore && !M.F->is(ic::LDSDMA))
          Hazard = true;
        else {
          SlotSet D = Defs, U = Uses;
          for (const RegAccess &A : M.Regs)
            addRange(A.Def ? D : U, A.Slots);
          Hazard = D.anyCommon(U);
        }
      }
      if (Hazard) {
        HazardHit H;
        H.Rule = &softClauseRule();
        H.Consumer = I;
        H.Producer = Start;
        H.Missing = 1;
        Out.push_back(H);
        // The fix starts a new clause here.
        Start = I;
        Defs.reset();
        Uses.reset();
      }
      for (const RegAccess &A : M.Regs)
        addRange(A.Def ? Defs : Uses, A.Slots);
    }
  }
  return Out;
}

HazardWindow::HazardWindow(const ISAFacts &F) { Rules = rulesFor(F.gen()); }

void HazardWindow::issue(const InstrRecord &I) {
  History.push_front(I);
  // The longest rule needs 19 wait states; every instruction gives at
  // least one.
  while (History.size() > 24)
    History.pop_back();
}

std::vector<HazardHit> HazardWindow::check(const InstrRecord &C) const {
  std::vector<HazardHit> Out;
  for (const HazardRule *R : Rules) {
    if (!matches(R->Consumer, C))
      continue;
    Prober Pr{*R, C};
    uint64_t Pending = Pr.initial();
    int Dist = 0, Limit = maxWaits(*R);
    HazardHit Best;
    for (unsigned J = 0; J < History.size() && Pending && Dist < Limit; ++J) {
      SlotRange Conf;
      int W = Pr.probe(History[J], Pending, Conf);
      if (W - Dist > Best.Missing) {
        Best.Rule = R;
        Best.Producer = J + 1;
        Best.Missing = W - Dist;
        Best.Reg = Conf;
      }
      Dist += History[J].waitStates();
    }
    if (Best.Rule)
      Out.push_back(Best);
  }
  return Out;
}
