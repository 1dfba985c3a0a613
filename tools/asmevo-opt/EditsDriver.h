//===- EditsDriver.h - asmevo-opt: edit scripts ----------*- C++ -*-===//
#ifndef ASMEVO_TOOLS_OPT_EDITSDRIVER_H
#define ASMEVO_TOOLS_OPT_EDITSDRIVER_H
#include "asmevo/Lift/LiftedModule.h"
#include "asmevo/Transforms/ApplyEdits.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <vector>
namespace asmevo {
/// The recorder --record-edits asks for, or null.
EditRecorder *editRecorder();
/// Adds the edits the optimizer kept for one code object.
void appendRecordedEdits(const EditScript &S);
/// Writes what the recorder holds to the --record-edits file.
llvm::Error writeRecordedEdits();
} // namespace asmevo
#endif
