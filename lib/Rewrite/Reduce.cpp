//===- Reduce.cpp - Delta debugging over passes and rewrites --------------===//
#include "asmevo/Rewrite/Reduce.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace asmevo {

namespace {
class Reducer {
public:
  Reducer(const CodeObject &K0, const OptimizeOptions &O, ReduceResult &R)
      : K0(K0), O(O), R(R) {}

  /// Builds and judges \p Passes with the rewrite subsets of \p Only (a
  /// pass not in it applies every rewrite). True when the candidate fails
  /// for correctness; sets Reason/Check/Edits of the last failure.
  Expected<bool> fails(const std::vector<std::string> &Passes,
                       const std::map<std::string, std::set<unsigned>> &Only,
                       std::map<std::string, unsigned> *Counts = nullptr);

  /// ddmin over \p Items: a 1-minimal subset for which \p Test holds.
  template <typename T>
  Expected<std::vector<T>>
  ddmin(std::vector<T> Items,
        function_ref<Expected<bool>(const std::vector<T> &)> Test);

  const CodeObject &K0;
  const OptimizeOptions &O;
  ReduceResult &R;
};
} // namespace

Expected<bool>
Reducer::fails(const std::vector<std::string> &Passes,
               const std::map<std::string, std::set<unsigned>> &Only,
               std::map<std::string, unsigned> *Counts) {
  ++R.Builds;
  std::map<std::string, std::unique_ptr<RewriteFilter>> Filters;
  PipelineOptions PO;
  for (const std::string &P : Passes) {
    auto It = Only.find(P);
    Filters[P] = It == Only.end() ? std::make_unique<RewriteFilter>()
                                  : std::make_unique<RewriteFilter>(It->second);
    PO.Filters[P] = Filters[P].get();
  }
  CandidateOptions CO;
  CO.Print = PO;
  auto C = buildCandidate(K0, Passes, O.Lift, CO);
  if (Counts)
    for (auto &[P, F] : Filters)
      (*Counts)[P] = F->seen();
  if (!C) {
    R.Check = "static";
    R.Reason = toString(C.takeError());
    R.Edits.clear();
    return true;
  }
  if (!C->Changed)
    return false;
  auto G = runGate(K0, *C->CO, C->Map, O.Gate);
  if (!G)
    return G.takeError();
  if (G->Check == "verify" || (G->Check == "static" && !G->Accepted &&
                               O.Gate.Spec)) {
    R.Check = G->Check;
    R.Reason = G->Reason;
    R.Edits = G->Edits;
    return true;
  }
  return false;
}

template <typename T>
Expected<std::vector<T>>
Reducer::ddmin(std::vector<T> Items,
               function_ref<Expected<bool>(const std::vector<T> &)> Test) {
  size_t N = 2;
  while (Items.size() >= 2) {
    size_t Chunk = (Items.size() + N - 1) / N;
    bool Reduced = false;
    // Complements first: removing a chunk that is not needed.
    for (size_t Start = 0; Start < Items.size(); Start += Chunk) {
      std::vector<T> Rest;
      for (size_t I = 0; I < Items.size(); ++I)
        if (I < Start || I >= Start + Chunk)
          Rest.push_back(Items[I]);
      auto F = Test(Rest);
      if (!F)
        return F.takeError();
      if (*F) {
        Items = std::move(Rest);
        N = std::max<size_t>(N - 1, 2);
        Reduced = true;
        break;
      }
    }
    if (Reduced)
      continue;
    if (N >= Items.size())
      break;
    N = std::min(Items.size(), N * 2);
  }
  return std::move(Items);
}

Expected<ReduceResult> reduceFailure(const CodeObject &K0,
                                     const OptimizeOptions &Given) {
  // Every reduction step is gated against this K0: its trace is taken once.
  OptimizeOptions O = Given;
  O.Gate.Memo = makeGateMemo();
  ReduceResult R;
  Reducer Red(K0, O, R);
  std::map<std::string, unsigned> Counts;
  auto Whole = Red.fails(O.Passes, {}, &Counts);
  if (!Whole)
    return Whole.takeError();
  if (!*Whole)
    return std::move(R);
  R.Failed = true;
  // The passes.
  auto Passes = Red.ddmin<std::string>(
      O.Passes, [&](const std::vector<std::string> &P) -> Expected<bool> {
        if (P.empty())
          return false;
        return Red.fails(P, {});
      });
  if (!Passes)
    return Passes.takeError();
  R.Passes = *Passes;
  // Within each pass, its rewrites (the other passes apply theirs all).
  std::map<std::string, std::set<unsigned>> Only;
  Counts.clear();
  if (auto F = Red.fails(R.Passes, {}, &Counts); !F)
    return F.takeError();
  R.RewriteCounts = Counts;
  for (const std::string &P : R.Passes) {
    unsigned N = Counts[P];
    if (N == 0)
      continue;
    std::vector<unsigned> All(N);
    for (unsigned I = 0; I < N; ++I)
      All[I] = I;
    auto Min = Red.ddmin<unsigned>(
        All, [&](const std::vector<unsigned> &Sub) -> Expected<bool> {
          auto Try = Only;
          Try[P] = std::set<unsigned>(Sub.begin(), Sub.end());
          return Red.fails(R.Passes, Try);
        });
    if (!Min)
      return Min.takeError();
    Only[P] = std::set<unsigned>(Min->begin(), Min->end());
  }
  R.Rewrites = Only;
  // All together, once more: the answer must reproduce as stated.
  auto Final = Red.fails(R.Passes, Only);
  if (!Final)
    return Final.takeError();
  R.Confirmed = *Final;
  return std::move(R);
}

void printReduceResult(raw_ostream &OS, const ReduceResult &R) {
  if (!R.Failed) {
    OS << "reduce: the candidate does not fail the verify or static check; "
          "nothing to reduce\n";
    return;
  }
  OS << "reduce: " << R.Builds << " candidates built and judged\n";
  OS << "reduce: failing passes: " << join(R.Passes, ",") << "\n";
  for (const auto &[P, Set] : R.Rewrites) {
    OS << "reduce: pass " << P << ": rewrite";
    OS << (Set.size() == 1 ? " #" : "s #");
    bool First = true;
    for (unsigned I : Set) {
      OS << (First ? "" : ", #") << I;
      First = false;
    }
    auto C = R.RewriteCounts.find(P);
    if (C != R.RewriteCounts.end())
      OS << " of " << C->second;
    OS << "\n";
  }
  OS << "reduce: " << (R.Confirmed ? "confirmed together" : "NOT reproduced together")
     << ": " << R.Check << ": " << R.Reason << "\n";
  for (const std::string &E : R.Edits)
    OS << "reduce:   edit " << E << "\n";
}

} // namespace asmevo
