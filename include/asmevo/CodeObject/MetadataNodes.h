//===- MetadataNodes.h - Reading the amdhsa metadata note -------*- C++ -*-===//
//
// The few lookups every reader of the NT_AMDGPU_METADATA msgpack document
// needs (the emulator's kernel metadata, the verifier's spec proposal, the
// resource check), tolerant of missing or mistyped nodes: a hostile note
// yields "absent", never a crash.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_CODEOBJECT_METADATANODES_H
#define ASMEVO_CODEOBJECT_METADATANODES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include <cstdint>
#include <optional>
#include <string>

namespace asmevo {
class CodeObject;

namespace md {

/// Entry \p Index of `amdhsa.kernels` in \p CO's metadata, if it is a map.
llvm::msgpack::MapDocNode *kernelMap(const CodeObject &CO, int Index);
/// \p M[\p Key], or null.
llvm::msgpack::DocNode *find(llvm::msgpack::MapDocNode &M,
                             llvm::StringRef Key);
/// A non-negative integer node's value.
std::optional<uint64_t> asUInt(const llvm::msgpack::DocNode *N);
/// A string node's value, or "".
std::string asString(const llvm::msgpack::DocNode *N);

} // namespace md
} // namespace asmevo

#endif
