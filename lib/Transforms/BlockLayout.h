//===- BlockLayout.h - Fall-through straightening ---------------*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_BLOCKLAYOUT_H
#define ASMEVO_LIB_TRANSFORMS_BLOCKLAYOUT_H

#include "asmevo/Analysis/ISAFacts.h"
#include "asmevo/Transforms/Pass.h"
#include <memory>

namespace asmevo {

/// Removes taken branches the layout does not need (the cycle model
/// charges each taken branch a refetch, BranchTakenCycles):
///  - a block whose only predecessor ends in an unconditional s_branch to
///    it is laid out right after that predecessor (with the blocks it falls
///    through to, up to one that ends in an unconditional transfer), and
///    the s_branch is removed;
///  - an s_branch or s_cbranch_* to the very next block is removed (a
///    conditional branch over nothing).
/// Never in a kernel-argument preload prologue, never the entry block or
/// the preload entry; not when the removed branch's wait state is one a
/// hazard rule needs, or it separates two memory instructions that would
/// form an xnack soft clause. The function's hazard and waitcnt checks run
/// after; if they find more than before, the function is put back.
/// Hot-loop alignment is not done: the cycle model charges no fetch
/// alignment (docs/timing-model.md), so nothing could show it helps.
class BlockLayoutPass : public Pass {
public:
  llvm::StringRef name() const override { return "block-layout"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  std::unique_ptr<ISAFacts> Facts;
  const LiftedModule *FactsFor = nullptr;
};

} // namespace asmevo

#endif
