//===- FunctionKey.h - A MachineFunction spelled out word by word -*- C++ -*-//
//
// What lets a result computed from a MachineFunction be reused for another
// one with the same content (AnalysisCache, the verifier's verdicts) or a
// pass be known to have left a function alone: every block in layout order
// with its number, alignment, edges and their probabilities and live-ins,
// every instruction with its flags, original-address symbol and operands.
// Two functions with equal keys are the same code as far as any analysis
// or the MachineVerifier can tell. An operand kind or memory operand the
// key does not spell exactly makes the function unkeyable (false), and
// then nothing may be reused.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIFT_FUNCTIONKEY_H
#define ASMEVO_LIFT_FUNCTIONKEY_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <vector>

namespace llvm {
class MachineFunction;
}

namespace asmevo {

/// Appends \p MF's key to \p W; false (W partly filled) when it has none.
bool appendFunctionKey(std::vector<uint64_t> &W, const llvm::MachineFunction &MF);

/// \p MF's key alone.
std::optional<std::vector<uint64_t>>
functionKey(const llvm::MachineFunction &MF);

/// Appends \p S (length, then 8 bytes a word).
void appendKeyString(std::vector<uint64_t> &W, llvm::StringRef S);

/// A 64-bit digest of a key, for hash tables (never compared alone).
uint64_t keyDigest(const std::vector<uint64_t> &W);

} // namespace asmevo

#endif
