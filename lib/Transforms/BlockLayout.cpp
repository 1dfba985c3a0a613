//===- BlockLayout.cpp - Fall-through straightening -----------------------===//
#include "BlockLayout.h"
#include "ViolationSites.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/CodeGen/MachineFunction.h"

using namespace llvm;
using namespace asmevo;

namespace {

class Layout {
public:
  Layout(asmevo::Pass &P, LiftedModule &LM, LiftedFunction &LF,
         const ISAFacts &F)
      : P(P), LM(LM), LF(LF), MF(*LF.MF), F(F) {}
  bool run();

private:
  FlowKind flowOf(const MachineInstr &MI) const {
    return F.get(MI.getOpcode()).Flow;
  }
  MachineInstr *lastInstr(MachineBasicBlock &MBB) const {
    for (auto It = MBB.rbegin(); It != MBB.rend(); ++It)
      if (!It->isMetaInstruction())
        return &*It;
    return nullptr;
  }
  bool endsUnconditionally(MachineBasicBlock &MBB) const {
    MachineInstr *L = lastInstr(MBB);
    if (!L)
      return false;
    FlowKind K = flowOf(*L);
    return K == FlowKind::Branch || K == FlowKind::Return ||
           K == FlowKind::EndProgram;
  }
  MachineBasicBlock *branchTarget(MachineInstr &MI) const {
    if (MI.getNumOperands() && MI.getOperand(0).isMBB())
      return MI.getOperand(0).getMBB();
    return nullptr;
  }
  /// Whether the instructions of \p Tail (ending just before a removed
  /// branch) followed by those of \p Next need wait states or break a soft
  /// clause without the branch between them that they do not with it.
  bool junctionSafe(MachineBasicBlock &Tail, MachineInstr &Br,
                    MachineBasicBlock &Next);
  void eraseBranch(MachineInstr *MI) {
    Removed.push_back({MI->getParent(), MI});
    MI->removeFromParent();
  }
  void revert() {
    for (auto It = Removed.rbegin(); It != Removed.rend(); ++It)
      It->first->insert(It->first->end(), It->second);
    Removed.clear();
    for (MachineBasicBlock *B : OrigOrder)
      B->moveAfter(&MF.back());
  }

  asmevo::Pass &P;
  LiftedModule &LM;
  LiftedFunction &LF;
  MachineFunction &MF;
  const ISAFacts &F;
  std::vector<MachineBasicBlock *> OrigOrder;
  std::vector<std::pair<MachineBasicBlock *, MachineInstr *>> Removed;
  SmallPtrSet<MachineBasicBlock *, 8> Pinned;
};

bool Layout::junctionSafe(MachineBasicBlock &Tail, MachineInstr &Br,
                          MachineBasicBlock &Next) {
  std::vector<InstrRecord> Before;
  for (MachineInstr &MI : Tail)
    if (&MI != &Br && !MI.isMetaInstruction())
      Before.push_back(InstrRecord::fromMachineInstr(MI, F));
  std::vector<InstrRecord> After;
  for (MachineInstr &MI : Next) {
    if (MI.isMetaInstruction())
      continue;
    After.push_back(InstrRecord::fromMachineInstr(MI, F));
    if (After.size() >= 24)
      break;
  }
  if (After.empty())
    return false;
  // Soft clause across the junction.
  auto Kind = [](const InstrRecord &R) {
    return R.F->is(ic::SMEM) ? 1 : R.F->is(ic::VMEM) ? 2 : 0;
  };
  if (!Before.empty() && Kind(Before.back()) &&
      Kind(Before.back()) == Kind(After.front()))
    return false;
  InstrRecord BrRec = InstrRecord::fromMachineInstr(Br, F);
  auto Missing = [&](bool WithBranch) {
    HazardWindow HW(F);
    size_t From = Before.size() > 24 ? Before.size() - 24 : 0;
    for (size_t I = From; I < Before.size(); ++I)
      HW.issue(Before[I]);
    if (WithBranch)
      HW.issue(BrRec);
    std::vector<int> M;
    for (const InstrRecord &R : After) {
      int X = 0;
      for (const HazardHit &H : HW.check(R))
        X = std::max(X, H.Missing);
      M.push_back(X);
      HW.issue(R);
    }
    return M;
  };
  std::vector<int> With = Missing(true), Without = Missing(false);
  for (size_t I = 0; I < With.size(); ++I)
    if (Without[I] > With[I])
      return false;
  return true;
}

bool Layout::run() {
  for (MachineBasicBlock &MBB : MF)
    OrigOrder.push_back(&MBB);
  if (OrigOrder.empty())
    return false;
  // The entry, the preload entry and the prologue before it stay put.
  Pinned.insert(OrigOrder.front());
  if (LF.PreloadEntry) {
    Pinned.insert(LF.PreloadEntry);
    for (MachineBasicBlock *B : OrigOrder) {
      if (B == LF.PreloadEntry)
        break;
      Pinned.insert(B);
    }
  }
  auto InPrologue = [&](MachineBasicBlock *B) {
    return Pinned.count(B) && B != OrigOrder.front() && B != LF.PreloadEntry;
  };
  bool PrologueKernel = LF.PreloadEntry != nullptr;

  AnalysisOptions AO;
  AO.Liveness = false;
  FunctionAnalysis A0 = analyzeFunction(LM, LF, F, AO);
  if (A0.FromBytes)
    return false;

  bool Changed = false;
  for (unsigned Iter = 0; Iter < 4; ++Iter) {
    bool Any = false;
    std::vector<MachineBasicBlock *> Blocks;
    for (MachineBasicBlock &MBB : MF)
      Blocks.push_back(&MBB);
    for (MachineBasicBlock *A : Blocks) {
      // The entry block of a preload kernel is the prologue's first.
      if (InPrologue(A) || (PrologueKernel && A == OrigOrder.front()))
        continue;
      MachineInstr *Br = lastInstr(*A);
      if (!Br || Br == &*A->begin())
        continue; // removing it would leave the block empty
      FlowKind K = flowOf(*Br);
      if (K != FlowKind::Branch && K != FlowKind::CondBranch)
        continue;
      MachineBasicBlock *T = branchTarget(*Br);
      if (!T || T == A)
        continue;
      MachineBasicBlock *Next = A->getNextNode();
      if (T == Next) {
        // A branch to the next block, taken or not, goes where falling
        // through goes.
        if (!junctionSafe(*A, *Br, *T) || !P.shouldRewrite())
          continue;
        eraseBranch(Br);
        Any = Changed = true;
        continue;
      }
      if (K != FlowKind::Branch || Pinned.count(T) || T->pred_size() != 1 ||
          *T->pred_begin() != A)
        continue;
      // T and the blocks it falls through to move together.
      std::vector<MachineBasicBlock *> Chain{T};
      bool OK = true;
      while (OK && !endsUnconditionally(*Chain.back())) {
        MachineBasicBlock *N = Chain.back()->getNextNode();
        if (!N || N == A || Pinned.count(N) || !lastInstr(*Chain.back()))
          OK = false;
        else
          Chain.push_back(N);
      }
      if (!OK || llvm::is_contained(Chain, A))
        continue;
      if (!junctionSafe(*A, *Br, *T) || !P.shouldRewrite())
        continue;
      MachineBasicBlock *After = A;
      for (MachineBasicBlock *C : Chain) {
        C->moveAfter(After);
        After = C;
      }
      eraseBranch(Br);
      Any = Changed = true;
      break; // the layout changed under the walk: start again
    }
    if (!Any)
      break;
  }
  if (!Changed)
    return false;
  // Straightening moves producers and consumers across block edges: a
  // violation site the function did not have undoes the whole layout.
  if (!SiteSet::of(A0, /*Advisories=*/true)
           .noneIntroducedBy(SiteSet::of(LM, LF, F, /*Advisories=*/true))) {
    revert();
    return false;
  }
  for (auto &[B, MI] : Removed)
    MF.deleteMachineInstr(MI);
  Removed.clear();
  return true;
}

} // namespace

Expected<bool> BlockLayoutPass::run(LiftedModule &LM, LiftedFunction &LF) {
  if (FactsFor != &LM) {
    Facts = std::make_unique<ISAFacts>(LM.target());
    FactsFor = &LM;
  }
  Layout L(*this, LM, LF, *Facts);
  return L.run();
}
