//===- TestDropWaitcnt.h - Test-only: a pass that is wrong ------*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_TESTDROPWAITCNT_H
#define ASMEVO_LIB_TRANSFORMS_TESTDROPWAITCNT_H

#include "EditSupport.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// Deliberately wrong, for the gate's and the reduction's tests: deletes
/// the first s_waitcnt (layout order, outside a preload prologue) that a
/// later instruction needs (the waitcnt analysis' Needed is not "none").
/// Every needed wait is one rewrite in that order; the first one the
/// rewrite filter allows is deleted and the pass stops.
class TestDropWaitcntPass : public Pass {
public:
  llvm::StringRef name() const override { return "test-drop-waitcnt"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
  bool Done = false;
};

} // namespace asmevo

#endif
