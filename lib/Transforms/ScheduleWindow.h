//===- ScheduleWindow.h - List scheduling within a block --------*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_SCHEDULEWINDOW_H
#define ASMEVO_LIB_TRANSFORMS_SCHEDULEWINDOW_H

#include "asmevo/Analysis/ISAFacts.h"
#include "asmevo/Transforms/Pass.h"
#include <memory>

namespace asmevo {

/// Reorders the instructions of each region of a basic block (the runs
/// between fences: branches, barriers, s_setprio/s_sleep/s_sendmsg, s_nop,
/// s_setreg/s_getreg, cache control, LDS DMA, s_getpc and relocated
/// operands, anything with unmodelled side effects) with a list scheduler
/// driven by the static one-wave cost (asmevo/Timing/StaticCost.h). It
/// keeps register dependencies (implicit operands included: EXEC, VCC,
/// SCC, M0, MODE), memory order (loads pass loads; nothing passes a store
/// or atomic of the same space; LDS and the rest are separate spaces), and
/// s_waitcnt: nothing sinks below a wait; an instruction rises above one
/// only if it touches no register a load still in flight there may write
/// (or a store may still read), and a memory operation that rises above it
/// adds one to the wait's counter, which is allowed only while that counter
/// completes in order (no generic FLAT in the function; for lgkmcnt only
/// DS operations in the block and none in flight at its entry), so each
/// wait still forces exactly the operations it forced. Orders that would
/// need wait states get s_nops inserted (or an s_nop 0 to break an xnack
/// soft clause); the new order is kept only when the static cost is
/// lower. After the function is done, the hazard and waitcnt analyses run
/// again, and every block with more violations than before is put back.
class ScheduleWindowPass : public Pass {
public:
  llvm::StringRef name() const override { return "schedule-window"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  std::unique_ptr<ISAFacts> Facts;
  const LiftedModule *FactsFor = nullptr;
};

} // namespace asmevo

#endif
