//===- OffloadBundle.h - Clang offload bundle reader ------------*- C++ -*-===//
//
// Part of AsmEvo, a post-link optimizer for AMD GPU code objects.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Reads clang offload bundles: the container clang-offload-bundler writes
/// around the per-target device code objects of a HIP (or OpenMP) program.
///
/// Two on-disk forms are handled:
///
/// * Uncompressed ("__CLANG_OFFLOAD_BUNDLE__"): the 24-byte magic, a uint64
///   entry count, then per entry a uint64 payload offset, a uint64 payload
///   size, a uint64 id length and the id bytes. Payload offsets are relative
///   to the start of the bundle. All integers are little-endian.
///
/// * Compressed ("CCOB"), format versions 1, 2 and 3: a small header followed
///   by a zlib or zstd stream that decompresses to an uncompressed bundle.
///
/// A `.hip_fatbin` section of a linked host binary holds several bundles
/// stored back to back (one per translation unit), separated by zero padding
/// up to the section alignment; readOffloadBundles() reads all of them.
///
/// Every failure caused by the input is reported as an llvm::Error naming the
/// file, the byte offset and what was wrong; hostile input never crashes.
///
//===----------------------------------------------------------------------===//

#ifndef ASMEVO_CODEOBJECT_OFFLOADBUNDLE_H
#define ASMEVO_CODEOBJECT_OFFLOADBUNDLE_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

/// One entry of an offload bundle.
struct BundleEntry {
  /// The id as stored, e.g. "hipv4-amdgcn-amd-amdhsa--gfx942:xnack-".
  std::string Id;
  /// Offload kind: "hipv4", "hip", "openmp", "host", ...
  std::string Kind;
  /// "arch-vendor-os[-environment]", e.g. "amdgcn-amd-amdhsa" or
  /// "x86_64-unknown-linux-gnu". An empty or "unknown" environment is omitted.
  std::string Triple;
  /// Target id, e.g. "gfx942:xnack-"; empty for host entries.
  std::string TargetID;
  /// Offset of the payload within its (decompressed) bundle.
  uint64_t Offset = 0;
  /// Offset in the input buffer where the bundle holding this entry starts.
  uint64_t BundleOffset = 0;
  /// True if the bundle holding this entry was a compressed ("CCOB") bundle.
  bool WasCompressed = false;
  /// Of a compressed bundle: its header's format version (1, 2 or 3) and
  /// method (0 zlib, 1 zstd), which a rewrite keeps.
  uint16_t CompressedVersion = 0;
  uint16_t CompressionMethod = 0;
  /// Owns the decompressed bundle when WasCompressed; shared by all entries of
  /// that bundle. Null for entries of uncompressed bundles.
  std::shared_ptr<std::vector<uint8_t>> Storage;
  /// The payload (a code object for device entries). Points into Storage when
  /// WasCompressed, otherwise into the caller's input buffer, which must
  /// outlive this entry.
  llvm::ArrayRef<uint8_t> Data;
};

/// The components of a bundle entry id.
struct BundleIdParts {
  std::string Kind;
  std::string Triple;
  std::string TargetID;
};

/// Parses a bundle entry id leniently. Accepted forms include the current
/// "hipv4-amdgcn-amd-amdhsa--gfx942:xnack-" and
/// "host-x86_64-unknown-linux-gnu-", and older ones without an environment
/// ("host-x86_64-unknown-linux") or with the target id joined by a single
/// '-' ("hip-amdgcn-amd-amdhsa-gfx906"). Returns std::nullopt if the id does
/// not have at least a kind and an arch-vendor-os triple.
std::optional<BundleIdParts> parseBundleId(llvm::StringRef Id);

/// True if \p Bytes starts with the uncompressed ("__CLANG_OFFLOAD_BUNDLE__")
/// or compressed ("CCOB") bundle magic.
bool looksLikeOffloadBundle(llvm::StringRef Bytes);

/// Reads one or more bundles stored back to back in \p Bytes, optionally
/// separated by zero padding. Errors are reported as
/// "<FileName>: offset 0x<N>: <what>". Entries of uncompressed bundles point
/// into \p Bytes.
llvm::Expected<std::vector<BundleEntry>>
readOffloadBundles(llvm::StringRef Bytes, llvm::StringRef FileName);

/// As above, for bundles held in a named region of the file (e.g. the
/// ".hip_fatbin" section): errors are reported as
/// "<FileName>: <RegionName>+0x<N>: <what>", with N relative to \p Bytes.
llvm::Expected<std::vector<BundleEntry>>
readOffloadBundles(llvm::StringRef Bytes, llvm::StringRef FileName,
                   llvm::StringRef RegionName);

} // namespace asmevo

#endif // ASMEVO_CODEOBJECT_OFFLOADBUNDLE_H
