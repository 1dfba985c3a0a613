//===- RelaxWaitcnt.cpp ---------------------------------------------------===//
#include "RelaxWaitcnt.h"
#include "EditSupport.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "llvm/CodeGen/MachineFunction.h"

using namespace llvm;
using namespace asmevo;

Expected<bool> RelaxWaitcntPass::run(LiftedModule &LM, LiftedFunction &LF) {
  if (FactsFor != &LM) {
    Facts = std::make_unique<ISAFacts>(LM.target());
    FactsFor = &LM;
  }
  AnalysisOptions AO;
  AO.Liveness = false;
  FunctionAnalysis A = analyzeFunction(LM, LF, *Facts, AO);
  if (A.FromBytes || !A.Waits.Violations.empty())
    return false;
  // The analysis numbers instructions as buildInstrSeq lays them out.
  std::vector<MachineInstr *> At;
  // A kernel-argument preload prologue is left as it is: the emulator
  // enters at the preload entry, so an edit there could never be judged by
  // a run (firmware that preloads skips it, older firmware runs it).
  std::vector<bool> InPrologue;
  bool Prologue = LF.PreloadEntry != nullptr;
  for (MachineBasicBlock &MBB : *LF.MF) {
    if (&MBB == LF.PreloadEntry)
      Prologue = false;
    for (MachineInstr &MI : MBB)
      if (!MI.isMetaInstruction()) {
        At.push_back(&MI);
        InPrologue.push_back(Prologue);
      }
  }
  if (Error E = checkSameInstructions("relax-waitcnt", A.Seq.Instrs.size(), At.size()))
    return std::move(E);
  bool Changed = false;
  for (const WaitSlack &W : A.Waits.Waits) {
    if (!W.hasSlack() || InPrologue[W.Instr])
      continue;
    WaitcntValue New = W.Needed;
    // Compute kernels export nothing: an expcnt change buys no time.
    New.Exp = W.Actual.Exp;
    MachineInstr &MI = *At[W.Instr];
    if (MI.getNumOperands() == 0 || !MI.getOperand(0).isImm() ||
        New.encode() == W.Actual.encode())
      continue;
    if (!shouldRewrite())
      continue;
    MI.getOperand(0).setImm(New.encode());
    Changed = true;
  }
  return Changed;
}
