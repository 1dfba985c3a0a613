//===- SpecProposal.h - A launch spec proposed from kernel metadata -*- C++ -*-//
//
// asmevo-verify spec-from-metadata: for a kernel whose metadata is complete
// (.args with offsets, sizes and value kinds that agree with the kernel
// descriptor), writes a launch spec (docs/launch-spec.md) the user can edit.
// The metadata never says how long a buffer is, what a problem size should
// be, or (often) what a pointer points to; every such value is a guess, and
// every guess is written down: listed at the top of the spec, commented
// where it is used, and returned so the tool can print it. Nothing is
// guessed silently.
//
// Hand-written kernels whose metadata does not describe their argument
// struct (no .args, or a descriptor kernarg_size of 0 as in AMD's aiter
// kernels) are refused: their spec needs `kernarg:` fields written by hand.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_VERIFY_SPECPROPOSAL_H
#define ASMEVO_VERIFY_SPECPROPOSAL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace asmevo {
class CodeObject;

namespace verify {

struct SpecProposal {
  std::string Kernel;              ///< Resolved kernel name.
  std::string YAML;                ///< The spec, guesses commented.
  std::vector<std::string> Guesses; ///< One line each, for stderr.
};

/// Proposes a launch spec for kernel \p Kernel of \p CO ("" picks the only
/// kernel; a trailing ".kd" is accepted).
llvm::Expected<SpecProposal> proposeLaunchSpec(const CodeObject &CO,
                                               llvm::StringRef Kernel);

} // namespace verify
} // namespace asmevo

#endif
