//===- Pass.h - MachineFunction passes registered by name -------*- C++ -*-===//
#ifndef ASMEVO_TRANSFORMS_PASS_H
#define ASMEVO_TRANSFORMS_PASS_H

#include "asmevo/Lift/LiftedModule.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace asmevo {

/// A pass over the simple functions of a lifted module. Passes never see
/// non-simple functions: those keep their bytes.
class Pass {
public:
  virtual ~Pass() = default;
  virtual llvm::StringRef name() const = 0;
  /// Returns true if it changed \p LF.
  virtual llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) = 0;
};

using PassFactory = std::function<std::unique_ptr<Pass>()>;

struct PassEntry {
  std::string Name;
  std::string Description;
  PassFactory Create;
};

const std::vector<PassEntry> &registeredPasses();
const PassEntry *findPass(llvm::StringRef Name);

struct PipelineOptions {
  bool VerifyEach = false;
  bool PrintAfterAll = false;
  std::vector<std::string> PrintAfter;
  llvm::raw_ostream *PrintStream = nullptr;
};

/// Runs the comma-separated \p Pipeline over every simple function.
llvm::Error runPipeline(LiftedModule &LM, llvm::StringRef Pipeline,
                        const PipelineOptions &Opts);

} // namespace asmevo

#endif
