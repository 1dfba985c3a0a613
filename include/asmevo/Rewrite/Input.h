//===- Input.h - An input file as the rewriter holds it ---------*- C++ -*-===//
//
// Every tool (asmevo-opt, asmevo-link --optimize, --evolve, the MCP server)
// reads its input here: a code object, an offload bundle, a HIP host
// binary, MachineIR text or assembler text. Containers keep their bytes, so
// that writing them back replaces only the device code objects that were
// rebuilt and leaves the rest of the file as it was.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_REWRITE_INPUT_H
#define ASMEVO_REWRITE_INPUT_H

#include "asmevo/CodeObject/InputFile.h"
#include "asmevo/Lift/LiftedModule.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

/// A code object of a container whose target AsmEvo does not optimize
/// (gfx8, gfx10, gfx11, ...): it is not lifted and keeps its bytes.
struct PassThroughObject {
  std::string Name;     ///< "file:#2(hipv4-amdgcn-amd-amdhsa--gfx1030)"
  std::string TargetID; ///< From the bundle entry: "gfx1030"
  std::string Reason;   ///< Why it is not optimized.
  unsigned EntryIndex = 0;
  std::vector<uint8_t> Bytes;
};

struct RewriteInput {
  std::string Path;
  InputKind Kind = InputKind::Unknown;
  std::unique_ptr<llvm::MemoryBuffer> Buffer;
  /// One per AMDGPU code object, in file order.
  std::vector<std::unique_ptr<LiftedModule>> Modules;
  /// Parallel to Modules: the container entry each came from.
  std::vector<unsigned> ModuleEntries;
  /// Code objects of targets not optimized, in file order.
  std::vector<PassThroughObject> PassThrough;

  llvm::StringRef bytes() const { return Buffer->getBuffer(); }
  bool isContainer() const {
    return Kind == InputKind::OffloadBundle || Kind == InputKind::HostBinary;
  }
};

/// Reads \p Path ("-" is stdin) and lifts every code object it holds.
llvm::Expected<RewriteInput> loadRewriteInput(llvm::StringRef Path,
                                              const LiftOptions &LO);

/// Assembler text, assembled and linked with the lld arguments the text
/// names in its "asmevo-lld-args:" comment.
llvm::Expected<std::vector<uint8_t>> assembleAndLink(llvm::StringRef Text,
                                                     llvm::StringRef Path);

/// \p In's container with module I's code object replaced by
/// \p NewObjects[I]; a module whose entry is nullopt keeps its bytes, and
/// when no module changed the result is the input, byte for byte. An
/// edited object must fit where its original was (BundleWriter.h); with
/// \p AllowCompress an uncompressed bundle that does not is written
/// compressed, with a warning.
llvm::Expected<std::vector<uint8_t>>
writeContainer(const RewriteInput &In,
               llvm::ArrayRef<std::optional<std::vector<uint8_t>>> NewObjects,
               std::vector<std::string> &Warnings, bool AllowCompress = false);

/// Writes \p Bytes to \p Path atomically: into a temporary file next to
/// it, renamed over \p Path only when complete, so that a failure leaves
/// neither a partial file nor a changed one behind; "-" is stdout.
/// \p ModeFrom: copy that file's permission bits (a rewritten HIP
/// executable must stay executable).
llvm::Error writeOutputFile(llvm::StringRef Path, llvm::StringRef Bytes,
                            llvm::StringRef ModeFrom = "");

/// Fails, naming \p Path and why, when writeOutputFile could not write it:
/// checked before a long job rather than after it.
llvm::Error checkOutputWritable(llvm::StringRef Path);

} // namespace asmevo

#endif
