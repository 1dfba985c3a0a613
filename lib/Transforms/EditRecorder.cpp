//===- EditRecorder.cpp - apply-edits the pass, and edits recorded --------===//
#include "ApplyEditsPass.h"
#include "asmevo/Transforms/ApplyEdits.h"
#include "asmevo/Transforms/InstrAnchor.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;
using namespace asmevo;

static std::string &scriptFile() {
  static std::string Path;
  return Path;
}

/// The in-memory script: its name and text.
static std::pair<std::string, std::string> &scriptText() {
  static std::pair<std::string, std::string> T;
  return T;
}

void asmevo::setEditScriptFile(StringRef Path) { scriptFile() = Path.str(); }
const std::string &asmevo::editScriptFile() { return scriptFile(); }
void asmevo::setEditScriptText(StringRef Name, StringRef Text) {
  scriptText() = {Name.str(), Text.str()};
}

Expected<bool> ApplyEditsPass::run(LiftedModule &LM, LiftedFunction &LF) {
  if (!Script && !scriptText().first.empty()) {
    Path = scriptText().first;
    auto S = parseEditScript(scriptText().second, Path);
    if (!S)
      return S.takeError();
    Script = std::move(*S);
  }
  if (!Script) {
    Path = editScriptFile();
    if (Path.empty())
      return createStringError("apply-edits needs an edit script: --edits=FILE");
    auto Buf = MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/true);
    if (!Buf)
      return createStringError(Path + ": " + Buf.getError().message());
    auto S = parseEditScript((*Buf)->getBuffer(), Path);
    if (!S)
      return S.takeError();
    Script = std::move(*S);
  }
  if (Checked != &LM) {
    if (Error E = checkEditScriptModule(LM, *Script, Path))
      return std::move(E);
    Checked = &LM;
  }
  bool Any = any_of(Script->Edits,
                    [&](const Edit &E) { return E.Function == LF.Range.Name; });
  if (!Any)
    return false;
  if (Error E = applyEditScript(LM, LF, *Script, Path))
    return std::move(E);
  return true;
}

Error EditRecorder::beforePass(const LiftedModule &LM, LiftedFunction &LF,
                               const RewriteFilter *Filter) {
  InstrAnchorer A(LM);
  auto FP = A.fingerprint(*LF.MF);
  if (!FP)
    return createStringError("--record-edits: function '" + LF.Range.Name +
                             "': " + toString(FP.takeError()));
  Fingerprint = *FP;
  FirstRewrite = Filter ? Filter->seen() : 0;
  if (Script.Target.empty())
    Script.Target = LM.target().info().Processor;
  return Error::success();
}

void EditRecorder::afterPass(const LiftedModule &, const LiftedFunction &LF,
                             StringRef Pass, const PassParams &Params,
                             bool Changed, const RewriteFilter *Filter) {
  if (!Changed)
    return;
  Edit E;
  E.Kind = EditKind::Pass;
  E.Function = LF.Range.Name;
  E.PassName = Pass.str();
  E.Fingerprint = Fingerprint;
  // The parameters the pipeline gave (--evolve's randomized ones among
  // them): the edit replays the same rewrites.
  for (const auto &[K, V] : Params)
    E.Params[K] = V;
  // A filter numbers rewrites across the whole module; an edit runs the
  // pass on one function, so its numbers start at that function's first.
  if (Filter && Filter->restricted()) {
    json::Array Local;
    for (unsigned N : Filter->enabled())
      if (N >= FirstRewrite && N < Filter->seen())
        Local.push_back(N - FirstRewrite);
    E.Params["rewrites"] = std::move(Local);
  }
  Script.Edits.push_back(std::move(E));
}
