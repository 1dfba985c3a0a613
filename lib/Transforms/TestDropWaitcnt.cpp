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
  if (V.At.size() != A.Seq.Instrs.size())
    return createStringError("test-drop-waitcnt: the analysis saw " +
                             Twine(A.Seq.Instrs.size()) +
                             " instructions, the function has " +
                             Twine(V.At.size()));
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
