//===- BlockThroughput.cpp - Static per-block throughput ------------------===//
#include "asmevo/Rewrite/BlockThroughput.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "asmevo/Analysis/ISAFacts.h"
#include "asmevo/Timing/Config.h"
#include "asmevo/Timing/Model.h"
#include "asmevo/Timing/StaticCost.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

namespace {

struct BlockFigure {
  std::string Function;
  unsigned Block = 0;
  std::vector<uint64_t> Addrs; ///< The body's instructions (original).
  double CyclesPerIter = 0;
  unsigned Memory = 0, Waitcnt = 0, Nop = 0, Barrier = 0, Mfma = 0;
};

bool isTerminator(const OpcodeFacts &F) {
  return F.is(ic::Branch) || F.is(ic::EndPgm) || F.Name.starts_with("S_SETPC") ||
         F.Name.starts_with("S_SWAPPC");
}

/// Steady-state cycles per iteration of \p Body repeated: the block issued
/// 2N times, the last N iterations' cycles over N (the first N fill the
/// pipes and settle the dependences that cross iterations).
double perIteration(const timing::TimingConfig &C,
                    ArrayRef<const InstrRecord *> Body) {
  const unsigned N = 8;
  timing::StaticWave W(C);
  double AtN = 0;
  for (unsigned It = 0; It < 2 * N; ++It) {
    for (const InstrRecord *R : Body)
      W.issue(*R);
    if (It + 1 == N)
      AtN = W.now();
  }
  return (W.now() - AtN) / N;
}

} // namespace

Error asmevo::printBlockThroughput(raw_ostream &OS, LiftedModule &LM,
                                   bool JSON) {
  timing::TimingConfig C = timing::TimingConfig::mi300x();
  ISAFacts Facts(LM.target());
  std::vector<BlockFigure> Out;
  for (LiftedFunction &LF : LM.functions()) {
    if (!LF.Simple || !LF.MF)
      continue;
    InstrSeq Seq = buildInstrSeq(*LF.MF, Facts);
    for (unsigned B = 0; B < Seq.BlockBegin.size(); ++B) {
      BlockFigure BF;
      BF.Function = LF.Range.Name;
      BF.Block = B;
      std::vector<const InstrRecord *> Body;
      for (unsigned I = Seq.BlockBegin[B]; I < Seq.blockEnd(B); ++I) {
        const InstrRecord &R = Seq.Instrs[I];
        if (!R.F || isTerminator(R.facts()))
          continue;
        const OpcodeFacts &F = R.facts();
        BF.Memory += F.is(ic::VMEM | ic::DS | ic::SMEM);
        BF.Waitcnt += F.is(ic::Waitcnt);
        BF.Nop += F.is(ic::Nop);
        BF.Barrier += F.is(ic::Barrier);
        BF.Mfma += F.is(ic::MFMA);
        Body.push_back(&R);
        BF.Addrs.push_back(R.Addr);
      }
      if (Body.empty())
        continue;
      BF.CyclesPerIter = perIteration(C, Body);
      Out.push_back(std::move(BF));
    }
  }
  if (JSON) {
    json::OStream J(OS, 2);
    J.object([&] {
      J.attribute("source", timing::ModelNote);
      J.attribute("what", "static cycles per iteration of each block's body "
                          "repeated, one wave alone on its SIMD");
      J.attributeArray("blocks", [&] {
        for (const BlockFigure &BF : Out)
          J.object([&] {
            J.attribute("function", BF.Function);
            J.attribute("block", BF.Block);
            J.attribute("instructions", int64_t(BF.Addrs.size()));
            J.attributeArray("addrs", [&] {
              for (uint64_t A : BF.Addrs)
                J.value(int64_t(A));
            });
            J.attribute("cycles_per_iteration", BF.CyclesPerIter);
            J.attribute("memory", BF.Memory);
            J.attribute("waitcnt", BF.Waitcnt);
            J.attribute("nop", BF.Nop);
            J.attribute("barrier", BF.Barrier);
            J.attribute("mfma", BF.Mfma);
          });
      });
    });
    OS << "\n";
    return Error::success();
  }
  OS << "block throughput: " << timing::ModelNote
     << ", static (one wave alone, each block's body repeated; memory at "
        "fixed latencies)\n";
  for (const BlockFigure &BF : Out) {
    OS << "  " << BF.Function << " block " << BF.Block
       << format(" @0x%llx: %zu instructions, %.1f cycles/iteration",
                 (unsigned long long)(BF.Addrs.empty() ? 0 : BF.Addrs[0]),
                 BF.Addrs.size(), BF.CyclesPerIter);
    if (BF.Memory || BF.Waitcnt)
      OS << " (memory: not a prediction)";
    OS << "\n";
  }
  return Error::success();
}
