//===- StaticCost.h - One wave through a block, without a trace -*- C++ -*-===//
//
// A static per-block estimate from the cycle model's parameters, for passes
// that must choose between instruction orders when there is no launch to
// trace (the gate still times the result with the real model). One wave on
// its own SIMD, in order: it may issue once per SIMD visit (SIMDsPerCU
// cycles), waits for VALU/SALU/MFMA results and pipes as CUModel does, and
// s_waitcnt waits for the operations the block itself issued, each taking a
// fixed latency (VMEM: the L2 latency; LDS and scalar loads: theirs).
// Operations in flight at the block's start are unknown and not modelled.
// It is a tie-breaker between orders of the same instructions, not a
// prediction of time.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_TIMING_STATICCOST_H
#define ASMEVO_TIMING_STATICCOST_H

#include "asmevo/Analysis/InstrRecord.h"
#include "asmevo/Timing/Config.h"
#include <deque>
#include <vector>

namespace asmevo {
namespace timing {

class StaticWave {
public:
  explicit StaticWave(const TimingConfig &C);
  /// Earliest cycle \p R could issue now.
  double earliest(const InstrRecord &R) const;
  /// Issues \p R at earliest(R); returns that cycle.
  double issue(const InstrRecord &R);
  /// Cycle the last instruction issued.
  double now() const { return Now; }
  /// Latest completion of any memory operation issued so far.
  double memDone() const { return MemDone; }
  /// Latency of \p R's result for a dependent instruction (list-scheduling
  /// priority): memory loads their level's latency, MFMA its passes.
  double resultLatency(const InstrRecord &R) const;

private:
  double pipeCycles(const InstrRecord &R) const;
  const TimingConfig &C;
  double Now = 0, ReadyAt = 0, ValuFree = 0, MfmaFree = 0;
  double LastVm = 0, LastLds = 0, MemDone = 0;
  std::vector<double> Reg;
  std::deque<double> Vm;
  std::vector<double> Lgkm;
};

struct StaticCost {
  double Cycles = 0;  ///< Cycle after the last instruction issued.
  double MemDone = 0; ///< Last memory operation's completion.
  bool betterThan(const StaticCost &O) const {
    return Cycles < O.Cycles - 0.5 ||
           (Cycles <= O.Cycles + 0.5 && MemDone < O.MemDone - 0.5);
  }
};

StaticCost staticCost(const TimingConfig &C,
                      llvm::ArrayRef<const InstrRecord *> Seq);

} // namespace timing
} // namespace asmevo

#endif
