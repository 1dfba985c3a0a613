//===- PCProfile.h - rocprofv3 PC-sampling files ----------------*- C++ -*-===//
//
// Samples from real hardware, as rocprofv3 writes them. The JSON form gives
// each sample's PC as (code_object_id, code_object_offset), which maps
// exactly onto the code object's addresses. The CSV form (host-trap:
// Sample_Timestamp, Exec_Mask, Dispatch_Id, Instruction,
// Instruction_Comment, Correlation_Id; stochastic adds
// Wave_Issued_Instruction, Instruction_Type, Stall_Reason, Wave_Count)
// gives only the instruction's text: it can be placed only where that text
// occurs once in the kernel (HotWindows.h), and the rest is reported as
// unplaced, never guessed.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SEARCH_PCPROFILE_H
#define ASMEVO_SEARCH_PCPROFILE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <string>
#include <utility>

namespace asmevo {

struct PCProfile {
  enum class Format { JSON, CSV };
  Format Form = Format::JSON;
  /// "host_trap" or "stochastic" (CSV: from the columns; JSON: from the
  /// record kind when it says, else empty).
  std::string Method;
  uint64_t Samples = 0;
  /// JSON: samples per (code_object_id, code_object_offset).
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> ByPC;
  /// Samples whose PC lies in no code object (code_object_id 0).
  uint64_t NoCodeObject = 0;
  /// CSV: samples per instruction text (as anchors normalize it, comments
  /// dropped).
  std::map<std::string, uint64_t> ByText;
  /// CSV, stochastic: samples whose wave did not issue, per stall reason.
  std::map<std::string, uint64_t> StallReasons;
};

/// Reads \p Path; the format is told by the content (a JSON value or a CSV
/// header), not the name.
llvm::Expected<PCProfile> readPCProfile(llvm::StringRef Path);
llvm::Expected<PCProfile> parsePCProfile(llvm::StringRef Text,
                                         llvm::StringRef Name);

/// An instruction's text without a trailing "//" or ";" comment (the
/// profiler's disassembly adds target addresses there).
llvm::StringRef stripAsmComment(llvm::StringRef Text);

} // namespace asmevo

#endif
