//===- VerifierMemo.h - Functions the MachineVerifier accepted --*- C++ -*-===//
//
// The MachineVerifier runs on every lifted function (the lift gate) and on
// every function after every pass (--verify-each), and the optimizer's
// subset search lifts K0 again for each candidate: most of those runs see
// a function exactly as the verifier already accepted it. Its verdict is a
// function of the code (FunctionKey.h) and the subtarget, so a function
// whose key was accepted before is accepted again without the run. Only
// acceptances are kept: a rejection is rare and its message is wanted.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_LIFT_VERIFIERMEMO_H
#define ASMEVO_LIB_LIFT_VERIFIERMEMO_H

#include <cstdint>
#include <optional>
#include <vector>

namespace llvm {
class MachineFunction;
}

namespace asmevo {

class VerifierMemo {
public:
  /// \p MF's key (with its subtarget), or none when it cannot be keyed.
  /// \p FnKey: \p MF's FunctionKey when the caller has it.
  static std::optional<std::vector<uint64_t>>
  keyOf(const llvm::MachineFunction &MF,
        const std::vector<uint64_t> *FnKey = nullptr);
  static bool accepted(const std::vector<uint64_t> &Key);
  static void remember(std::vector<uint64_t> Key);
};

} // namespace asmevo

#endif
