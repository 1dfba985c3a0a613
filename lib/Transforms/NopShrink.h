//===- NopShrink.h - s_nop no longer than the hazards need ------*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_NOPSHRINK_H
#define ASMEVO_LIB_TRANSFORMS_NOPSHRINK_H

#include "EditSupport.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// Reduces every s_nop to the fewest wait states the hazard rules (the
/// table in lib/Analysis, advisory rules included) need for the consumers
/// after it, counting the instructions already between producer and
/// consumer, and removes an s_nop no rule needs. An s_nop is left alone
/// inside a preload prologue, at a function's first instruction, and within
/// a rule's window of a call, a return or (in a non-kernel function) the
/// entry: the hazards across those boundaries are not known. Each s_nop is
/// one rewrite, in layout order; the function is put back when its
/// violations (by site) grow after all the pass.
class NopShrinkPass : public Pass {
public:
  llvm::StringRef name() const override { return "nop-shrink"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

} // namespace asmevo

#endif
