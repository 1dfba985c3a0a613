//===- Rebuild.h - Lifted module back to a code object ----------*- C++ -*-===//
//
// MachineInstr -> MCInst -> ELF object streamer (instructions no edit
// touched keep their original bytes), then an in-process lld link. The
// address map ties every output instruction to its original address.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_EMIT_REBUILD_H
#define ASMEVO_EMIT_REBUILD_H

#include "asmevo/Lift/LiftedModule.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

struct AddressMapEntry {
  uint64_t NewAddr = 0;
  std::optional<uint64_t> OrigAddr; ///< None for instructions an edit added.
  /// Owned by the RebuildResult that holds the entry (one copy per
  /// function, not per instruction).
  llvm::StringRef Function;
};

struct RebuildResult {
  std::vector<uint8_t> Relocatable; ///< The object handed to lld.
  std::vector<uint8_t> Linked;      ///< The final code object.
  std::vector<AddressMapEntry> AddressMap;
  std::vector<std::string> Warnings;
  /// Storage for AddressMapEntry::Function (stable across moves).
  std::vector<std::unique_ptr<std::string>> FunctionNames;
  llvm::StringRef keepName(llvm::StringRef Name) {
    FunctionNames.push_back(std::make_unique<std::string>(Name.str()));
    return *FunctionNames.back();
  }
};

struct RebuildOptions {
  /// Keep the original section addresses (for inputs other linkers laid
  /// out), so that symbol values and section addresses stay identical.
  bool PinSectionAddresses = true;
};

/// True when \p MI still encodes as the instruction lifted from its
/// original address (only explicit operands reach the encoding).
bool unchangedSinceLift(const LiftedModule &LM, const llvm::MachineInstr &MI);

/// Emits the relocatable object for \p LM.
llvm::Error emitRelocatable(const LiftedModule &LM, RebuildResult &R);
/// The same content as assembler text (read back by assemble()).
llvm::Expected<std::string> emitAssembly(const LiftedModule &LM);
/// Links R.Relocatable with lld into R.Linked and completes the map.
llvm::Error linkCodeObject(const LiftedModule &LM, const RebuildOptions &Opts,
                           RebuildResult &R);
/// Both of the above.
llvm::Expected<RebuildResult> rebuild(const LiftedModule &LM,
                                      const RebuildOptions &Opts = {});

/// What lld must be told beyond the object to reproduce \p CO (a build
/// ID). Assembler text carries these in an "asmevo-lld-args:" comment.
std::vector<std::string> lldArgsFor(const CodeObject &CO);
llvm::StringRef lldArgsCommentTag();

/// Links already-emitted relocatable objects (from files) with lld.
llvm::Expected<std::vector<uint8_t>>
linkObjects(llvm::ArrayRef<std::string> Inputs,
            llvm::ArrayRef<std::string> ExtraArgs);

/// True when the input's only linker was the lld we link with: an identity
/// rebuild must then reproduce the whole file.
bool linkedBySameLLD(const CodeObject &Orig, const CodeObject &Rebuilt);

/// Links one relocatable object held in memory.
llvm::Expected<std::vector<uint8_t>>
linkRelocatable(llvm::ArrayRef<uint8_t> Obj,
                llvm::ArrayRef<std::string> ExtraArgs);

void writeAddressMap(llvm::raw_ostream &OS, const RebuildResult &R);

} // namespace asmevo

#endif
