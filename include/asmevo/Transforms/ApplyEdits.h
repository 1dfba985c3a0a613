//===- ApplyEdits.h - Edit scripts applied to, and recorded from, MIR -*- C++ -*-===//
//
// applyEditScript checks every edit of a script against the kernel as it
// stands (anchors: block, index, text and bytes) and against what edits may
// never do (docs/edit-script.md), and applies it; the first refused edit is
// an error naming the script, the edit and why. The module is then partly
// edited and must be discarded (asmevo-opt writes nothing).
//
// EditRecorder is the other direction: what a pipeline did, as the
// whole-function `pass` edits that reproduce it.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_TRANSFORMS_APPLYEDITS_H
#define ASMEVO_TRANSFORMS_APPLYEDITS_H

#include "asmevo/Lift/LiftedModule.h"
#include "asmevo/Search/EditScript.h"
#include "asmevo/Transforms/Pass.h"
#include "llvm/Support/Error.h"
#include <optional>

namespace asmevo {

class RewriteFilter;

/// Where the apply-edits pass reads its script (asmevo-opt --edits=FILE).
void setEditScriptFile(llvm::StringRef Path);
const std::string &editScriptFile();
/// Or a script held in memory (an agent's proposal), named \p Name in
/// errors; an empty \p Name goes back to the file.
void setEditScriptText(llvm::StringRef Name, llvm::StringRef Text);

/// Applies the edits of \p S, in order, to \p LM. \p ScriptName names the
/// script in errors.
llvm::Error applyEditScript(LiftedModule &LM, const EditScript &S,
                            llvm::StringRef ScriptName);

/// Applies the edits of \p S that name \p LF (the pass's per-function step;
/// checkEditScriptModule must have accepted \p LM).
llvm::Error applyEditScript(LiftedModule &LM, LiftedFunction &LF,
                            const EditScript &S, llvm::StringRef ScriptName);

/// Module-wide checks: the target, and that every function an edit names
/// was lifted and is simple.
llvm::Error checkEditScriptModule(const LiftedModule &LM, const EditScript &S,
                                  llvm::StringRef ScriptName);

/// Collects a `pass` edit for each (pass, function) a pipeline changed.
class EditRecorder {
public:
  /// Called before a pass runs on \p LF: its fingerprint, the anchor.
  llvm::Error beforePass(const LiftedModule &LM, LiftedFunction &LF,
                         const RewriteFilter *Filter);
  /// Called after; records an edit when \p Changed.
  void afterPass(const LiftedModule &LM, const LiftedFunction &LF,
                 llvm::StringRef Pass, const PassParams &Params,
                 bool Changed, const RewriteFilter *Filter);
  EditScript &script() { return Script; }

private:
  EditScript Script;
  uint64_t Fingerprint = 0;
  unsigned FirstRewrite = 0;
};

} // namespace asmevo

#endif
