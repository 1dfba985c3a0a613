//===- Evolve.cpp - asmevo-opt --evolve: a search over pass sequences -----===//
#include "asmevo/Rewrite/Evolve.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Search/LineageStore.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"
#include <chrono>
#include <map>
#include <set>

using namespace llvm;

namespace asmevo {
namespace {

/// SplitMix64: a candidate's stream depends on (seed, id) only.
class CandidateRNG {
public:
  CandidateRNG(uint64_t Seed, uint64_t Id)
      : State(Seed * 0x9e3779b97f4a7c15ULL ^ (Id + 1) * 0xbf58476d1ce4e5b9ULL) {}
  uint64_t next() {
    uint64_t Z = (State += 0x9e3779b97f4a7c15ULL);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebULL;
    return Z ^ (Z >> 31);
  }
  size_t below(size_t N) { return N ? next() % N : 0; }

private:
  uint64_t State;
};

struct Proposal {
  std::string Strategy;
  std::vector<std::string> Passes;
};

/// One mutation of \p Parent drawn from \p Pool.
Proposal mutate(CandidateRNG &R, ArrayRef<std::string> Parent,
                ArrayRef<std::string> Pool) {
  Proposal P{"", std::vector<std::string>(Parent.begin(), Parent.end())};
  switch (R.below(5)) {
  case 0:
    P.Strategy = "add";
    P.Passes.insert(P.Passes.begin() + R.below(P.Passes.size() + 1),
                    Pool[R.below(Pool.size())]);
    break;
  case 1:
    P.Strategy = "drop";
    if (!P.Passes.empty())
      P.Passes.erase(P.Passes.begin() + R.below(P.Passes.size()));
    break;
  case 2:
    P.Strategy = "swap";
    if (P.Passes.size() > 1) {
      size_t I = R.below(P.Passes.size() - 1);
      std::swap(P.Passes[I], P.Passes[I + 1]);
    }
    break;
  case 3:
    // Passes that expose work for each other (an unroll, then a
    // schedule) may gain from a second run.
    P.Strategy = "repeat";
    if (!P.Passes.empty()) {
      size_t I = R.below(P.Passes.size());
      P.Passes.insert(P.Passes.begin() + I + 1, P.Passes[I]);
    }
    break;
  default:
    P.Strategy = "fresh";
    P.Passes.clear();
    for (const std::string &Pass : Pool)
      if (R.below(2))
        P.Passes.push_back(Pass);
    break;
  }
  return P;
}

/// Robustly faster than \p Best: >= 1% under the base parameters and under
/// every perturbed set (the sets are the same seeds for both; the gate's
/// rule, applied to the best so far instead of K0).
bool robustlyBetter(ArrayRef<double> New, ArrayRef<double> Best) {
  if (Best.empty())
    return true;
  if (New.size() != Best.size())
    return false;
  for (size_t I = 0; I < New.size(); ++I)
    if (New[I] < Best[I] * 1.01)
      return false;
  return true;
}

} // namespace

Expected<ModuleOutcome> evolveCodeObject(const CodeObject &K0,
                                         const EvolveOptions &EO) {
  const OptimizeOptions &O = EO.Base;
  if (!O.Gate.Spec)
    return createStringError("--evolve needs --spec: every candidate is run");
  if (O.Passes.empty())
    return createStringError("--evolve: the pass pool is empty");
  ModuleOutcome Out;
  Out.Name = K0.name().str();
  LiftOptions Lift = O.Lift;
  for (const emu::SpecLaunch &L : O.Gate.Spec->Launches)
    if (const KernelInfo *K = verify::resolveLaunchedKernel(K0, L.Kernel))
      if (!is_contained(Out.Kernels, K->Name))
        Out.Kernels.push_back(K->Name);
  if (Out.Kernels.empty())
    return createStringError(K0.name().str() +
                             ": the launch spec runs no kernel of it");
  if (Lift.Kernels.empty())
    Lift.Kernels = Out.Kernels;
  if (const KernelInfo *K = K0.findKernel(Out.Kernels.front()))
    Out.K0VGPRs = Out.K1VGPRs = K->KD.allocatedVGPRs();
  auto Base = buildCandidate(K0, {}, Lift);
  if (!Base)
    return Base.takeError();
  Out.K0Instructions = Out.K1Instructions = Base->Instructions;
  GateOptions Gate = O.Gate;
  Gate.Memo = makeGateMemo();
  auto T = timeOnly(K0, Gate);
  if (!T)
    return T.takeError();
  Out.Final = std::move(*T);

  std::unique_ptr<LineageStore> Store;
  std::map<uint64_t, LineageRow> Recorded;
  if (!EO.LineagePath.empty()) {
    std::string Key = formatv("k0={0:x16} seed={1} pool={2}",
                              xxh3_64bits(K0.image()), EO.Seed,
                              join(O.Passes, ","))
                          .str();
    auto S = LineageStore::open(EO.LineagePath, Key, EO.Resume);
    if (!S)
      return S.takeError();
    Store = std::move(*S);
    auto Rows = Store->rows();
    if (!Rows)
      return Rows.takeError();
    for (LineageRow &R : *Rows)
      Recorded[R.Id] = std::move(R);
  }

  std::set<std::vector<std::string>> Tried;
  std::optional<uint64_t> BestId;
  std::vector<std::string> BestPasses;
  std::vector<double> BestSpeedups;
  for (uint64_t Id = 0; Id < EO.Candidates; ++Id) {
    Proposal P;
    if (Id == 0) {
      P = {"pipeline", O.Passes};
    } else {
      CandidateRNG R(EO.Seed, Id);
      // A few draws to find a sequence not tried yet; the last one stands.
      for (unsigned Draw = 0; Draw < 8; ++Draw) {
        P = mutate(R, BestPasses, O.Passes);
        if (!P.Passes.empty() && !Tried.count(P.Passes))
          break;
      }
    }
    Tried.insert(P.Passes);
    LineageRow Row;
    bool Resumed = Recorded.count(Id);
    if (Resumed) {
      Row = Recorded[Id];
    } else {
      auto Start = std::chrono::steady_clock::now();
      Row.Id = Id;
      Row.Parent = Id ? BestId : std::nullopt;
      Row.Strategy = P.Strategy;
      Row.Passes = join(P.Passes, ",");
      CandidateOptions CO;
      CO.RecordEdits = true;
      auto C = P.Passes.empty() ? Expected<Candidate>(createStringError(
                                      "no passes"))
                                : buildCandidate(K0, P.Passes, Lift, CO);
      if (!C) {
        Row.Check = "static";
        Row.Reason = toString(C.takeError());
      } else if (!C->Changed) {
        Row.StaticOk = true;
        Row.Reason = "no pass changed anything";
      } else {
        Row.StaticOk = true;
        auto G = runGate(K0, *C->CO, C->Map, Gate);
        if (!G)
          return G.takeError();
        Row.Check = G->Check;
        Row.Reason = G->Reason;
        if (G->V)
          Row.Verdict = verify::verdictName(*G->V).str();
        if (G->Speed) {
          Row.Speedups.push_back(G->Speed->BaseSpeedup);
          append_range(Row.Speedups, G->Speed->Speedups);
        }
        Row.TimeSource = G->TimeSource;
        Row.Accepted = G->Accepted && robustlyBetter(Row.Speedups,
                                                     BestSpeedups);
        if (G->Accepted && !Row.Accepted)
          Row.Reason = "not robustly faster than the best so far";
        Row.Script = serializeEditScript(C->Edits);
      }
      Row.Seconds = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - Start)
                        .count();
      if (Store)
        if (Error E = Store->record(Row))
          return std::move(E);
    }
    Attempt A;
    A.Passes = P.Passes;
    A.Built = Row.StaticOk;
    A.Error = Row.StaticOk ? "" : Row.Reason;
    A.Gate.Check = Row.Check;
    A.Gate.Reason = Row.Reason;
    A.Gate.Accepted = Row.Accepted;
    A.Changed = Row.StaticOk && Row.Reason != "no pass changed anything";
    Out.Attempts.push_back(std::move(A));
    if (Row.Accepted) {
      BestId = Id;
      BestPasses = P.Passes;
      BestSpeedups = Row.Speedups;
    }
    if (EO.Progress)
      *EO.Progress << formatv(
          "evolve: candidate {0}/{1} {2,-8} {3} {4}{5}\n", Id + 1,
          EO.Candidates, Row.Strategy, Row.Accepted ? "accepted" : "rejected",
          Row.Speedups.empty()
              ? std::string()
              : formatv("{0:F4}x (model) ", Row.Speedups.front()).str(),
          Resumed ? "(recorded)" : "");
  }

  if (!BestId) {
    Out.Why = "no candidate was accepted";
    return std::move(Out);
  }
  // The winner is rebuilt from K0: candidates are deterministic, so these
  // are the bytes the gate judged.
  CandidateOptions CO;
  CO.RecordEdits = true;
  auto C = buildCandidate(K0, BestPasses, Lift, CO);
  if (!C)
    return C.takeError();
  auto G = runGate(K0, *C->CO, C->Map, Gate);
  if (!G)
    return G.takeError();
  Out.Bytes = C->Rebuilt.Linked;
  for (const PassStat &S : C->Stats)
    if (S.FunctionsChanged && !is_contained(Out.AcceptedPasses, S.Pass))
      Out.AcceptedPasses.push_back(S.Pass);
  Out.Final = std::move(*G);
  Out.Stats = C->Stats;
  Out.K1Instructions = C->Instructions;
  if (const KernelInfo *K = C->CO->findKernel(Out.Kernels.front()))
    Out.K1VGPRs = K->KD.allocatedVGPRs();
  Out.Rebuilt = std::move(C->Rebuilt);
  Out.Edits = std::move(C->Edits);
  Out.Why = formatv("candidate {0} ({1}) of {2}", *BestId,
                    join(BestPasses, ","), EO.Candidates)
                .str();
  return std::move(Out);
}

} // namespace asmevo
