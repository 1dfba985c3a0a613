//===- Timing.h - Timing a launch spec with the cycle model -----*- C++ -*-===//
//
// The library call behind `asmevo-verify time` (and what the optimizer
// will use): emulate the spec's launches once with a TraceCollector
// (only the sampled workgroups run), then simulate the traces under one or
// many parameter sets. A K0/K1 comparison simulates both under the same
// sets; K1 is "robustly faster" only when it is at least 1% faster under
// every one of them.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_TIMING_TIMING_H
#define ASMEVO_TIMING_TIMING_H

#include "asmevo/Timing/Model.h"
#include "asmevo/Emulator/LaunchSession.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <vector>

namespace asmevo {
namespace emu {
class LaunchSession;
}
namespace timing {

struct TracedRun {
  std::vector<LaunchTrace> Launches;
  std::unique_ptr<TraceCollector> Collector; ///< Owns the traces' storage.
  std::vector<std::string> Warnings;
  /// CPU seconds the emulator spent on the traced launches (with the sink).
  double EmulationSeconds = 0;
};

/// Runs every launch of \p S in the emulator (the modelled CU's workgroups
/// only, at most \p MaxSample of them per launch) and keeps their traces.
/// Fails when the emulation reports a fatal violation: a launch that does
/// not run correctly has no time.
llvm::Expected<TracedRun> traceSession(emu::LaunchSession &S,
                                       const TimingConfig &C,
                                       unsigned MaxSample);

/// A code object's traced launches with everything they point into.
struct TracedCodeObject {
  std::unique_ptr<emu::Emulator> Emu;
  std::unique_ptr<emu::LaunchSession> Session;
  TracedRun Run;
};

/// traceSession over a fresh emulator and session of \p CO (which must
/// outlive the result).
llvm::Expected<TracedCodeObject>
traceCodeObject(const CodeObject &CO, const emu::LaunchSpec &Spec,
                const emu::SessionOptions &SO, const TimingConfig &C,
                unsigned MaxSample);

struct Comparison {
  double Base0 = 0, Base1 = 0; ///< Microseconds under the configuration.
  double BaseSpeedup = 0;      ///< Base0 / Base1.
  std::vector<double> Speedups; ///< One per perturbed set.
  double Min = 0, Median = 0, Max = 0;
  bool Robust = false;          ///< >= 1.01 under the base and every set.
  bool RobustlySlower = false;  ///< <= 1/1.01 under every set.
  bool Modelable = true;
  unsigned Sets = 0;

  void print(llvm::raw_ostream &OS) const;
  void writeJSON(llvm::json::OStream &J) const;
};

/// K0 and K1 under \p C and \p N perturbed copies of it (seeds Seed ..
/// Seed + N - 1, the same for both).
Comparison compare(const std::vector<LaunchTrace> &K0,
                   const std::vector<LaunchTrace> &K1, const TimingConfig &C,
                   unsigned N, uint64_t Seed);

} // namespace timing
} // namespace asmevo

#endif
