//===- BundleWriter.h - Writing offload bundles and fat binaries -*- C++ -*-===//
//
// The output side of OffloadBundle.h / HostBinary.h: a bundle file or a
// host binary whose device code objects were rebuilt. Bundles are written
// as their originals were (uncompressed, or compressed with the original's
// CCOB format version and method), each in the space its original
// occupied, so that every other byte of a host binary stays: a new payload
// goes into its entry's slot (the original offset, up to the next payload)
// when it fits, so that the other entries keep their offsets too; else the
// bundle is laid out afresh at its payload alignment. The last bundle may
// use the zero padding after .hip_fatbin. An uncompressed bundle that still
// does not fit is an error, unless compressing it is allowed.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_CODEOBJECT_BUNDLEWRITER_H
#define ASMEVO_CODEOBJECT_BUNDLEWRITER_H

#include "asmevo/CodeObject/OffloadBundle.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

struct BundleOutputEntry {
  std::string Id;
  llvm::ArrayRef<uint8_t> Data;
};

/// One uncompressed bundle; payloads aligned to \p Align.
std::vector<uint8_t> writeOffloadBundle(llvm::ArrayRef<BundleOutputEntry> E,
                                        uint64_t Align = 4096);

/// A compressed ("CCOB") bundle of format \p Version (1, 2 or 3) holding
/// \p Uncompressed, with \p Method (0 zlib, 1 zstd; default: zstd when LLVM
/// has it, else zlib); the header's hash is the low 64 bits of the MD5 of
/// the uncompressed bundle, as clang-offload-bundler writes it.
llvm::Expected<std::vector<uint8_t>>
compressOffloadBundle(llvm::ArrayRef<uint8_t> Uncompressed,
                      uint16_t Version = 3,
                      std::optional<uint16_t> Method = std::nullopt);

/// What an in-place rewrite did beyond replacing payloads.
struct InPlaceRewriteNotes {
  /// Bytes of the region in use afterwards: more than its original size
  /// when the last bundle spilled into the slack.
  uint64_t UsedSize = 0;
  /// One line per uncompressed bundle written compressed so that it fits.
  std::vector<std::string> Warnings;
};

/// Rewrites the bundles of \p Region (a bundle file, or a .hip_fatbin
/// section's contents), whose entries are \p Entries, replacing entry I's
/// payload with \p NewData[I] when that is non-empty. Without \p AllowGrowth
/// (a host binary's section) each bundle must fit in the space its original
/// occupied, the last one also in the \p Slack zero bytes after the region
/// (the result is then Region.size() + Slack bytes long); an uncompressed
/// bundle that no longer fits is written compressed if that fits, noted in
/// \p Notes. With \p AllowGrowth (a bundle file) later bundles move up as
/// needed. \p Where names the region in errors and warnings.
llvm::Expected<std::vector<uint8_t>> rewriteBundles(
    llvm::ArrayRef<uint8_t> Region, llvm::ArrayRef<BundleEntry> Entries,
    llvm::ArrayRef<std::vector<uint8_t>> NewData, llvm::StringRef Where,
    bool AllowGrowth, uint64_t Slack = 0, InPlaceRewriteNotes *Notes = nullptr,
    bool AllowCompress = false);

/// The host binary \p Bytes (named \p FileName) with the bundles of its
/// .hip_fatbin rewritten in place as rewriteBundles does: nothing else
/// moves. The section may grow into the zero padding after it (its sh_size
/// follows); with \p AllowCompress, bundles written compressed to fit are
/// reported, one line each, in \p Warnings.
llvm::Expected<std::vector<uint8_t>>
rewriteHostFatbin(llvm::StringRef Bytes, llvm::StringRef FileName,
                  llvm::ArrayRef<BundleEntry> Entries,
                  llvm::ArrayRef<std::vector<uint8_t>> NewData,
                  std::vector<std::string> &Warnings,
                  bool AllowCompress = false);

} // namespace asmevo

#endif
