//===- Verifier.h - Differential verification of K1 against K0 --*- C++ -*-===//
//
// K0 (the original) is the only oracle: K1 is run in the emulator on the
// same fresh inputs as K0 for every run of the plan (RunPlan.h), and every
// writable buffer and guard band must come back bit-exact, or within the
// tolerance the spec states for that buffer. `unknown`, never
// `equivalent`, when the emulator cannot judge: an instruction it does
// not implement, a budget exhausted, K0 misbehaving or not deterministic
// on an undeclared buffer, an edited instruction no run executed, or an
// edit only real memory could judge (EditSet.h).
//
// Mismatched inputs (a kernel missing from either object, a K1 whose
// target or kernel-argument layout differs from K0's) are errors, not
// verdicts: comparing them would be meaningless.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_VERIFY_VERIFIER_H
#define ASMEVO_VERIFY_VERIFIER_H

#include "asmevo/Emulator/LaunchSession.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Verify/EditSet.h"
#include "asmevo/Verify/ObjectDiff.h"
#include "asmevo/Verify/RunPlan.h"
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
struct KernelInfo;

namespace verify {
class HsaDevice;

enum class Verdict { Equivalent, Different, Violation, Unknown };
llvm::StringRef verdictName(Verdict V);
/// Exit status of asmevo-verify check for a verdict (4 is an input error).
int verdictExitCode(Verdict V);

struct VerifyOptions {
  /// Input seeds per size: the spec as written, then varied inputs and
  /// drawn parameters (RunPlan.h).
  unsigned Seeds = 3;
  /// Extra runs whose sizes are drawn from the spec's ranges.
  unsigned RandomSizes = 8;
  /// Run K0 under a second interleaving to find buffers on which the
  /// oracle itself is not deterministic.
  bool CheckDeterminism = true;
  /// Require every edited instruction to have executed.
  bool CheckCoverage = true;
  /// asmevo-opt's address map of K1, when the caller has one.
  const AddressMap *Map = nullptr;
  /// Edit classes the user accepts although runs cannot judge them.
  std::set<EditClass> Accepted;
  /// Descriptor and metadata fields the user accepts although runs cannot
  /// judge them ("descriptor:priority", "metadata:.sgpr_count").
  std::set<std::string> AcceptedFields;
  /// Instruction budget per launch (all waves).
  uint64_t InstructionBudget = 1ull << 34;
  /// Device memory a spec's buffers may take (`--max-device-memory`).
  uint64_t MaxDeviceMemory = emu::DefaultMaxDeviceMemory;
  /// Run K0 and K1 on this GPU instead of the emulator (HsaBackend.h).
  HsaDevice *Device = nullptr;
};

struct Difference {
  RunConfig Run;
  std::string Buffer;
  uint64_t Index = 0;      ///< Element index.
  std::string K0Value, K1Value;
  std::string Message;     ///< One line, for humans.
};

/// A buffer on which K0 gave different results under two interleavings.
struct NondeterministicBuffer {
  std::string Buffer;
  unsigned Variant = 0;
  uint64_t Index = 0;
  std::string First, Second;
  bool Declared = false;   ///< The spec says so and gives a tolerance.
};

struct VerifyReport {
  Verdict V = Verdict::Equivalent;
  std::string Reason;      ///< Why the verdict is not `equivalent`.
  /// Every reason for `unknown` found (the first is Reason).
  std::vector<std::string> UnknownReasons;
  std::optional<Difference> FirstDifference;
  std::vector<RunConfig> Runs;
  /// Scalar values of each run that ran, by run index.
  std::vector<std::map<std::string, std::string>> RunScalars;
  /// Buffers whose inputs each run varied (RunConfig::Inputs), by run.
  std::vector<std::vector<std::string>> RunVaried;
  std::set<std::string> Approximations;
  uint64_t K0Instructions = 0, K1Instructions = 0;
  EditSet Edits;
  /// Addresses of K1 instructions executed by some run.
  std::set<uint64_t> K1Executed;
  std::vector<NondeterministicBuffer> Nondeterministic;
  std::set<EditClass> Accepted;
  /// Every descriptor and metadata field in which K1 differs from K0.
  std::vector<ObjectDifference> ObjectDiffs;
  /// Notes a reviewer should see although they do not change the verdict.
  std::vector<std::string> Flags;
  /// Hazard rule -> distinct sites (consumer, producer) K0 hit in the runs,
  /// and how many of them K1 kept (K1 may keep K0's hazards, no others).
  std::map<std::string, unsigned> K0HazardSites, KeptHazardSites;
  double Seconds = 0;
  /// "emu", or the GPU (agent and ISA) the hsa backend ran on.
  std::string Backend = "emu";

  llvm::json::Value toJSON() const;
};

/// Errors for inputs that cannot be compared: kernels of \p Spec missing
/// from either object, differing targets or kernel-argument layouts.
llvm::Error checkComparable(const CodeObject &K0, const CodeObject &K1,
                            const emu::LaunchSpec &Spec);

/// The kernel a spec's `kernel:` names in \p CO: by name, or by index.
const KernelInfo *resolveLaunchedKernel(const CodeObject &CO,
                                        llvm::StringRef Name);

/// Runs K0 and K1 over every seed and size; errors are input errors only.
llvm::Expected<VerifyReport> verify(const CodeObject &K0,
                                    const CodeObject &K1,
                                    const emu::LaunchSpec &Spec,
                                    const VerifyOptions &O);

} // namespace verify
} // namespace asmevo

#endif
