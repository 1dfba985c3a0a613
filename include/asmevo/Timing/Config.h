//===- Config.h - Parameters of the MI300X cycle model ----------*- C++ -*-===//
//
// Every number the timing model uses, with where it comes from: a published
// figure (../shared/notes/mi300x-timing.md names the source), a figure the
// model was calibrated on, or a guess. `asmevo-verify time --print-config`
// writes them as YAML (one key per parameter, its source as a comment);
// `--config FILE` reads such a file back, any subset of the keys.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_TIMING_CONFIG_H
#define ASMEVO_TIMING_CONFIG_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>

namespace llvm {
class raw_ostream;
}

namespace asmevo {
namespace timing {

struct TimingConfig {
  std::string Name = "mi300x";
  /// Whether this configuration was checked against hardware figures
  /// (docs/timing-model.md); others are labelled "unvalidated".
  bool Validated = true;

  // Whole GPU.
  double ClockMHz = 2100;
  double XCDs = 8;
  double CUsPerXCD = 38;
  double LaunchOverheadUs = 0;   // reported, not added to kernel time
  double DispatchCyclesPerGroup = 0;

  // Compute unit.
  double SIMDsPerCU = 4;
  double WaveSlotsPerSIMD = 8;
  double VGPRsPerLane = 512;     // unified arch VGPR + AGPR file per lane
  double VGPRGranule = 8;
  double SGPRsPerSIMD = 800;
  double LDSBytesPerCU = 65536;
  double GroupsPerCU = 16;

  // Issue and pipelines (cycles).
  double ValuCycles = 4;         // wave64 on a SIMD16
  double QuarterRateCycles = 16;
  double TransCycles = 16;
  double F64Cycles = 4;
  double ValuLatency = 4;        // dependent VALU result
  double MfmaCyclesPerPass = 4;
  double MfmaCoIssueCycles = 4;  // VALU may follow an XDL MFMA after this
  double SaluLatency = 4;
  double BranchTakenCycles = 16;
  double NopCyclesPerWaitState = 1;
  double SleepCyclesPerUnit = 64;
  double BarrierCycles = 16;
  double ArbiterOldestFirst = 1; // 1: oldest wave first, 0: rotating

  // Memory (latencies in cycles, bandwidths as noted).
  double LineBytes = 128;
  double L1Bytes = 32768;
  double L1Ways = 16;
  double L1BytesPerClk = 128;    // per CU
  double L1Latency = 88;
  double L2BytesPerXCD = 4194304;
  double L2Ways = 16;
  double L2BytesPerClkPerXCD = 2048; // 16 channels x 128 B/clk
  double L2Latency = 180;
  double L2Sharing = 1;          // 1: the XCD's CUs share L2 (L2Sharing.h)
  double L2SharerGroups = 64;    // other-CU groups traced for it, at most
  double MallBytes = 268435456;
  double MallTBs = 17;           // peak
  double MallEfficiency = 0.6;
  double MallLatency = 414;
  double HbmTBs = 4.14;          // achievable (streaming read)
  double HbmPeakTBs = 5.3;
  double HbmLatency = 820;
  double StoreAckLatency = 208;
  double ScalarLatency = 48;
  double LdsBanks = 32;
  double LdsBankBytes = 4;
  double LdsBytesPerClkPerPort = 64; // one SIMD pair's port
  double LdsLatency = 43;

  /// MI300X as ../shared/notes/mi300x-timing.md documents it.
  static TimingConfig mi300x();
  /// "mi300x" or a YAML file of overrides on top of mi300x (any subset of
  /// the keys --print-config writes; unknown keys are errors).
  static llvm::Expected<TimingConfig> load(llvm::StringRef NameOrFile);
  /// Every parameter as YAML, each with its kind and source.
  void printYAML(llvm::raw_ostream &OS) const;
  /// A perturbed copy (sensitivity runs): latencies x[0.7, 1.3],
  /// bandwidths x[0.8, 1.2], clock in [1700, 2100] MHz, arbitration
  /// oldest-first or rotating; the same \p Seed gives the same set.
  TimingConfig perturbed(uint64_t Seed) const;

  /// Bytes per shader cycle for a bandwidth in TB/s at the current clock.
  double bytesPerCycle(double TBs) const {
    return TBs * 1e12 / (ClockMHz * 1e6);
  }
  double totalCUs() const { return XCDs * CUsPerXCD; }
};

/// Kind of a parameter: what a sensitivity run perturbs.
enum class ParamKind { Latency, Bandwidth, Clock, Policy, Fixed };

struct ParamInfo {
  const char *Key;
  double TimingConfig::*Field;
  ParamKind Kind;
  const char *Unit;
  /// "calibrated: ..." / "documented: ..." / "guess: ...".
  const char *Source;
};

llvm::ArrayRef<ParamInfo> parameters();

} // namespace timing
} // namespace asmevo

#endif
