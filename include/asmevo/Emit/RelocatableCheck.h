//===- RelocatableCheck.h - What lld may be given ---------------*- C++ -*-===//
#ifndef ASMEVO_EMIT_RELOCATABLECHECK_H
#define ASMEVO_EMIT_RELOCATABLECHECK_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace asmevo {

/// Checks that \p Obj is an AMDGPU relocatable ELF object lld can link
/// without trusting it: sections inside the file, one symbol table whose
/// names and section indices exist, and SHT_RELA relocations of known
/// AMDGPU types against existing symbols, each writing inside its section.
/// Errors name \p Name and the section, symbol or relocation.
llvm::Error checkRelocatable(llvm::ArrayRef<uint8_t> Obj, llvm::StringRef Name);

} // namespace asmevo

#endif
