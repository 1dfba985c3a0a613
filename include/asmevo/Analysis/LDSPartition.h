//===- LDSPartition.h - Does each wave keep to its own LDS? ----*- C++ -*-===//
//
// A workgroup's waves share LDS, which is why an s_barrier that other waves
// may read LDS after needs the LDS writes before it complete (the release
// of AMDGPUUsage's memory model). A kernel whose every LDS address is
// `stride * wave + offset` with 0 <= offset, offset + size <= stride keeps
// each wave to its own slice: no wave can read another's writes, and the
// release orders nothing. This analysis proves that shape or gives up.
//
// Values are tracked as `A * W + [Lo, Hi]`, W the wave's index in the
// workgroup (the same in every lane of a wave, different between waves),
// through the few operations address arithmetic uses (moves, adds, shifts,
// masks, multiplies by constants, v_readfirstlane). The work-item id in v0
// is `64 * W + lane`: that holds when the kernel asks for the X id only
// (ENABLE_VGPR_WORKITEM_ID = 0, so it is launched 1-D) and waves are 64
// consecutive work-items, as on gfx9. Anything else, and any instruction
// that may touch LDS whose address is not one such value (LDS DMA, FLAT,
// M0-addressed DS), or a call or indirect jump, means no proof.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_ANALYSIS_LDSPARTITION_H
#define ASMEVO_ANALYSIS_LDSPARTITION_H

#include "asmevo/Analysis/ISAFacts.h"
#include <cstdint>
#include <optional>
#include <string>

namespace llvm {
class MachineFunction;
}

namespace asmevo {

struct LDSPartition {
  /// Bytes of LDS between one wave's slice and the next.
  int64_t Stride = 0;
  /// Lowest and one past the highest offset any access touches.
  int64_t Lo = 0, End = 0;
  unsigned Accesses = 0;
};

/// The partition if every LDS access of \p MF provably stays in its wave's
/// slice, else nullopt (with the reason in \p WhyNot when given).
/// \p WorkItemIDDims is the descriptor's ENABLE_VGPR_WORKITEM_ID.
std::optional<LDSPartition> proveWavePrivateLDS(const llvm::MachineFunction &MF,
                                                const ISAFacts &F,
                                                unsigned WorkItemIDDims,
                                                std::string *WhyNot = nullptr);

} // namespace asmevo

#endif
