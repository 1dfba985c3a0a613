//===- Model.h - Cycle model of an MI300X launch ----------------*- C++ -*-===//
//
// simulateLaunch() replays the traced waves of one compute unit (the
// sample TraceCollector kept) through a model of the CU as AMD documents
// it - 4 SIMD16, wave slots, occupancy from VGPR/AGPR, SGPR, LDS and
// workgroup slots, the issue arbiter (one SIMD per cycle, at most one
// instruction per wave and one per category), VALU/MFMA/LDS/SALU/branch
// pipelines, s_waitcnt against in-flight operations, s_barrier, s_nop and
// s_sleep - and of the memory hierarchy that CU shares (L1, its share of L2,
// Infinity Cache and HBM bandwidth with the other active CUs). Scaled to the
// whole launch, the result is a model: never a measurement, and every
// report says so.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_TIMING_MODEL_H
#define ASMEVO_TIMING_MODEL_H

#include "asmevo/Timing/Config.h"
#include "asmevo/Timing/Trace.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include <string>
#include <vector>

namespace llvm {
class raw_ostream;
namespace json {
class OStream;
}
} // namespace llvm

namespace asmevo {
namespace timing {

/// Memory levels, in the order a request tries them.
enum Level : unsigned { L1 = 0, L2 = 1, MALL = 2, HBM = 3, NumLevels = 4 };

/// Where the modelled CU's waves spent their time, in wave-cycles (the
/// sum over waves of the cycles each was resident); each cycle counts once
/// under the reason its next instruction could not issue.
struct Breakdown {
  double Issue = 0;       ///< Issuing, or ready but waiting for its turn.
  double Dependency = 0;  ///< Waiting for a VALU/SALU/MFMA result.
  double Pipeline = 0;    ///< VALU/MFMA pipe of its SIMD busy.
  double MemWait[NumLevels] = {0, 0, 0, 0}; ///< s_waitcnt on a load/store.
  double LdsWait = 0;     ///< s_waitcnt on LDS.
  double ScalarWait = 0;  ///< s_waitcnt on scalar memory.
  double Barrier = 0;
  double NopSleep = 0;    ///< s_nop wait states, s_sleep.
  double Branch = 0;      ///< Taken-branch refetch.
  double total() const;
};

/// Wave-cycles spent before each instruction could issue (modelled CU,
/// sample): where a kernel's time goes, instruction by instruction.
struct InstrCost {
  uint64_t Addr = 0;
  uint64_t Issued = 0;
  double Cycles = 0;   ///< Wave-cycles from the wave's previous issue.
  double Stalled = 0;  ///< Of which blocked (not just waiting its turn).
  std::string Reason;  ///< The reason with the most blocked cycles.
};

struct LaunchTiming {
  std::string Kernel;
  bool Modelable = true;
  std::string NotModelable;
  // Sample and scale.
  uint64_t Groups = 0, GroupsOnCU = 0, SampledGroups = 0;
  double Scale = 1;       ///< GroupsOnCU / SampledGroups.
  /// Cycles = sample + (unsampled groups) x (per-group cost of the
  /// sample's second half), instead of sample x Scale.
  bool Extrapolated = false;
  uint64_t ActiveCUs = 0;
  /// Other CUs' workgroups of the XCD traced for the shared L2.
  uint64_t SharerGroups = 0;
  // Result.
  double SampleCycles = 0; ///< Makespan of the sampled groups on the CU.
  double Cycles = 0;       ///< Scaled: the launch's modelled cycles.
  double Microseconds = 0; ///< Cycles at the configuration's clock.
  // Occupancy.
  unsigned WavesPerSIMD = 0; ///< Limit from registers.
  unsigned GroupsPerCU = 0;  ///< Resident workgroups at once.
  std::string Limiter;       ///< What limits GroupsPerCU.
  unsigned VGPRs = 0, SGPRs = 0, LdsBytes = 0, WavesPerGroup = 0;
  // Activity of the modelled CU (sample).
  uint64_t Instructions = 0;
  uint64_t LdsConflictCycles = 0; ///< Beyond the conflict-free cycles.
  double LevelBytes[NumLevels] = {0, 0, 0, 0}; ///< Bytes served, sample.
  uint64_t LevelLines[NumLevels] = {0, 0, 0, 0};
  uint64_t StoreLines = 0;
  uint64_t SharedL2Lines = 0; ///< Of LevelLines[L2]: fetched by other CUs.
  Breakdown B;
  std::vector<InstrCost> Instrs; ///< Executed instructions, by address.
  // Whole-launch rates.
  double HbmTBs = 0;       ///< Achieved HBM bandwidth (model).
  double L2TBs = 0;        ///< Achieved L2 bandwidth (model).
  double Flops = 0;        ///< Vector+matrix FLOP/s (rough, model).
};

class Timeline;

/// Simulates one traced launch under \p C, recording into \p TL if given.
LaunchTiming simulateLaunch(const LaunchTrace &T, const TimingConfig &C,
                            Timeline *TL = nullptr);

struct TimingReport {
  std::string Config;
  bool Validated = true;
  double ClockMHz = 0;
  std::vector<LaunchTiming> Launches;
  double Cycles = 0, Microseconds = 0; ///< Sum over launches.
  bool Modelable = true;
  /// CPU seconds simulate() took (this machine, not the GPU).
  double ModelSeconds = 0;

  void print(llvm::raw_ostream &OS) const;
  void writeJSON(llvm::json::OStream &J) const;
  /// The \p N costliest instructions of each launch, with \p Text(Addr)
  /// (the disassembly) beside them.
  void printHotspots(llvm::raw_ostream &OS, unsigned N,
                     llvm::function_ref<std::string(uint64_t)> Text) const;
};

/// \p TL, if given, records the launches' timeline (processes labelled
/// \p Label, e.g. "K0").
TimingReport simulate(const std::vector<LaunchTrace> &Launches,
                      const TimingConfig &C, Timeline *TL = nullptr,
                      llvm::StringRef Label = "");

/// The "model (not measured)" wording every report carries.
extern const char *const ModelNote;

} // namespace timing
} // namespace asmevo

#endif
