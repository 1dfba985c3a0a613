//===- RelaxWaitcnt.cpp ---------------------------------------------------===//
#include "RelaxWaitcnt.h"
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
  for (MachineBasicBlock &MBB : *LF.MF)
    for (MachineInstr &MI : MBB)
      if (!MI.isMetaInstruction())
        At.push_back(&MI);
  if (At.size() != A.Seq.Instrs.size())
    return createStringError("relax-waitcnt: the analysis saw " +
                             Twine(A.Seq.Instrs.size()) +
                             " instructions, the function has " +
                             Twine(At.size()));
  // The slack analysis follows each operation to the uses that read what
  // it wrote. Places that need memory ordered without reading it (a
  // barrier publishing to other waves, an atomic that may be a release,
  // LDS DMA read by DS instructions) only keep the wait that completed the
  // newest operation, not waits that completed part of what was in
  // flight. Until they are followed as precisely, a counter is left as
  // written in functions that have such places.
  bool OrdersVM = false, OrdersLgkm = false;
  for (const InstrRecord &I : A.Seq.Instrs) {
    const OpcodeFacts &OF = *I.F;
    if (OF.is(ic::Barrier)) {
      OrdersVM = true;
      OrdersLgkm |= !A.WavePrivateLDS;
    }
    OrdersVM |= OF.is(ic::LDSDMA | ic::CacheCtl) ||
                (OF.is(ic::Atomic) && (OF.Counters & cnt::VM));
  }
  bool Changed = false;
  for (const WaitSlack &W : A.Waits.Waits) {
    if (!W.hasSlack())
      continue;
    WaitcntValue New = W.Needed;
    // Compute kernels export nothing: an expcnt change buys no time.
    New.Exp = W.Actual.Exp;
    if (OrdersVM)
      New.VM = W.Actual.VM;
    if (OrdersLgkm)
      New.Lgkm = W.Actual.Lgkm;
    MachineInstr &MI = *At[W.Instr];
    if (MI.getNumOperands() == 0 || !MI.getOperand(0).isImm() ||
        New.encode() == W.Actual.encode())
      continue;
    MI.getOperand(0).setImm(New.encode());
    Changed = true;
  }
  return Changed;
}
