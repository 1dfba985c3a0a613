//===- RelaxWaitcnt.h - Wait no more than anything after needs --*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_RELAXWAITCNT_H
#define ASMEVO_LIB_TRANSFORMS_RELAXWAITCNT_H

#include "asmevo/Analysis/ISAFacts.h"
#include "asmevo/Transforms/Pass.h"
#include <memory>

namespace asmevo {

/// Rewrites each s_waitcnt to the weakest value per counter that every
/// later use of what it waits for still needs (the slack of the waitcnt
/// analysis: register reads and writes, LDS before barriers, stores before
/// releases). The instruction stays, with the same size, so no code moves
/// and no wait-state distance changes; only its stall shrinks. Functions
/// whose waits already fall short somewhere are left alone: they rely on
/// timing, and a relaxed wait elsewhere could change it. expcnt stays as
/// written: compute kernels export nothing.
class RelaxWaitcntPass : public Pass {
public:
  llvm::StringRef name() const override { return "relax-waitcnt"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  std::unique_ptr<ISAFacts> Facts;
  const LiftedModule *FactsFor = nullptr;
};

} // namespace asmevo

#endif
