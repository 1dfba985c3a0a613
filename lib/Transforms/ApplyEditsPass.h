//===- ApplyEditsPass.h - -run-pass=apply-edits -----------------*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_APPLYEDITSPASS_H
#define ASMEVO_LIB_TRANSFORMS_APPLYEDITSPASS_H

#include "asmevo/Search/EditScript.h"
#include "asmevo/Transforms/Pass.h"
#include <optional>

namespace asmevo {

/// Reads the script of --edits once, checks it against each module once,
/// and applies each function's edits when the pipeline reaches it.
class ApplyEditsPass : public Pass {
public:
  llvm::StringRef name() const override { return "apply-edits"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  std::optional<EditScript> Script;
  std::string Path;
  const LiftedModule *Checked = nullptr;
};

} // namespace asmevo

#endif
