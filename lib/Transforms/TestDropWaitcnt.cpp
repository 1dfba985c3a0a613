//===- TestDropWaitcnt.cpp ------------------------------------------------===//
#include "TestDropWaitcnt.h"
#include "llvm/CodeGen/MachineFunction.h"

using namespace llvm;
using namespace asmevo;

Expected<bool> TestDropWaitcntPass::run(LiftedModule &LM, LiftedFunction &LF) {
  if (Done)
    return false;
  const ISAFacts &F = Facts.get(LM);
  AnalysisOptions AO;
  AO.Liveness = false;
  FunctionAnalysis A = analyzeFunction(LM, LF, F, AO);
  if (A.FromBytes)
    return false;
  SeqView V = SeqView::build(*LF.MF, F);
  if (Error E = checkSameInstructions("test-drop-waitcnt", A.Seq.Instrs.size(), V.At.size()))
    return std::move(E);
  EditableRegion Region(LF);
  for (const WaitSlack &W : A.Waits.Waits) {
    bool Needed = W.Needed.VM < WaitcntValue::MaxVM ||
                  W.Needed.Lgkm < WaitcntValue::MaxLgkm;
    MachineInstr &MI = *V.At[W.Instr];
    if (!Needed || !Region.editable(MI) || !shouldRewrite())
      continue;
    MI.eraseFromParent();
    Done = true;
    return true;
  }
  return false;
}
