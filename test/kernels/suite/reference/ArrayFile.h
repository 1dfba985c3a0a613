//===- ArrayFile.h - Raw little-endian and NumPy .npy buffer files -*- C++
//-*-===//
//
// The two buffer file formats of `asmevo-verify run`: raw little-endian
// bytes, or NumPy's .npy (format versions 1-3, C order). A file is .npy when
// it starts with the .npy magic, whatever its name.
//
//===----------------------------------------------------------------------===//

#ifndef ASMEVO_SUITE_REFERENCE_ARRAYFILE_H
#define ASMEVO_SUITE_REFERENCE_ARRAYFILE_H

#include "HostBuffer.h"
#include "llvm/Support/Error.h"

namespace asmevo {
namespace suite {

/// Reads \p Path as \p Count elements of \p Type. A .npy file must have that
/// many elements and an item size equal to the type's (the dtype kind is not
/// checked: NumPy has no bfloat16, so bf16 arrive as '<u2' or '<V2'); a raw
/// file must have exactly Count * size bytes.
llvm::Expected<HostBuffer> readArrayFile(llvm::StringRef Path, ElemType Type,
                                         uint64_t Count);

/// Writes \p B as a one-dimensional .npy (bf16 as '<u2') or as raw bytes.
llvm::Error writeArrayFile(llvm::StringRef Path, const HostBuffer &B, bool Npy);

} // namespace suite
} // namespace asmevo

#endif
