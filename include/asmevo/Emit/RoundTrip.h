//===- RoundTrip.h - Comparing a rebuilt code object with its input -*- C++ -*-===//
#ifndef ASMEVO_EMIT_ROUNDTRIP_H
#define ASMEVO_EMIT_ROUNDTRIP_H

#include "asmevo/CodeObject/CodeObject.h"
#include <string>
#include <vector>

namespace asmevo {

struct FunctionDiff {
  std::string Name;
  uint64_t Instructions = 0;
  bool Identical = true;
  std::string Why; ///< First difference and its cause.
};

struct RoundTripReport {
  bool TextIdentical = true;
  bool DescriptorsIdentical = true;
  bool NoteIdentical = true;
  bool SectionAddressesIdentical = true;
  bool SymbolValuesIdentical = true;
  bool FileIdentical = true;
  std::vector<FunctionDiff> Functions;
  std::vector<std::string> Differences; ///< Human-readable, one per line.

  bool contentIdentical() const {
    return TextIdentical && DescriptorsIdentical && NoteIdentical &&
           SectionAddressesIdentical && SymbolValuesIdentical;
  }
};

/// Compares \p New against \p Old. \p InstrCounts gives, per code range of
/// Old (same order), how many instructions it has.
RoundTripReport compareCodeObjects(const CodeObject &Old, const CodeObject &New,
                                   const std::vector<uint64_t> &InstrCounts);

} // namespace asmevo

#endif
