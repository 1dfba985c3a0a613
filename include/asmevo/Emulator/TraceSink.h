//===- TraceSink.h - Observer of an emulated launch -------------*- C++ -*-===//
//
// What a timing model (lib/Timing) needs from the functional emulator, as it
// runs: per wave, every executed instruction (its index into the launch's
// InstrRecord table, EXEC before it, the index executed next, so branch
// outcomes are the real ones) and the per-lane address of every vector
// memory access (global/flat/scratch/buffer and LDS). Barrier arrivals,
// s_waitcnt, s_nop and s_sleep are instructions like the others: their
// class and immediate are in the InstrRecord (ic::Barrier, ic::Waitcnt...).
//
// Streamed, never written to a file. With no sink set (RunOptions::Sink is
// null) the emulator pays one predictable branch per instruction it already
// had (the --trace check) and one per memory instruction.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_EMULATOR_TRACESINK_H
#define ASMEVO_EMULATOR_TRACESINK_H

#include "llvm/ADT/ArrayRef.h"
#include <array>
#include <cstdint>
#include <string>

namespace asmevo {
struct InstrRecord;

namespace emu {

/// The launch a sink is about to observe.
struct TraceLaunchInfo {
  std::string Kernel;
  std::array<uint32_t, 3> Grid = {1, 1, 1};  ///< Workgroups per dimension.
  std::array<uint32_t, 3> Block = {1, 1, 1};
  unsigned WavesPerGroup = 1;
  uint32_t LdsBytes = 0;        ///< Group segment (static + dynamic).
  uint32_t ScratchPerLane = 0;
  unsigned VGPRs = 0;           ///< Allocated arch VGPRs + AGPRs (unified).
  unsigned ArchVGPRs = 0;       ///< accum_offset (arch VGPRs).
  unsigned SGPRs = 0;           ///< Allocated SGPRs (descriptor granule).
  /// Every decoded instruction, by instruction index (the Index of the
  /// callbacks below); InstrRecord::Addr is its code-object address.
  llvm::ArrayRef<InstrRecord> Instrs;
};

class TraceSink {
public:
  virtual ~TraceSink();
  virtual void beginLaunch(const TraceLaunchInfo &L) {}
  /// Whether workgroup \p Group (linear id) runs at all: a sink that
  /// samples a large launch leaves the others out (the launch's outputs
  /// are then incomplete: a timing run is not a verification run).
  virtual bool wantGroup(uint64_t Group) { return true; }
  /// A wave of workgroup \p Group (linear id: x + gx * (y + gy * z)) starts.
  /// Returns the handle the other callbacks of this wave get, or nullptr
  /// to leave the wave untraced.
  virtual void *beginWave(uint64_t Group, unsigned Wave) = 0;
  /// Instruction \p Index was executed with EXEC \p Exec; \p Next is the
  /// index executed next (a taken branch when not Index + 1). Memory
  /// accesses of the instruction are reported before it.
  virtual void instruction(void *W, uint32_t Index, uint64_t Exec,
                           uint32_t Next) = 0;
  /// Lanes \p Mask of instruction \p Index access \p Bytes each at
  /// Addr[lane] (device address, or LDS byte offset when \p Lds). An
  /// instruction may report several parts (ds_read2, per-dword checks).
  virtual void memory(void *W, uint32_t Index, const uint64_t *Addr,
                      uint64_t Mask, uint32_t Bytes, bool Lds,
                      bool Write) = 0;
  /// The wave ended (s_endpgm or the end of the launch).
  virtual void endWave(void *W) {}
  virtual void endLaunch() {}
};

} // namespace emu
} // namespace asmevo

#endif
