//===- NopShrink.cpp ------------------------------------------------------===//
#include "NopShrink.h"
#include "llvm/CodeGen/MachineFunction.h"

using namespace llvm;
using namespace asmevo;

Expected<bool> NopShrinkPass::run(LiftedModule &LM, LiftedFunction &LF) {
  const ISAFacts &F = Facts.get(LM);
  SeqView V = SeqView::build(*LF.MF, F);
  if (Error E = checkSameInstructions("nop-shrink", V.Seq.Instrs.size(), V.At.size()))
    return std::move(E);
  if (llvm::none_of(V.Seq.Instrs,
                    [](const InstrRecord &R) { return R.F->is(ic::Nop); }))
    return false;
  EditableRegion Region(LF);
  HazardBaseline Base(V, F);
  SiteSet Before = SiteSet::of(LM, LF, F, /*Advisories=*/true);
  EditLog Log(*LF.MF);
  bool IsKernel = LF.Range.IsKernel;
  for (unsigned I = 0; I < V.At.size(); ++I) {
    MachineInstr &MI = *V.At[I];
    InstrRecord &R = V.Seq.Instrs[I];
    if (!R.F->is(ic::Nop) || Region.inPrologue(*MI.getParent()) ||
        MI.getNumOperands() == 0 || !MI.getOperand(0).isImm())
      continue;
    int64_t Imm = MI.getOperand(0).getImm();
    int Cur = Imm & 0xf;
    if (V.nearFunctionBoundary(I, IsKernel))
      continue;
    std::vector<unsigned> Cons = V.consumersAround(I);
    // Fewest wait states that leave every consumer as it was: s_nop T
    // gives T+1; -1 stands for no s_nop at all.
    int Best = Cur;
    for (int T = 0; T < Cur; ++T) {
      R.Imm = (Imm & ~0xfll) | T;
      if (Base.noWorse(V, Cons)) {
        Best = T;
        break;
      }
    }
    R.Imm = Imm;
    unsigned B = V.Seq.BlockOf[I];
    bool AloneInBlock = V.Seq.blockEnd(B) - V.Seq.BlockBegin[B] == 1;
    if (Best == 0 && !Region.pinned(MI) && !AloneInBlock) {
      if (V.tryErase(I, Base)) {
        if (shouldRewrite()) {
          Log.remove(MI);
          --I;
        } else {
          V.insert(I, B, InstrRecord::fromMachineInstr(MI, F), &MI);
        }
        continue;
      }
    }
    if (Best == Cur || !shouldRewrite())
      continue;
    {
      int64_t New = (Imm & ~0xfll) | Best;
      Log.setImm(MI, 0, New);
      R.Imm = New;
    }
  }
  if (Log.empty())
    return false;
  if (!Before.noneIntroducedBy(SiteSet::of(LM, LF, F, true))) {
    Log.undo();
    return false;
  }
  return true;
}
