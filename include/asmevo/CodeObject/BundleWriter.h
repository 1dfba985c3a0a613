//===- BundleWriter.h - Writing offload bundles and fat binaries -*- C++ -*-===//
//
// The output side of OffloadBundle.h / HostBinary.h: a bundle file or a
// host binary whose device code objects were rebuilt. Bundles are written
// as their originals were (uncompressed, or compressed as CCOB version 3),
// each in the slot its original occupied, so that a host binary's
// .hip_fatbin keeps its size and every other byte of the host file stays.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_CODEOBJECT_BUNDLEWRITER_H
#define ASMEVO_CODEOBJECT_BUNDLEWRITER_H

#include "asmevo/CodeObject/OffloadBundle.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace asmevo {

struct BundleOutputEntry {
  std::string Id;
  llvm::ArrayRef<uint8_t> Data;
};

/// One uncompressed bundle; payloads aligned to \p Align.
std::vector<uint8_t> writeOffloadBundle(llvm::ArrayRef<BundleOutputEntry> E,
                                        uint64_t Align = 4096);

/// A compressed ("CCOB" version 3) bundle holding \p Uncompressed: zstd
/// when LLVM has it, else zlib; the header's hash is the low 64 bits of the
/// MD5 of the uncompressed bundle, as clang-offload-bundler writes it.
llvm::Expected<std::vector<uint8_t>>
compressOffloadBundle(llvm::ArrayRef<uint8_t> Uncompressed);

/// Rewrites the bundles of \p Region (a bundle file, or a .hip_fatbin
/// section's contents), whose entries are \p Entries, replacing entry I's
/// payload with \p NewData[I] when that is non-empty. Without \p AllowGrowth
/// (a host binary's section) each bundle must fit in the space its original
/// occupied; with it (a bundle file) later bundles move up as needed.
/// \p Where names the region in errors.
llvm::Expected<std::vector<uint8_t>>
rewriteBundles(llvm::ArrayRef<uint8_t> Region,
               llvm::ArrayRef<BundleEntry> Entries,
               llvm::ArrayRef<std::vector<uint8_t>> NewData,
               llvm::StringRef Where, bool AllowGrowth);

} // namespace asmevo

#endif
