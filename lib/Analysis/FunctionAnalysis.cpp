//===- FunctionAnalysis.cpp -----------------------------------------------===//
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "asmevo/Support/PhaseTimer.h"
#include "llvm/CodeGen/MachineFunction.h"

using namespace llvm;
using namespace asmevo;

FunctionAnalysis asmevo::analyzeFunction(const LiftedModule &LM,
                                         LiftedFunction &LF, const ISAFacts &F,
                                         const AnalysisOptions &Opts) {
  PhaseScope Phase("analysis: analyzeFunction");
  FunctionAnalysis A;
  A.LF = &LF;
  if (LF.MF) {
    std::vector<const MachineBasicBlock *> BBs;
    {
      PhaseScope P("analysis: instr seq");
      A.Seq = buildInstrSeq(*LF.MF, F, &BBs);
    }
    PhaseScope P("analysis: cfg");
    A.CFG = analyzeCFG(*LF.MF, A.Seq, BBs);
  } else {
    A.FromBytes = true;
    A.Seq = buildInstrSeqFromCode(LM, LF.Range, F);
    A.CFG.NumBlocks = A.Seq.BlockBegin.size();
    for (auto &S : A.Seq.Succs)
      A.CFG.NumEdges += S.size();
  }
  if (Opts.Liveness) {
    PhaseScope P("analysis: liveness");
    A.Live = computeLiveness(A.Seq);
  }
  A.Regs = computeRegisterUse(A.Seq);
  for (HazardHit &H : checkHazards(A.Seq, F))
    (H.Rule->Advisory ? A.Advisories : A.Hazards).push_back(H);
  A.SoftClauses = checkSoftClauses(A.Seq, F);
  WaitcntOptions WO = Opts.Waitcnt;
  if (LF.MF && LF.Range.IsKernel && LF.Range.KernelIndex >= 0 &&
      size_t(LF.Range.KernelIndex) < LM.original().kernels().size()) {
    const KernelDescriptor &KD =
        LM.original().kernels()[LF.Range.KernelIndex].KD;
    A.WavePrivateLDS = proveWavePrivateLDS(*LF.MF, F, KD.workItemIDDims(),
                                           &A.WavePrivateWhyNot);
    WO.WavePrivateLDS = A.WavePrivateLDS.has_value();
  }
  A.Waits = analyzeWaitcnts(A.Seq, F, WO);
  for (const InstrRecord &I : A.Seq.Instrs) {
    A.NumNops += I.F->is(ic::Nop);
    A.NumWaitcnts += I.F->is(ic::Waitcnt);
  }
  for (const WaitSlack &W : A.Waits.Waits)
    A.SlackWaitcnts += W.hasSlack();
  return A;
}
