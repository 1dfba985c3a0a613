//===- EditsDriver.cpp - asmevo-opt: edit scripts -------------------------===//
//
// The options live here, not in asmevo-opt.cpp, so that the edit-script
// work touches the main driver in a few lines. Values are taken
// by callback when the command line is parsed: lld resets every cl::opt
// when it links in-process.
//
//===----------------------------------------------------------------------===//
#include "EditsDriver.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

extern cl::OptionCategory Cat;

static std::string RecordPath;

static cl::opt<std::string> EditsOpt(
    "edits", cl::desc("Edit script for -run-pass=apply-edits "
                      "(docs/edit-script.md)"),
    cl::value_desc("file"), cl::cat(Cat),
    cl::cb<void, std::string>([](std::string V) { setEditScriptFile(V); }));
static cl::opt<std::string> RecordOpt(
    "record-edits",
    cl::desc("Write what the passes did as an edit script (one pass edit per "
             "pass and function changed)"),
    cl::value_desc("file"), cl::cat(Cat),
    cl::cb<void, std::string>([](std::string V) { RecordPath = V; }));
static EditRecorder &recorder() {
  static EditRecorder R;
  return R;
}

EditRecorder *asmevo::editRecorder() {
  return RecordPath.empty() ? nullptr : &recorder();
}

void asmevo::appendRecordedEdits(const EditScript &S) {
  EditScript &R = recorder().script();
  if (R.Target.empty())
    R.Target = S.Target;
  R.Edits.insert(R.Edits.end(), S.Edits.begin(), S.Edits.end());
}

Error asmevo::writeRecordedEdits() {
  if (RecordPath.empty())
    return Error::success();
  std::error_code EC;
  ToolOutputFile Out(RecordPath, EC, sys::fs::OF_Text);
  if (EC)
    return createStringError(RecordPath + ": " + EC.message());
  Out.os() << serializeEditScript(recorder().script());
  Out.keep();
  return Error::success();
}

