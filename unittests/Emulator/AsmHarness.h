//===- AsmHarness.h - Run a few hand-written instructions -------*- C++ -*-===//
//
// Assembles a kernel around a snippet (llvm-mc + ld.lld from the LLVM
// installation), runs one workgroup of it in the emulator and returns the
// registers the test asked for, per lane. The wrapper provides:
//   s[0:1]   kernarg pointer          s[20:21] output buffer
//   s[22:23] input buffer: dword i = 0x1000 + i (64 KiB)
//   v0       work-item id (lane id in a 64-wide block)
//   v63      lane * 4 (used by the result stores)
// Snippets may use v1-v60, s2-s19, s24-s95, LDS (64 KiB) and 256 bytes of
// scratch per lane.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_UNITTESTS_EMULATOR_ASMHARNESS_H
#define ASMEVO_UNITTESTS_EMULATOR_ASMHARNESS_H

#include "asmevo/Emulator/Emulator.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace asmevo {
namespace emu {
namespace test {

struct SnippetResult {
  /// Per requested register: 64 lane values (SGPRs: the same in all).
  std::vector<std::vector<uint32_t>> Regs;
  RunResult Run;
  std::string Error; ///< Assembly or launch failure.
};

struct SnippetOptions {
  std::string Arch = "gfx942";
  unsigned BlockSize = 64;
  RunOptions Run;
  /// Extra directives inside .amdhsa_kernel.
  std::string Directives;
  /// Input buffer contents (dwords); empty: dword i = 0x1000 + i.
  std::vector<uint32_t> Input;
};

/// Runs \p Body and reads back \p Regs ("v5", "s7", "vcc_lo", ...).
SnippetResult runSnippet(llvm::StringRef Body,
                         const std::vector<std::string> &Regs,
                         const SnippetOptions &O = SnippetOptions());

/// Assembles \p Source (a complete .s file) into a linked code object;
/// returns its path, or "" and sets \p Err.
std::string assemble(llvm::StringRef Source, llvm::StringRef Arch,
                     std::string &Err);

} // namespace test
} // namespace emu
} // namespace asmevo

#endif
