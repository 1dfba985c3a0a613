//===- InsertNops.h - Test pass: make every block move ----------*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_INSERTNOPS_H
#define ASMEVO_LIB_TRANSFORMS_INSERTNOPS_H

#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// Puts an `s_nop 0` at the top of every basic block, except inside a
/// preload kernel's 256-byte compatibility prologue (whose end is a second
/// entry point and must not move). Everything after the first block
/// shifts, which is what the tests of branch and PC-relative fix-ups need.
class InsertNopsPass : public Pass {
public:
  llvm::StringRef name() const override { return "insert-nops"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;
};

} // namespace asmevo

#endif
