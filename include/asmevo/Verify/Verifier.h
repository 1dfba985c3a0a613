//===- Verifier.h - Differential verification of K1 against K0 --*- C++ -*-===//
//
// K0 (the original) is the only oracle: K1 is run in the emulator on the
// same fresh inputs as K0, for several input seeds and every problem size
// of the launch spec, and every writable buffer must come back bit-exact.
// What the emulator cannot judge (an instruction it does not implement, a
// budget exhausted) is `unknown`, never `equivalent`.
//
// Mismatched inputs (a kernel missing from either object, a K1 whose
// target or kernel-argument layout differs from K0's) are errors, not
// verdicts: comparing them would be meaningless.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_VERIFY_VERIFIER_H
#define ASMEVO_VERIFY_VERIFIER_H

#include "asmevo/Emulator/LaunchSpec.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace llvm {
namespace json {
class Value;
}
} // namespace llvm

namespace asmevo {
class CodeObject;

namespace verify {

enum class Verdict { Equivalent, Different, Violation, Unknown };
llvm::StringRef verdictName(Verdict V);
/// Exit status of asmevo-verify check for a verdict (4 is an input error).
int verdictExitCode(Verdict V);

struct VerifyOptions {
  /// Input seeds per size: the spec's seed, then the next ones.
  unsigned Seeds = 3;
  /// Instruction budget per launch (all waves).
  uint64_t InstructionBudget = 1ull << 34;
};

/// One run: an input seed at a problem size under an interleaving.
struct RunConfig {
  uint64_t InputSeed = 0;
  unsigned Variant = 0;    ///< 0 = the spec's sizes, N = variants[N-1].
  uint64_t Interleave = 0; ///< Wave/workgroup interleaving seed.
};

struct Difference {
  RunConfig Run;
  std::string Buffer;
  uint64_t Index = 0;      ///< Element index.
  std::string K0Value, K1Value;
  bool InGuardBand = false;
  std::string Message;     ///< One line, for humans.
};

struct VerifyReport {
  Verdict V = Verdict::Equivalent;
  std::string Reason;      ///< Why the verdict is not `equivalent`.
  std::optional<Difference> FirstDifference;
  std::vector<RunConfig> Runs;
  /// Scalar values of each problem size that ran (variant -> name -> text).
  std::map<unsigned, std::map<std::string, std::string>> Sizes;
  std::set<std::string> Approximations;
  uint64_t K0Instructions = 0, K1Instructions = 0;
  double Seconds = 0;

  llvm::json::Value toJSON() const;
};

/// Errors for inputs that cannot be compared: kernels of \p Spec missing
/// from either object, differing targets or kernel-argument layouts.
llvm::Error checkComparable(const CodeObject &K0, const CodeObject &K1,
                            const emu::LaunchSpec &Spec);

/// Runs K0 and K1 over every seed and size; errors are input errors only.
llvm::Expected<VerifyReport> verify(const CodeObject &K0,
                                    const CodeObject &K1,
                                    const emu::LaunchSpec &Spec,
                                    const VerifyOptions &O);

} // namespace verify
} // namespace asmevo

#endif
