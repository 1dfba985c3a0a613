//===- HostBinary.h - HIP fat binaries in host ELF files --------*- C++ -*-===//
//
// Part of AsmEvo, a post-link optimizer for AMD GPU code objects.
//
//===----------------------------------------------------------------------===//
///
/// \file
/// Finds the device code embedded in a HIP host binary (an x86-64 ELF
/// executable, shared library or relocatable object): the `.hip_fatbin`
/// section, which holds one or more clang offload bundles.
///
//===----------------------------------------------------------------------===//

#ifndef ASMEVO_CODEOBJECT_HOSTBINARY_H
#define ASMEVO_CODEOBJECT_HOSTBINARY_H

#include "asmevo/CodeObject/OffloadBundle.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace asmevo {

/// Where the `.hip_fatbin` section of a host ELF file is.
struct HipFatbinSection {
  /// The section contents; points into the input buffer.
  llvm::StringRef Contents;
  /// sh_offset: where the contents start in the file.
  uint64_t FileOffset = 0;
  /// sh_addr: the section's virtual address (0 in relocatable objects).
  uint64_t Address = 0;
  /// sh_addralign.
  uint64_t Alignment = 0;
  /// Zero bytes right after the section that the same PT_LOAD segment maps
  /// and no section, segment or header table uses: room the section may grow
  /// into without moving anything. 0 when unknown (relocatable objects,
  /// non-ELF64LE files, non-zero filler).
  uint64_t Slack = 0;
  /// File offset of the section header's sh_size field (ELF64LE only), to be
  /// updated when the section grows into its slack; 0 when there is none.
  uint64_t SizeFieldOffset = 0;
};

/// True if \p Bytes looks like an ELF file that is not an AMDGPU code object,
/// i.e. a host binary that may carry a `.hip_fatbin` section.
bool looksLikeHostELF(llvm::StringRef Bytes);

/// Locates the `.hip_fatbin` section of the host ELF file \p Bytes.
llvm::Expected<HipFatbinSection> findHipFatbinSection(llvm::StringRef Bytes,
                                                      llvm::StringRef FileName);

/// Finds `.hip_fatbin` in the host ELF file \p Bytes and reads all bundles in
/// it. BundleEntry::BundleOffset is relative to the start of the section;
/// add HipFatbinSection::FileOffset for a file offset. Errors read
/// "<FileName>: .hip_fatbin+0x<N>: <what>".
llvm::Expected<std::vector<BundleEntry>>
readHostFatbin(llvm::StringRef Bytes, llvm::StringRef FileName);

} // namespace asmevo

#endif // ASMEVO_CODEOBJECT_HOSTBINARY_H
