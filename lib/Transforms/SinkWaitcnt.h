//===- SinkWaitcnt.h - Wait where the value is needed -----------*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_SINKWAITCNT_H
#define ASMEVO_LIB_TRANSFORMS_SINKWAITCNT_H

#include "EditSupport.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// Moves each s_waitcnt down its block to just before the first
/// instruction that needs it, so that the independent instructions in
/// between issue while the memory operations are still in flight. It
/// passes only instructions that
///  - read or write no register a memory operation the wait may force
///    writes (found walking back over the CFG to a wait for 0 on that
///    counter; in a non-kernel function a path to the entry protects
///    everything, since the caller's loads may be in flight);
///  - are not a branch, barrier, wait, message, cache control, s_setprio,
///    s_sleep, s_setreg/getreg or any SOPP but s_nop;
///  - are not memory operations, except a load that counts on a counter
///    the wait does not wait for, of a kind the forced operations cannot
///    alias (a VMEM load past an lgkmcnt-only wait when the function has
///    no generic FLAT access; a DS read past a vmcnt-only wait when it has
///    no LDS DMA), and that does not form a soft clause with its neighbour.
/// The wait keeps its value (relax-waitcnt, run after, loosens it), and a
/// move that would bring a hazard's producer too close is shortened. Each
/// move is one rewrite; the function is put back when the waitcnt and
/// hazard analyses find a violation site it did not have.
class SinkWaitcntPass : public Pass {
public:
  llvm::StringRef name() const override { return "sink-waitcnt"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

} // namespace asmevo

#endif
