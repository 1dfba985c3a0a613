//===- StaticCost.cpp -----------------------------------------------------===//
#include "asmevo/Rewrite/StaticCost.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "asmevo/Analysis/ISAFacts.h"
#include "asmevo/Timing/Config.h"
#include <cmath>

using namespace llvm;

namespace asmevo {

static double issueCycles(const InstrRecord &R, const timing::TimingConfig &C) {
  const OpcodeFacts &F = R.facts();
  if (F.Classes & ic::Nop)
    return (R.Imm + 1) * C.NopCyclesPerWaitState;
  if (F.Classes & ic::MFMA)
    return R.Passes * C.MfmaCyclesPerPass;
  if (F.Classes & ic::Trans)
    return C.TransCycles;
  if (F.Classes & ic::VALU)
    return C.ValuCycles;
  if (F.Classes & ic::Waitcnt)
    return 0;
  return 1;
}

std::map<std::string, double> staticCost(LiftedModule &LM,
                                         const timing::TimingConfig &C,
                                         const std::set<std::string> *Only) {
  std::map<std::string, double> Out;
  ISAFacts Facts(LM.target());
  for (LiftedFunction &LF : LM.functions()) {
    // Patch-only functions are costed too: under --trust-static their
    // edits are judged by this like any other.
    MachineFunction *MF = LF.Simple ? LF.MF : LF.PatchMF;
    if (!MF || (Only && !Only->count(LF.Range.Name)))
      continue;
    // The sequence and its loops are all the cost reads (not the hazard,
    // waitcnt or liveness results analyzeFunction would add).
    struct {
      InstrSeq Seq;
      CFGSummary CFG;
    } A;
    std::vector<const MachineBasicBlock *> BBs;
    A.Seq = buildInstrSeq(*MF, Facts, &BBs);
    A.CFG = analyzeCFG(*MF, A.Seq, BBs);
    // Loop depth per block, assuming each loop's blocks are laid out from
    // its header on (true of what compilers emit; an approximation for
    // hand-written layouts).
    std::vector<unsigned> Depth(A.Seq.BlockBegin.size(), 0);
    for (const LoopSummary &L : A.CFG.Loops)
      for (unsigned B = L.Header; B < Depth.size() && B < L.Header + L.NumBlocks;
           ++B)
        Depth[B] = std::max(Depth[B], L.Depth);
    double Cost = 0;
    for (unsigned I = 0; I < A.Seq.Instrs.size(); ++I) {
      unsigned B = I < A.Seq.BlockOf.size() ? A.Seq.BlockOf[I] : 0;
      Cost += issueCycles(A.Seq.Instrs[I], C) *
              std::pow(8.0, B < Depth.size() ? Depth[B] : 0);
    }
    Out[LF.Range.Name] = Cost;
  }
  return Out;
}

} // namespace asmevo
