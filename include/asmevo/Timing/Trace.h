//===- Trace.h - What the cycle model keeps of an emulated launch -*- C++ -*-===//
//
// TraceCollector is the emulator's TraceSink for the timing model. It picks
// the workgroups one compute unit would run (the sample; the emulator runs
// only those) and keeps, per wave, one compact event per executed
// instruction: active lanes, taken branch, the distinct cache lines a
// vector memory instruction touches (coalescing from the real addresses)
// and the bank-conflict cycles of an LDS access (from the real offsets).
// Nothing here depends on timing parameters that a sensitivity run
// perturbs, so one emulation serves every parameter set.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_TIMING_TRACE_H
#define ASMEVO_TIMING_TRACE_H

#include "asmevo/Emulator/TraceSink.h"
#include "asmevo/Timing/Config.h"
#include <memory>
#include <string>
#include <vector>

namespace asmevo {
namespace timing {

/// One executed instruction in 4 bytes: its index and flags. A launch's
/// trace is held in memory, and on a virtual machine touching fresh pages
/// costs more than filling them; the simulation reads every event.
struct TraceEvent {
  enum : uint8_t { Taken = 1, Global = 2, Lds = 4, Store = 8, Memory = 16 };
  static constexpr unsigned FlagBits = 5;
  /// Instruction indices the event can hold (a launch with more is not
  /// modelled).
  static constexpr uint32_t MaxIndex = ~uint32_t(0) >> FlagBits;
  uint32_t Bits = 0;
  TraceEvent() = default;
  TraceEvent(uint32_t Index, uint8_t Flags)
      : Bits(Index << FlagBits | Flags) {}
  /// Instruction index (InstrRecord table).
  uint32_t index() const { return Bits >> FlagBits; }
  uint8_t flags() const { return uint8_t(Bits & ((1u << FlagBits) - 1)); }
  /// A MemoryEvent goes with it: the instruction accessed memory, or is
  /// an LDS instruction (whose time needs its active lanes).
  bool hasMemory() const { return Bits & Memory; }
};

/// What a memory event moved: one per TraceEvent with hasMemory(), in the
/// same order (kept apart so that the many other events stay small).
struct MemoryEvent {
  uint32_t LdsBytes = 0;  ///< Bytes an LDS access moves.
  uint32_t LineBegin = 0; ///< Into WaveTrace::Lines.
  uint32_t NumLines = 0;
  uint16_t LdsCycles = 0; ///< Bank-conflict cycles of the LDS access.
  uint8_t Lanes = 0;      ///< Active lanes (EXEC popcount).
};

struct WaveTrace {
  uint64_t Group = 0;
  unsigned Wave = 0;
  std::vector<TraceEvent> Events;
  std::vector<MemoryEvent> Memory;
  std::vector<uint64_t> Lines; ///< Cache-line numbers (address / line).
  // The instruction being reported (memory parts come before it).
  std::vector<uint64_t> CurLines;
  uint32_t CurLdsCycles = 0, CurLdsBytes = 0;
  uint8_t CurFlags = 0;
  bool CurUnsorted = false; ///< CurLines not ascending.
};

/// What workgroups on the other CUs of the modelled CU's XCD touch while
/// the sampled groups run: the L2 is one per XCD, so a line one of them
/// fetched is an L2 hit for the modelled CU (lib/Timing/L2Sharing.cpp).
/// A round is a CU's K-th workgroup: round R of the XCD is the group that
/// each of its CUs gets K-th, linear ids XCDs * (CUs * R + cu).
struct XCDSharing {
  struct Touch {
    uint64_t Line = 0;
    uint32_t Round = 0;
    uint32_t Groups = 0; ///< Traced other-CU groups of the round touching it.
  };
  uint64_t GroupsOnXCD = 0; ///< Workgroups of the modelled XCD in all.
  uint64_t XCDs = 1, CUs = 1;
  /// Per sampled round: other-CU groups traced (addresses only).
  std::vector<uint32_t> Traced;
  std::vector<Touch> Touches; ///< Sorted by line, then round.
  uint64_t tracedGroups() const;
  /// Other CUs' workgroups in round \p R of the XCD.
  uint64_t others(uint64_t R) const;
  /// The round of linear workgroup \p Group (on any CU of the XCD).
  uint64_t roundOf(uint64_t Group) const { return Group / XCDs / CUs; }
};

/// One launch as the model sees it.
struct LaunchTrace {
  emu::TraceLaunchInfo Info; ///< Instrs point into the emulator.
  uint64_t Groups = 0;       ///< Workgroups of the whole launch.
  std::vector<uint64_t> Sampled; ///< Linear ids run and traced, in order.
  uint64_t GroupsOnCU = 0;   ///< Workgroups the modelled CU gets in all.
  uint64_t FootprintBytes = 0; ///< Global memory the launch may touch.
  std::vector<std::unique_ptr<WaveTrace>> Waves;
  XCDSharing Sharing;
  /// Why the launch cannot be modelled ("" when it can).
  std::string NotModelable;
};

class TraceCollector : public emu::TraceSink {
public:
  /// \p MaxSample: most workgroups of the modelled CU to run and trace.
  TraceCollector(const TimingConfig &C, unsigned MaxSample)
      : C(C), MaxSample(MaxSample) {}
  /// Footprint of the next launches (the buffers the spec allocates).
  void setFootprint(uint64_t Bytes) { Footprint = Bytes; }

  void beginLaunch(const emu::TraceLaunchInfo &L) override;
  bool wantGroup(uint64_t Group) override;
  void *beginWave(uint64_t Group, unsigned Wave) override;
  void instruction(void *W, uint32_t Index, uint64_t Exec,
                   uint32_t Next) override;
  void memory(void *W, uint32_t Index, const uint64_t *Addr, uint64_t Mask,
              uint32_t Bytes, bool Lds, bool Write) override;
  void endWave(void *W) override;
  void endLaunch() override;

  std::vector<LaunchTrace> &launches() { return Launches; }

private:
  const TimingConfig &C;
  unsigned MaxSample;
  uint64_t Footprint = 0;
  std::vector<LaunchTrace> Launches;
  /// Per linear group of the current launch: 1 sampled, 2 traced for its
  /// addresses only (another CU of the XCD, see XCDSharing).
  std::vector<uint8_t> Want;
  std::vector<std::unique_ptr<WaveTrace>> SharerWaves; ///< Running.
  std::vector<std::pair<uint64_t, uint64_t>> SharerLines; ///< Line, group.
  std::vector<uint8_t> IsDS; ///< Per instruction of the current launch.
  // The largest finished wave of the launch: a new wave reserves that much
  // up front (waves of one kernel are mostly alike), so its trace does not
  // grow by reallocation; reserved pages never written cost nothing.
  size_t HintEvents = 64, HintMemory = 16, HintLines = 32;
};

} // namespace timing
} // namespace asmevo

#endif
