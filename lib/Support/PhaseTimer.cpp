//===- PhaseTimer.cpp -----------------------------------------------------===//
#include "asmevo/Support/PhaseTimer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <mutex>
#include <vector>

using namespace llvm;

namespace asmevo {

bool PhaseTimer::On = false;

namespace {
struct Line {
  double Seconds = 0;
  uint64_t Calls = 0;
};
struct Table {
  std::mutex M;
  StringMap<Line> Phases;
  StringMap<uint64_t> Counters;
};
Table &table() {
  static Table T;
  return T;
}
} // namespace

void PhaseTimer::enable(bool Enable) { On = Enable; }

void PhaseTimer::add(StringRef Phase, double Seconds) {
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  Line &E = T.Phases[Phase];
  E.Seconds += Seconds;
  ++E.Calls;
}

void PhaseTimer::count(StringRef Name, uint64_t N) {
  if (!On)
    return;
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  T.Counters[Name] += N;
}

void PhaseTimer::print(raw_ostream &OS, double Total) {
  Table &T = table();
  std::lock_guard<std::mutex> L(T.M);
  std::vector<std::pair<StringRef, Line>> Rows;
  for (const auto &E : T.Phases)
    Rows.push_back({E.getKey(), E.getValue()});
  llvm::sort(Rows, [](const auto &A, const auto &B) {
    return A.second.Seconds != B.second.Seconds
               ? A.second.Seconds > B.second.Seconds
               : A.first < B.first;
  });
  OS << "=== time per phase (wall; nested phases also count in the "
        "enclosing one) ===\n";
  OS << format("%10s %7s %10s  %s\n", "seconds", "%", "calls", "phase");
  for (const auto &[Name, E] : Rows)
    OS << format("%10.3f %6.1f%% %10llu  ", E.Seconds,
                 Total > 0 ? 100 * E.Seconds / Total : 0.0,
                 (unsigned long long)E.Calls)
       << Name << "\n";
  OS << format("%10.3f %6.1f%% %10s  ", Total, 100.0, "") << "total\n";
  if (!T.Counters.empty()) {
    std::vector<std::pair<StringRef, uint64_t>> Cs;
    for (const auto &E : T.Counters)
      Cs.push_back({E.getKey(), E.getValue()});
    llvm::sort(Cs);
    for (const auto &[Name, N] : Cs)
      OS << format("%10llu  ", (unsigned long long)N) << Name << "\n";
  }
}

} // namespace asmevo
