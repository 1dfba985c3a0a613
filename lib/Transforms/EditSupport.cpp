//===- EditSupport.cpp ----------------------------------------------------===//
#include "EditSupport.h"
#include "llvm/CodeGen/MachineFunction.h"
#include <deque>

using namespace llvm;
using namespace asmevo;

SmallPtrSet<MachineBasicBlock *, 8>
asmevo::fixedBlocks(MachineFunction &MF, const LiftedFunction &LF) {
  SmallPtrSet<MachineBasicBlock *, 8> Pinned;
  if (MF.empty())
    return Pinned;
  Pinned.insert(&MF.front());
  if (LF.PreloadEntry)
    for (MachineBasicBlock &MBB : MF) {
      Pinned.insert(&MBB);
      if (&MBB == LF.PreloadEntry)
        break;
    }
  return Pinned;
}

SeqView SeqView::build(MachineFunction &MF, const ISAFacts &F) {
  SeqView V;
  V.Seq = buildInstrSeq(MF, F);
  for (MachineBasicBlock &MBB : MF)
    for (MachineInstr &MI : MBB)
      if (!MI.isMetaInstruction())
        V.At.push_back(&MI);
  return V;
}

void SeqView::erase(unsigned I) {
  unsigned B = Seq.BlockOf[I];
  Seq.Instrs.erase(Seq.Instrs.begin() + I);
  Seq.BlockOf.erase(Seq.BlockOf.begin() + I);
  At.erase(At.begin() + I);
  for (unsigned K = B + 1; K < Seq.BlockBegin.size(); ++K)
    --Seq.BlockBegin[K];
}

void SeqView::insert(unsigned I, unsigned B, InstrRecord R, MachineInstr *MI) {
  Seq.Instrs.insert(Seq.Instrs.begin() + I, std::move(R));
  Seq.BlockOf.insert(Seq.BlockOf.begin() + I, B);
  At.insert(At.begin() + I, MI);
  for (unsigned K = B + 1; K < Seq.BlockBegin.size(); ++K)
    ++Seq.BlockBegin[K];
}

/// SMEM or VMEM: the instruction kinds that form soft clauses.
static int clauseKind(const InstrRecord &R) {
  return R.F->is(ic::SMEM) ? 1 : R.F->is(ic::VMEM) ? 2 : 0;
}

bool SeqView::tryErase(unsigned I, const HazardBaseline &Base) {
  // An instruction between two memory instructions of one kind may be
  // what breaks their soft clause (hand-written code puts an s_nop there
  // for that); without it they would form one.
  unsigned Blk = Seq.BlockOf[I];
  if (I > Seq.BlockBegin[Blk] && I + 1 < Seq.blockEnd(Blk)) {
    int K = clauseKind(Seq.Instrs[I - 1]);
    if (K && K == clauseKind(Seq.Instrs[I + 1]))
      return false;
  }
  std::vector<unsigned> Cons;
  for (unsigned C : consumersAround(I))
    if (C != I)
      Cons.push_back(C > I ? C - 1 : C);
  unsigned B = Seq.BlockOf[I];
  InstrRecord R = Seq.Instrs[I];
  MachineInstr *MI = At[I];
  erase(I);
  if (Base.noWorse(*this, Cons))
    return true;
  insert(I, B, std::move(R), MI);
  return false;
}

void SeqView::moveDown(unsigned From, unsigned To) {
  assert(To > From && Seq.BlockOf[From] == Seq.BlockOf[To - 1]);
  std::rotate(Seq.Instrs.begin() + From, Seq.Instrs.begin() + From + 1,
              Seq.Instrs.begin() + To);
  std::rotate(At.begin() + From, At.begin() + From + 1, At.begin() + To);
}

std::vector<unsigned> SeqView::consumersAround(unsigned I) const {
  std::vector<unsigned> Out;
  std::vector<char> Taken(Seq.Instrs.size(), 0);
  std::vector<int> BestDist(Seq.BlockBegin.size(), INT32_MAX);
  // (block, first index to look at, wait states already between).
  std::deque<std::tuple<unsigned, unsigned, int>> Work;
  Work.emplace_back(Seq.BlockOf[I], I, 0);
  const int Window = MaxHazardWindow;
  while (!Work.empty()) {
    auto [B, From, Dist] = Work.front();
    Work.pop_front();
    unsigned End = Seq.blockEnd(B);
    unsigned J = From;
    for (; J < End && Dist < Window; ++J) {
      if (!Taken[J]) {
        Taken[J] = 1;
        Out.push_back(J);
      }
      Dist += Seq.Instrs[J].waitStates();
    }
    if (J < End || Dist >= Window)
      continue;
    for (unsigned S : Seq.Succs[B])
      if (Dist < BestDist[S]) {
        BestDist[S] = Dist;
        Work.emplace_back(S, Seq.BlockBegin[S], Dist);
      }
  }
  llvm::sort(Out);
  return Out;
}

bool SeqView::nearFunctionBoundary(unsigned I, bool IsKernel) const {
  const int Window = MaxHazardWindow;
  auto LeavesFunction = [](const InstrRecord &R) {
    return R.F->Flow == FlowKind::Call || R.F->Flow == FlowKind::Return;
  };
  // Forward: does the code after I leave the function within the window?
  {
    std::vector<int> Best(Seq.BlockBegin.size(), INT32_MAX);
    std::deque<std::tuple<unsigned, unsigned, int>> Work;
    Work.emplace_back(Seq.BlockOf[I], I, 0);
    while (!Work.empty()) {
      auto [B, From, Dist] = Work.front();
      Work.pop_front();
      unsigned End = Seq.blockEnd(B), J = From;
      for (; J < End && Dist < Window; ++J) {
        if (LeavesFunction(Seq.Instrs[J]))
          return true;
        Dist += Seq.Instrs[J].waitStates();
      }
      if (J < End || Dist >= Window)
        continue;
      if (Seq.Succs[B].empty() && J == End && End > Seq.BlockBegin[B] &&
          Seq.Instrs[End - 1].F->Flow == FlowKind::None)
        return true; // Falls off the end of what was lifted.
      for (unsigned S : Seq.Succs[B])
        if (Dist < Best[S]) {
          Best[S] = Dist;
          Work.emplace_back(S, Seq.BlockBegin[S], Dist);
        }
    }
  }
  // Backward: was code outside the function issued just before I?
  std::vector<int> Best(Seq.BlockBegin.size(), INT32_MAX);
  std::deque<std::tuple<unsigned, unsigned, int>> Work; // block, end, dist
  Work.emplace_back(Seq.BlockOf[I], I, 0);
  while (!Work.empty()) {
    auto [B, To, Dist] = Work.front();
    Work.pop_front();
    unsigned Begin = Seq.BlockBegin[B], J = To;
    for (; J > Begin && Dist < Window;) {
      --J;
      if (Seq.Instrs[J].F->Flow == FlowKind::Call)
        return true;
      Dist += Seq.Instrs[J].waitStates();
    }
    if (J > Begin || Dist >= Window)
      continue;
    if (B == 0 && !IsKernel)
      return true;
    for (unsigned P : Seq.Preds[B])
      if (Dist < Best[P]) {
        Best[P] = Dist;
        Work.emplace_back(P, Seq.blockEnd(P), Dist);
      }
  }
  return false;
}

bool asmevo::isDstSelProducer(const MachineInstr &MI, const OpcodeFacts &F) {
  if (!F.isLegacyVALU())
    return false;
  if (F.is(ic::SDWA) || (F.TSFlags >> tsflag::VOP3P & 1))
    return true;
  if (!(F.TSFlags >> tsflag::VOP3 & 1))
    return false;
  // VOP3 with modifiers: src0_modifiers follows the defs; bit 3 is
  // DST_OP_SEL (SISrcMods).
  unsigned Idx = MI.getDesc().getNumDefs();
  return Idx < MI.getNumExplicitOperands() && MI.getOperand(Idx).isImm() &&
         (MI.getOperand(Idx).getImm() & 8) &&
         Idx + 1 < MI.getNumExplicitOperands() &&
         MI.getOperand(Idx + 1).isReg();
}

std::vector<const MachineInstr *>
HazardBaseline::dstSelHits(const SeqView &V, ArrayRef<unsigned> Consumers) const {
  std::vector<const MachineInstr *> Out;
  if (!F.isGFX940Plus())
    return Out;
  const InstrSeq &S = V.Seq;
  auto Hit = [&](unsigned P, const InstrRecord &C) {
    const InstrRecord &PR = S.Instrs[P];
    if (!isDstSelProducer(*V.At[P], *PR.F))
      return false;
    for (const RegAccess &D : PR.Regs)
      if (D.Def && isVectorSlot(D.Slots.First) && C.reads(D.Slots))
        return true;
    return false;
  };
  for (unsigned I : Consumers) {
    const InstrRecord &C = S.Instrs[I];
    if (!C.F->isVALU())
      continue;
    unsigned B = S.BlockOf[I];
    bool H = false;
    if (I > S.BlockBegin[B])
      H = Hit(I - 1, C);
    else
      for (unsigned P : S.Preds[B]) {
        // The nearest instruction on that path (empty blocks passed).
        unsigned Q = P;
        SmallVector<unsigned, 4> Seen;
        while (S.blockEnd(Q) == S.BlockBegin[Q] && S.Preds[Q].size() == 1 &&
               !llvm::is_contained(Seen, Q)) {
          Seen.push_back(Q);
          Q = S.Preds[Q][0];
        }
        if (S.blockEnd(Q) > S.BlockBegin[Q] && Hit(S.blockEnd(Q) - 1, C))
          H = true;
      }
    if (H)
      Out.push_back(V.At[I]);
  }
  return Out;
}

HazardBaseline::HazardBaseline(const SeqView &V, const ISAFacts &F) : F(F) {
  for (const HazardHit &H : checkHazards(V.Seq, F)) {
    int &M = Missing[{V.At[H.Consumer], H.Rule}];
    M = std::max(M, H.Missing);
  }
  std::vector<unsigned> All(V.At.size());
  for (unsigned I = 0; I < All.size(); ++I)
    All[I] = I;
  for (const MachineInstr *MI : dstSelHits(V, All))
    DstSel.insert(MI);
}

bool HazardBaseline::noWorse(const SeqView &V,
                             ArrayRef<unsigned> Consumers) const {
  for (const HazardHit &H : checkHazardsAt(V.Seq, F, Consumers)) {
    auto It = Missing.find({V.At[H.Consumer], H.Rule});
    if (It == Missing.end() || H.Missing > It->second)
      return false;
  }
  for (const MachineInstr *MI : dstSelHits(V, Consumers))
    if (!DstSel.count(MI))
      return false;
  return true;
}

static MachineInstr *nextOf(MachineInstr &MI) {
  auto It = std::next(MI.getIterator());
  return It == MI.getParent()->end() ? nullptr : &*It;
}

void EditLog::setImm(MachineInstr &MI, unsigned OpIdx, int64_t V) {
  Log.push_back({Rec::Imm, &MI, OpIdx, MI.getOperand(OpIdx).getImm(),
                 nullptr, nullptr});
  MI.getOperand(OpIdx).setImm(V);
}

void EditLog::moveBefore(MachineInstr &MI, MachineBasicBlock::iterator Pos) {
  MachineBasicBlock *MBB = MI.getParent();
  Log.push_back({Rec::Move, &MI, 0, 0, MBB, nextOf(MI)});
  MBB->splice(Pos, MBB, MI.getIterator());
}

void EditLog::remove(MachineInstr &MI) {
  MachineBasicBlock *MBB = MI.getParent();
  Log.push_back({Rec::Remove, &MI, 0, 0, MBB, nextOf(MI)});
  MI.removeFromParent();
}

void EditLog::swapWithNext(MachineInstr &MI) {
  MachineInstr *N = nextOf(MI);
  assert(N && "no instruction to swap with");
  moveBefore(*N, MI.getIterator());
}

void EditLog::undo() {
  for (auto It = Log.rbegin(); It != Log.rend(); ++It) {
    Rec &R = *It;
    switch (R.K) {
    case Rec::Imm:
      R.MI->getOperand(R.OpIdx).setImm(R.OldImm);
      break;
    case Rec::Move:
      R.MBB->splice(R.Next ? R.Next->getIterator() : R.MBB->end(),
                    R.MI->getParent(), R.MI->getIterator());
      break;
    case Rec::Remove:
      R.MBB->insert(R.Next ? R.Next->getIterator() : R.MBB->end(), R.MI);
      break;
    }
  }
  Log.clear();
}

void EditLog::commit() {
  for (Rec &R : Log)
    if (R.K == Rec::Remove)
      MF.deleteMachineInstr(R.MI);
  Log.clear();
}

EditableRegion::EditableRegion(const LiftedFunction &LF) {
  MachineFunction &MF = *LF.MF;
  if (LF.PreloadEntry)
    for (MachineBasicBlock &MBB : MF) {
      if (&MBB == LF.PreloadEntry)
        break;
      Prologue.insert(&MBB);
    }
  auto PinFirst = [&](MachineBasicBlock *MBB) {
    if (!MBB)
      return;
    for (MachineInstr &MI : *MBB)
      if (!MI.isMetaInstruction()) {
        Pinned.insert(&MI);
        return;
      }
  };
  if (!MF.empty())
    PinFirst(&MF.front());
  PinFirst(LF.PreloadEntry);
}

bool asmevo::hasOnlyRegImmOperands(const MachineInstr &MI) {
  for (const MachineOperand &MO : MI.operands())
    if (!MO.isReg() && !MO.isImm())
      return false;
  return true;
}

namespace asmevo {
Error checkSameInstructions(StringRef Pass, size_t Analysed,
                            size_t InFunction) {
  if (Analysed == InFunction)
    return Error::success();
  return createStringError(Pass + ": the analysis saw " + Twine(Analysed) +
                           " instructions, the function has " +
                           Twine(InFunction));
}

} // namespace asmevo
