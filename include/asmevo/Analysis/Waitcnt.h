//===- Waitcnt.h - Outstanding memory operations and needed waits -*- C++
//-*-===//
//
// A forward dataflow over the CFG of what each waitcnt counter still has in
// flight at every point, which registers those operations will write and
// whether LDS has writes in flight. Completion order as LLVM's
// SIInsertWaitcnts models gfx9 (CDNA3 ISA 4.4 "Data Dependency
// Resolution"): vmcnt completes in order; lgkmcnt in order only while all
// pending operations are of one kind and none is SMEM (scalar loads return
// out of order); a generic FLAT operation increments both counters and,
// while pending, makes both counters out of order (only a wait for 0
// proves completion). As in LLVM, only expcnt is assumed to saturate; more
// vmcnt/lgkmcnt operations than the counter can name are never assumed
// complete (a wait for max-1 is the loosest that forces them).
//
// From that state:
//  - violations: an instruction reads (or, except VMEM after VMEM, writes)
//    a register a pending load writes, or an s_barrier is reached with LDS
//    writes (DS stores, LDS DMA) in flight that other waves may read after
//    it (AMDGPUUsage memory model, workgroup release before a barrier), or
//    a store or atomic releases after buffer_wbl2 with vector memory
//    operations in flight;
//  - per s_waitcnt, the weakest value per counter that every later use of
//    the operations it forces still needs ("slack" when that is weaker
//    than the value written).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_ANALYSIS_WAITCNT_H
#define ASMEVO_ANALYSIS_WAITCNT_H

#include "asmevo/Analysis/Hazards.h"
#include "asmevo/Analysis/ISAFacts.h"
#include <vector>

namespace asmevo {

enum class WaitNeedKind : uint8_t { Read, WriteAfterWrite, Barrier, Release };

struct WaitViolation {
  unsigned Instr = 0; ///< Index in the InstrSeq.
  WaitNeedKind Kind = WaitNeedKind::Read;
  WaitcntValue Needed; ///< The wait that would make it legal.
  SlotRange Reg;       ///< The register (empty for Barrier).
};

struct WaitSlack {
  unsigned Instr = 0; ///< The s_waitcnt.
  WaitcntValue Actual;
  WaitcntValue Needed; ///< Weakest wait with the same guarantees used.
  bool hasSlack() const {
    return Needed.VM > Actual.VM || Needed.Lgkm > Actual.Lgkm ||
           Needed.Exp > Actual.Exp;
  }
};

struct WaitcntResult {
  std::vector<WaitViolation> Violations;
  std::vector<WaitSlack> Waits; ///< One per s_waitcnt.
  /// Operations in flight before each instruction (vmcnt, lgkmcnt).
  std::vector<uint8_t> PendingVM, PendingLgkm;
  unsigned Iterations = 0;
};

struct WaitcntOptions {
  /// Also require LDS DMA to complete before any DS read (off: LDS DMA
  /// into one buffer while reading another is the usual double-buffering
  /// and addresses are not known statically).
  bool LDSDMABeforeDSRead = false;
  /// Every LDS access stays in its wave's slice (LDSPartition.h): a barrier
  /// publishes nothing another wave reads, so none needs a release.
  bool WavePrivateLDS = false;
};

WaitcntResult analyzeWaitcnts(const InstrSeq &Seq, const ISAFacts &F,
                              const WaitcntOptions &Opts = {});

} // namespace asmevo

#endif
