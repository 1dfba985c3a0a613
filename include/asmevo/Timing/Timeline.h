//===- Timeline.h - The modelled launch as a Chrome trace -------*- C++ -*-===//
//
// What `--timeline FILE` writes: the cycle model's view of the modelled
// CU's sample, in the Chrome trace-event JSON that Perfetto and
// chrome://tracing open (as rocprofv3 traces are). One process per launch,
// one thread per wave (named by SIMD, workgroup and wave); per wave, slices
// of the cycles it was blocked (named by the stall reason the report uses)
// and of the cycles it waited for its turn and issued (named by the
// category of the instruction it issued), and its memory operations in
// flight as async slices by the level that served them. The stall and
// issue slices of a launch add up to the report's wave-cycles breakdown.
// It is a model: the file says so.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_TIMING_TIMELINE_H
#define ASMEVO_TIMING_TIMELINE_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <string>
#include <vector>

namespace llvm {
namespace json {
class OStream;
}
} // namespace llvm

namespace asmevo {
namespace timing {

class Timeline {
public:
  /// Starts the next launch's process (its slices follow); \p Label names
  /// it ("K0 launch 0 'kern'").
  void beginLaunch(std::string Label, double ClockMHz);
  /// Declares wave \p Id of the current launch.
  void wave(unsigned Id, unsigned Simd, uint64_t Group, unsigned Wave);
  /// \p Cycles of wave \p Id from \p Start under \p Name (a static
  /// string); \p Stall: blocked (a reason) or issuing (a category). A
  /// slice that continues the wave's previous one of the same name extends
  /// it.
  void slice(unsigned Id, double Start, double Cycles, const char *Name,
             bool Stall);
  /// A memory operation of wave \p Id in flight from \p Start to \p End.
  void memory(unsigned Id, double Start, double End, const char *Level);

  /// The trace-event JSON of everything recorded.
  void write(llvm::json::OStream &J) const;
  size_t numSlices() const { return Slices.size(); }

private:
  struct Slice {
    unsigned Pid, Tid;
    double Start, Cycles;
    const char *Name;
    uint8_t Kind; ///< 0 stall, 1 issue, 2 memory.
  };
  struct Thread {
    unsigned Pid, Tid, Simd, Wave;
    uint64_t Group;
    size_t LastSlice = ~size_t(0);
  };
  struct Process {
    std::string Label;
    double ClockMHz;
  };
  std::vector<Process> Procs;
  std::vector<Thread> Threads; ///< Of every launch.
  size_t ThreadBase = 0;       ///< First thread of the current launch.
  std::vector<Slice> Slices;
};

} // namespace timing
} // namespace asmevo

#endif
