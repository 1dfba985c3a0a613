//===- FuzzCommon.h - Shared bits of the libFuzzer targets ------*- C++ -*-===//
//
// Every target takes the fuzzer's bytes through the same entry the tools
// use, and treats an llvm::Error as the expected outcome: only a crash, a
// sanitizer report or an abort counts as a finding.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_FUZZ_FUZZCOMMON_H
#define ASMEVO_FUZZ_FUZZCOMMON_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>

namespace asmevo {
namespace fuzz {

/// Drops an error or a value: the fuzzer only looks for crashes.
template <typename T> void ignore(llvm::Expected<T> E) {
  if (!E)
    llvm::consumeError(E.takeError());
}
inline void ignore(llvm::Error E) { llvm::consumeError(std::move(E)); }

/// Writes \p Bytes to a per-process file ending in \p Suffix, for readers
/// that only take a path; returns the path.
std::string writeScratchFile(llvm::StringRef Bytes, llvm::StringRef Suffix);

inline llvm::StringRef asStringRef(const uint8_t *Data, size_t Size) {
  return llvm::StringRef(reinterpret_cast<const char *>(Data), Size);
}

} // namespace fuzz
} // namespace asmevo

#endif
