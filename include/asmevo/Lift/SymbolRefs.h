//===- SymbolRefs.h - Addresses to symbolic references ----------*- C++ -*-===//
#ifndef ASMEVO_LIFT_SYMBOLREFS_H
#define ASMEVO_LIFT_SYMBOLREFS_H

#include "llvm/IR/GlobalValue.h"
#include "llvm/Support/Error.h"
#include <utility>

namespace asmevo {
class LiftedModule;

/// Prefix of the IR globals that stand for "start of section X" when an
/// address has no symbol of its own (linked objects drop local labels).
inline constexpr const char *SectionStartPrefix = "__asmevo.section";

struct SymbolRef {
  llvm::GlobalValue *GV = nullptr;
  int64_t Offset = 0;
  /// The address is a GOT slot holding GV's address: the reference is
  /// GOT-relative (gotpcrel32) and lld re-creates the slot.
  bool ViaGOT = false;
};

/// Resolves an absolute address of the original code object to the IR
/// global of the nearest symbol at or below it (same section), plus offset.
llvm::Expected<SymbolRef> resolveAddress(LiftedModule &LM, uint64_t Addr);

} // namespace asmevo

#endif
