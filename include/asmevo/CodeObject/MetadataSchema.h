//===- MetadataSchema.h - Checking NT_AMDGPU_METADATA -----------*- C++ -*-===//
//
// The metadata note is msgpack a hostile file may shape at will, and
// llvm::msgpack::Document trusts its input: a map key that is itself a map
// reaches llvm_unreachable when compared or printed, and a field of the
// wrong type is read through the wrong union member. Both checks run before
// anything reads the document, and each error names the field.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_CODEOBJECT_METADATASCHEMA_H
#define ASMEVO_CODEOBJECT_METADATASCHEMA_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace llvm {
namespace msgpack {
class Document;
}
} // namespace llvm

namespace asmevo {

/// Deepest nesting of maps and arrays accepted in a metadata note (the
/// schema needs 4: root, kernels, kernel, args, arg).
constexpr unsigned MaxMetadataDepth = 16;

/// Walks the raw msgpack \p Blob without building it: exactly one object,
/// every map key a string, nesting at most MaxMetadataDepth, and no count
/// larger than the bytes left to hold it.
llvm::Error checkMetadataEncoding(llvm::StringRef Blob);

/// Checks the types of the fields AsmEvo reads (AMDGPUUsage, code object
/// V4+ metadata): amdhsa.kernels a list of maps, names strings, sizes and
/// counts unsigned integers, .args a list of maps.
llvm::Error checkMetadataSchema(llvm::msgpack::Document &Doc);

} // namespace asmevo

#endif
