//===- LoadCodeObject.h - One runnable code object from a file --*- C++ -*-===//
//
// Tools take a path that may be a bare code object, an offload bundle or a
// HIP fatbin; the verifier needs exactly one gfx90a/gfx942 object out of it,
// and an error naming the file when there is not exactly one.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_VERIFY_LOADCODEOBJECT_H
#define ASMEVO_VERIFY_LOADCODEOBJECT_H

#include "asmevo/CodeObject/CodeObject.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <memory>

namespace asmevo {
namespace verify {

/// Loads the single gfx90a/gfx942 code object held by \p Path.
llvm::Expected<std::unique_ptr<CodeObject>>
loadRunnableCodeObject(llvm::StringRef Path);

} // namespace verify
} // namespace asmevo

#endif
