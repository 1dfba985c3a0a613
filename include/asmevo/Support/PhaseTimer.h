//===- PhaseTimer.h - Wall time per phase, for --time-phases ----*- C++ -*-===//
//
// Where a run spends its time, by phase ("lift", "pass: scalarize",
// "verify-each: sites", "analysis: hazards", ...): wall time and calls,
// summed over the run. Nested phases are counted in their own line and in
// the enclosing one (as -time-passes does not, but as a profile's
// "children" column does), so the lines do not add up to the total.
//
// Off by default, when a PhaseScope costs one branch. The switch is a
// plain flag rather than a cl::opt because the in-process lld link resets
// every cl::opt of the process.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SUPPORT_PHASETIMER_H
#define ASMEVO_SUPPORT_PHASETIMER_H

#include "llvm/ADT/StringRef.h"
#include <chrono>
#include <cstdint>

namespace llvm {
class raw_ostream;
}

namespace asmevo {

class PhaseTimer {
public:
  static void enable(bool On = true);
  static bool enabled() { return On; }
  /// Adds one call of \p Phase lasting \p Seconds.
  static void add(llvm::StringRef Phase, double Seconds);
  /// Adds \p N to the counter \p Name (cache hits and the like), printed
  /// after the phases.
  static void count(llvm::StringRef Name, uint64_t N = 1);
  /// The table, slowest phase first; \p Total is the run's wall time.
  static void print(llvm::raw_ostream &OS, double Total);

private:
  static bool On;
};

/// Times the enclosing scope as one call of \p Phase (a string literal or
/// anything that outlives the scope).
class PhaseScope {
public:
  explicit PhaseScope(llvm::StringRef Phase) : Phase(Phase) {
    if (PhaseTimer::enabled())
      Start = std::chrono::steady_clock::now();
  }
  ~PhaseScope() {
    if (PhaseTimer::enabled())
      PhaseTimer::add(Phase, std::chrono::duration<double>(
                                 std::chrono::steady_clock::now() - Start)
                                 .count());
  }
  PhaseScope(const PhaseScope &) = delete;
  PhaseScope &operator=(const PhaseScope &) = delete;

private:
  llvm::StringRef Phase;
  std::chrono::steady_clock::time_point Start;
};

} // namespace asmevo

#endif
