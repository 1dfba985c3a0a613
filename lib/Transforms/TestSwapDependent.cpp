//===- TestSwapDependent.cpp ----------------------------------------------===//
#include "TestSwapDependent.h"
#include "llvm/CodeGen/MachineFunction.h"

using namespace llvm;
using namespace asmevo;

static bool isPlainALU(const OpcodeFacts &F) {
  return (F.is(ic::SALU) || F.is(ic::VALU)) && F.Flow == FlowKind::None &&
         !F.MayLoad && !F.MayStore &&
         !F.is(ic::Waitcnt | ic::Nop | ic::Barrier | ic::Message | ic::VMEM |
               ic::DS | ic::SMEM | ic::LDSDMA | ic::SetReg | ic::GetReg) &&
         !(F.TSFlags >> tsflag::SOPP & 1);
}

Expected<bool> TestSwapDependentPass::run(LiftedModule &LM,
                                          LiftedFunction &LF) {
  if (Done)
    return false;
  const ISAFacts &F = Facts.get(LM);
  SeqView V = SeqView::build(*LF.MF, F);
  EditableRegion Region(LF);
  // VALU pairs first: they compute data, where a stale operand shows in the
  // output; scalar pairs often compute a sign or a bound the test inputs
  // never reach.
  for (bool VectorOnly : {true, false})
  for (unsigned I = 0; I + 1 < V.At.size(); ++I) {
    if (V.Seq.BlockOf[I] != V.Seq.BlockOf[I + 1])
      continue;
    const InstrRecord &A = V.Seq.Instrs[I], &B = V.Seq.Instrs[I + 1];
    MachineInstr &MA = *V.At[I], &MB = *V.At[I + 1];
    if (VectorOnly && !(A.F->isVALU() && B.F->isVALU()))
      continue;
    if (!VectorOnly && A.F->isVALU() && B.F->isVALU())
      continue; // Asked already.
    if (!isPlainALU(*A.F) || !isPlainALU(*B.F) || !Region.editable(MA) ||
        std::next(MA.getIterator()) != MB.getIterator())
      continue;
    bool Dep = false;
    for (const RegAccess &D : A.Regs)
      if (D.Def && !D.Implicit)
        for (const RegAccess &U : B.Regs)
          if (!U.Def && !U.Implicit && U.Slots.overlaps(D.Slots))
            Dep = true;
    if (!Dep || !shouldRewrite())
      continue;
    MA.getParent()->splice(MA.getIterator(), MA.getParent(), MB.getIterator());
    Done = true;
    return true;
  }
  return false;
}
