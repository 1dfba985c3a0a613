//===- SearchRounds.cpp - Rounds of proposals -------------------------------===//
#include "OptimizerSearch.h"

using namespace llvm;

namespace asmevo {
namespace optimize {

Expected<Attempt> Search::judge(const Candidate &C, size_t U) {
  UnitState &S = Units[U];
  Attempt A;
  A.Passes = C.Passes;
  A.Unit = S.U.name();
  std::set<std::string> Changed = C.changedFunctions();
  // A patch that wrote no byte (an unneeded s_nop 0 removed and put back
  // as it was) changed nothing either.
  A.Changed =
      llvm::any_of(S.Functions,
                   [&](const std::string &F) { return Changed.count(F); }) &&
      !(C.Patched && C.PatchedInstructions == 0);
  if (!A.Changed) {
    A.Gate.Reason = "no pass changed anything";
    return std::move(A);
  }
  PhaseScope P("gate");
  // Without a spec nothing runs K1: a candidate judged in the shared
  // module has no object of its own.
  auto G = runGate(K0, C.CO ? *C.CO : K0, C.Map, S.Gate);
  if (!G)
    return G.takeError();
  A.Gate = std::move(*G);
  if (S.Gate.Spec) {
    A.Score = A.Gate.Speed ? A.Gate.Speed->Median : 1.0;
    return std::move(A);
  }
  if (!A.Gate.Accepted)
    return std::move(A);
  // --trust-static: the static cost of the unit's functions decides
  // (StaticCost.h); by name, so that the first rise named is stable.
  double Before = 0, After = 0;
  for (const std::string &Fn : S.Functions) {
    double Old = K0Cost.count(Fn) ? K0Cost.at(Fn) : 0;
    double New = C.Cost.count(Fn) ? C.Cost.at(Fn) : Old;
    Before += Old;
    After += New;
    if (New > Old) {
      A.Gate.Accepted = false;
      A.Gate.Reason = formatv("static cost of '{0}' went up: {1:F0} -> "
                              "{2:F0} weighted issue cycles",
                              Fn, Old, New)
                          .str();
      return std::move(A);
    }
  }
  A.Gate.Reason += formatv("; static cost {0:F0} -> {1:F0} weighted "
                           "issue cycles",
                           Before, After)
                       .str();
  A.Score = After > 0 ? Before / After : 1.0;
  return std::move(A);
}

Expected<std::vector<Attempt>>
Search::runGroup(const Group &G, bool First,
                 std::shared_ptr<Candidate> &Cand) {
  PlanStep Step;
  Step.Passes = G.Passes;
  Step.Functions.emplace();
  // Every kernel is lifted, as for the output: a kernel kept as bytes
  // could not move, and the layout would not be the output's.
  for (size_t U : G.Units)
    Step.Functions->insert(Units[U].Functions.begin(),
                           Units[U].Functions.end());
  CandidateOptions CO;
  if (First)
    CO.Print = O.Print;
  CO.PatchInPlace = O.PatchInPlace;
  CO.StaticCost = !O.Gate.Spec;
  CO.RecordEdits = O.RecordEdits;
  auto C = buildCandidate(K0, ArrayRef<PlanStep>(Step), O.Lift, CO);
  std::vector<Attempt> As;
  if (!C) {
    if (G.Units.size() > 1) {
      // Whose function broke is not known: each unit alone says.
      consumeError(C.takeError());
      for (size_t U : G.Units) {
        std::shared_ptr<Candidate> Own;
        auto A = runGroup({G.Passes, {U}}, false, Own);
        if (!A)
          return A.takeError();
        As.push_back(std::move(A->front()));
      }
      Cand.reset();
      return std::move(As);
    }
    // A pass that fails or breaks a static check rules out this set for
    // this unit, not the run: the other sets may still be good.
    Attempt A;
    A.Passes = G.Passes;
    A.Unit = Units[G.Units.front()].U.name();
    A.Built = false;
    A.Error = toString(C.takeError());
    A.Gate.Check = "static";
    A.Gate.Reason = A.Error;
    As.push_back(std::move(A));
    return std::move(As);
  }
  C->Passes = G.Passes;
  for (size_t U : G.Units) {
    auto A = judge(*C, U);
    if (!A)
      return A.takeError();
    As.push_back(std::move(*A));
  }
  Cand = std::make_shared<Candidate>(std::move(*C));
  return std::move(As);
}

Error Search::evaluate(std::vector<Proposal> Ps, bool First) {
  std::vector<Group> Gs;
  for (Proposal &P : Ps) {
    if (find(P.Unit, P.Passes))
      continue;
    auto It = Gs.end();
    if (!O.Gate.Spec)
      It = llvm::find_if(Gs, [&](const Group &G) {
        return G.Passes == P.Passes;
      });
    if (It == Gs.end()) {
      Gs.push_back({P.Passes, {}});
      It = std::prev(Gs.end());
    }
    if (!is_contained(It->Units, P.Unit))
      It->Units.push_back(P.Unit);
  }
  auto Record = [&](const Group &G, std::vector<Attempt> As,
                    std::shared_ptr<Candidate> C) {
    for (size_t K = 0; K < G.Units.size(); ++K) {
      UnitState &S = Units[G.Units[K]];
      As[K].Unit = S.U.name();
      S.Out.Attempts.push_back(std::move(As[K]));
      S.Cands.push_back(C);
    }
  };
  if (O.Jobs > 1 && Gs.size() > 1 && !First && !Work) {
    auto All = runInWorkers(Gs);
    if (!All)
      return All.takeError();
    for (size_t K = 0; K < Gs.size(); ++K)
      Record(Gs[K], std::move((*All)[K]), nullptr);
    return Error::success();
  }
  for (size_t K = 0; K < Gs.size(); ++K) {
    std::shared_ptr<Candidate> C;
    if (Work) {
      auto As = runGroupInPlace(Gs[K], First, First && K == 0);
      if (!As)
        return As.takeError();
      Record(Gs[K], std::move(*As), nullptr);
      continue;
    }
    auto As = runGroup(Gs[K], First && K == 0, C);
    if (!As)
      return As.takeError();
    Record(Gs[K], std::move(*As), std::move(C));
  }
  return Error::success();
}

void Search::prune() {
  for (UnitState &S : Units)
    for (size_t I = 0; I < S.Cands.size(); ++I)
      if (I != S.Best)
        S.Cands[I].reset();
}

Error Search::search() {
  if (O.Passes.empty() || Units.empty())
    return Error::success();
  std::vector<Proposal> Ps;
  for (size_t U = 0; U < Units.size(); ++U)
    Ps.push_back({U, O.Passes});
  if (Error E = evaluate(std::move(Ps), /*First=*/true))
    return E;
  std::vector<size_t> Retry;
  for (size_t U = 0; U < Units.size(); ++U) {
    UnitState &S = Units[U];
    S.Full = S.Best = *find(U, O.Passes);
    const Attempt &F = S.Out.Attempts[S.Full];
    if (!F.Gate.Accepted && O.TrySubsets && O.Passes.size() > 1 &&
        (F.Changed || !F.Built))
      Retry.push_back(U);
  }
  prune();
  if (Retry.empty())
    return tryVariants();
  // Each pass alone, then the accepted ones combined greedily from the
  // best: the pass at fault in the whole pipeline drops out, per unit.
  Ps.clear();
  for (size_t U : Retry)
    for (const std::string &P : O.Passes)
      Ps.push_back({U, {P}});
  if (Error E = evaluate(std::move(Ps)))
    return E;
  struct Greedy {
    size_t Unit;
    std::vector<std::pair<double, std::string>> Good;
    std::set<std::string> Set;
    size_t Next = 1;
  };
  std::vector<Greedy> Gr;
  for (size_t U : Retry) {
    UnitState &S = Units[U];
    Greedy G{U, {}, {}, 1};
    for (const std::string &P : O.Passes) {
      size_t I = *find(U, {P});
      if (S.Out.Attempts[I].Gate.Accepted)
        G.Good.push_back({score(U, I), P});
      if (score(U, I) > score(U, S.Best))
        S.Best = I;
    }
    llvm::stable_sort(G.Good,
                      [](auto &A, auto &B) { return A.first > B.first; });
    if (G.Good.size() > 1) {
      G.Set = {G.Good.front().second};
      Gr.push_back(std::move(G));
    }
  }
  prune();
  while (true) {
    Ps.clear();
    for (Greedy &G : Gr)
      if (G.Next < G.Good.size()) {
        std::set<std::string> Try = G.Set;
        Try.insert(G.Good[G.Next].second);
        Ps.push_back({G.Unit, ordered(Try)});
      }
    if (Ps.empty())
      break;
    if (Error E = evaluate(Ps))
      return E;
    for (Greedy &G : Gr)
      if (G.Next < G.Good.size()) {
        std::set<std::string> Try = G.Set;
        Try.insert(G.Good[G.Next].second);
        size_t I = *find(G.Unit, ordered(Try));
        UnitState &S = Units[G.Unit];
        if (score(G.Unit, I) > score(G.Unit, S.Best)) {
          S.Best = I;
          G.Set = Try;
        }
        ++G.Next;
      }
    prune();
  }
  return tryVariants();
}


/// Parameter values worth a second candidate on a kept list: four
/// iterations in flight cost a loop of two trips (gemm_mfma_f16's tile
/// staging, one element per lane and two per workgroup) two copies' issue
/// slots under EXEC = 0 for nothing, which two iterations do not; which
/// loops have few trips is not known statically, so the gate decides.
static std::vector<std::string> variantsOf(StringRef Pass) {
  if (Pass == "exec-loop-pipeline")
    return {"exec-loop-pipeline<depth=2>"};
  return {};
}

Error Search::tryVariants() {
  if (!O.Gate.Spec || !O.TrySubsets)
    return Error::success();
  std::vector<Proposal> Ps;
  for (size_t U = 0; U < Units.size(); ++U) {
    const Attempt &B = Units[U].Out.Attempts[Units[U].Best];
    if (!B.Gate.Accepted)
      continue;
    for (size_t K = 0; K < B.Passes.size(); ++K)
      for (const std::string &V : variantsOf(B.Passes[K])) {
        std::vector<std::string> L = B.Passes;
        L[K] = V;
        if (!find(U, L))
          Ps.push_back({U, L});
      }
  }
  if (Ps.empty())
    return Error::success();
  std::vector<Proposal> Tried = Ps;
  if (Error E = evaluate(std::move(Ps)))
    return E;
  for (const Proposal &P : Tried) {
    UnitState &S = Units[P.Unit];
    size_t I = *find(P.Unit, P.Passes);
    if (score(P.Unit, I) > score(P.Unit, S.Best))
      S.Best = I;
  }
  prune();
  return Error::success();
}

Error Search::finish() {
  std::vector<size_t> Kept;
  for (size_t U = 0; U < Units.size(); ++U) {
    UnitState &S = Units[U];
    UnitOutcome &UO = S.Out;
    UO.Kernels = S.U.Kernels;
    UO.Functions = S.U.Functions;
    for (const std::string &F : S.Functions)
      if (auto It = K0Cost.find(F); It != K0Cost.end())
        UO.K0Cost += It->second;
    UO.K1Cost = UO.K0Cost;
    if (UO.Attempts.empty()) {
      UO.Why = "no passes to run";
      continue;
    }
    const Attempt &B = UO.Attempts[S.Best];
    if (B.Gate.Accepted && B.Changed) {
      UO.Passes = B.Passes;
      UO.Gate = B.Gate;
      UO.Why = B.Gate.Reason;
      Kept.push_back(U);
      continue;
    }
    // Nothing accepted: the original stays, with the reason of the whole
    // pipeline's attempt (the one the user asked for).
    const Attempt &F = UO.Attempts[S.Full];
    UO.Gate = F.Gate;
    UO.Why = F.Gate.Check.empty() ? F.Gate.Reason
                                  : F.Gate.Check + ": " + F.Gate.Reason;
    if (S.Best != S.Full && !B.Gate.Accepted)
      UO.Why += " (no subset of the passes was accepted either)";
  }
  auto Publish = [&] {
    for (UnitState &S : Units) {
      llvm::append_range(Out.Attempts, S.Out.Attempts);
      Out.Units.push_back(std::move(S.Out));
    }
  };
  unsigned NumKernels = 0;
  for (const UnitState &S : Units)
    NumKernels += S.U.Kernels.size();
  if (Kept.empty()) {
    if (Units.empty())
      Out.Why = "nothing to optimize: no kernel was lifted as simple or "
                "patch-only (a non-simple kernel keeps its bytes, and so do "
                "the device functions only such kernels call)";
    else if (Units.size() == 1)
      Out.Why = Units.front().Out.Why;
    else if (!Units.empty())
      Out.Why = formatv("no kernel's candidate was accepted ({0} kernels); "
                        "{1}: {2}",
                        NumKernels, Units.front().U.name(),
                        Units.front().Out.Why)
                    .str();
    Publish();
    return Error::success();
  }
  // The kept sets together: one step per set, over the units that keep
  // it (steps in the order of their first unit).
  std::shared_ptr<Candidate> C;
  bool FromBest = false;
  std::vector<size_t> Try = Kept;
  while (true) {
    std::vector<PlanStep> Plan;
    std::set<std::string> KeptFns;
    for (size_t U : Try) {
      const UnitState &S = Units[U];
      KeptFns.insert(S.Functions.begin(), S.Functions.end());
      auto It = llvm::find_if(Plan, [&](const PlanStep &P) {
        return P.Passes == S.Out.Passes;
      });
      if (It == Plan.end()) {
        Plan.push_back({S.Out.Passes, std::set<std::string>()});
        It = std::prev(Plan.end());
      }
      It->Functions->insert(S.Functions.begin(), S.Functions.end());
    }
    // A candidate of the search that is exactly this plan (every kernel
    // lifted, only the kept units changed, and each of them: with a spec a
    // unit's candidate changes that unit alone) need not be built again.
    C.reset();
    FromBest = false;
    if (Plan.size() == 1)
      for (size_t U : Try) {
        const std::shared_ptr<Candidate> &P = Units[U].Cands[Units[U].Best];
        if (!P)
          continue;
        std::set<std::string> Ch = P->changedFunctions();
        auto Covers = [&](size_t V) {
          return llvm::any_of(Units[V].Functions, [&](const std::string &F) {
            return Ch.count(F);
          });
        };
        if (llvm::all_of(Ch,
                         [&](const std::string &F) {
                           return KeptFns.count(F);
                         }) &&
            llvm::all_of(Try, Covers)) {
          C = P;
          FromBest = true;
        }
        break;
      }
    if (!C && Work) {
      // Judged without a rebuild: when the object cannot be rebuilt (a
      // kept-as-bytes function's reference would break), the search is
      // made again with a rebuild per candidate (InPlaceUnbuildable).
      auto W = finishInPlace(Try);
      if (!W)
        return make_error<InPlaceUnbuildable>(toString(W.takeError()));
      C = std::move(*W);
    }
    std::string Reason;
    if (!C) {
      CandidateOptions CO;
      CO.PatchInPlace = O.PatchInPlace;
      CO.StaticCost = !O.Gate.Spec;
      CO.RecordEdits = O.RecordEdits;
      auto B = buildCandidate(K0, Plan, O.Lift, CO);
      if (B)
        C = std::make_shared<Candidate>(std::move(*B));
      else
        Reason = "static: " + toString(B.takeError());
    }
    if (C) {
      // The module's gate: the kept unit's own when it judged this very
      // object on the whole spec; else this object on the whole spec.
      if (FromBest && Try.size() == 1 && !Units[Try.front()].OwnSpec) {
        Out.Final = Units[Try.front()].Out.Gate;
        break;
      }
      PhaseScope P("gate");
      auto G = runGate(K0, *C->CO, C->Map, O.Gate);
      if (!G)
        return G.takeError();
      Out.Final = std::move(*G);
      if (!O.Gate.Spec)
        break;
      if (Out.Final.V && *Out.Final.V == verify::Verdict::Equivalent) {
        if (!Out.Final.Accepted) {
          // Each kernel was robustly faster on its own launches; the
          // whole spec's time may dilute that below the threshold.
          Out.Final.Accepted = true;
          Out.Final.Reason = "equivalent; each kernel's candidate robustly "
                             "faster on its own launches (all launches: " +
                             Out.Final.Reason + ")";
        }
        break;
      }
      Reason = Out.Final.Check + ": " + Out.Final.Reason;
    }
    // Together they cannot be built or are not equivalent although each
    // was alone: keep the best unit only, or nothing.
    C.reset();
    size_t BestU = Try.front();
    for (size_t U : Try)
      if (score(U, Units[U].Best) > score(BestU, Units[BestU].Best))
        BestU = U;
    for (size_t U : Try)
      if (U != BestU || Try.size() == 1) {
        Units[U].Out.Passes.clear();
        Units[U].Out.Why = "accepted alone, but the kept kernels together "
                           "were rejected: " +
                           Reason;
      }
    if (Try.size() == 1) {
      Out.Final = GateResult();
      Out.Why = "the kept kernels together were rejected: " + Reason;
      Publish();
      return Error::success();
    }
    Try = {BestU};
  }
  std::set<std::string> Changed = C->changedFunctions();
  unsigned KeptKernels = 0;
  double Before = 0, After = 0;
  for (size_t U : Try) {
    UnitState &S = Units[U];
    KeptKernels += S.U.Kernels.size();
    for (const std::string &P : S.Out.Passes) {
      auto It = C->ChangedBy.find(P);
      if (It != C->ChangedBy.end() && !is_contained(S.Out.AcceptedPasses, P) &&
          llvm::any_of(S.Functions,
                       [&](const std::string &F) { return It->second.count(F); }))
        S.Out.AcceptedPasses.push_back(P);
    }
    if (!O.Gate.Spec) {
      S.Out.K1Cost = 0;
      for (const std::string &F : S.Functions)
        S.Out.K1Cost += C->Cost.count(F) ? C->Cost.at(F)
                        : K0Cost.count(F)  ? K0Cost.at(F)
                                           : 0;
    }
  }
  for (const UnitState &S : Units) {
    Before += S.Out.K0Cost;
    After += S.Out.K1Cost;
  }
  Out.Bytes = C->Rebuilt.Linked;
  // The passes of the kept sets that changed something.
  for (const std::string &P : O.Passes)
    for (const PassStat &S : C->Stats)
      if (S.Pass == P && S.FunctionsChanged &&
          !is_contained(Out.AcceptedPasses, S.Pass))
        Out.AcceptedPasses.push_back(S.Pass);
  // In pipeline order, whichever step ran a pass first.
  for (const std::string &P : O.Passes)
    for (const PassStat &S : C->Stats)
      if (S.Pass == P && !llvm::any_of(Out.Stats, [&](const PassStat &T) {
            return T.Pass == P;
          }))
        Out.Stats.push_back(S);
  Out.K1Instructions = C->Instructions;
  if (!Out.Kernels.empty())
    if (const KernelInfo *K = C->CO->findKernel(Out.Kernels.front()))
      Out.K1VGPRs = K->KD.allocatedVGPRs();
  Out.Patched = C->Patched;
  Out.PatchedInstructions = C->PatchedInstructions;
  Out.PatchedNonSimple = C->PatchOnly;
  Out.Rebuilt = std::move(C->Rebuilt);
  Out.Edits = std::move(C->Edits);
  if (Units.size() == 1) {
    Out.Why = Units.front().Out.Why;
  } else {
    Out.Why = formatv("{0} of {1} kernels changed, each with the passes it "
                      "accepted; ",
                      KeptKernels, NumKernels)
                  .str();
    if (O.Gate.Spec)
      Out.Why += Out.Final.Reason;
    else
      Out.Why += formatv("{0}; static cost {1:F0} -> {2:F0} weighted issue "
                         "cycles",
                         Out.Final.Reason, Before, After)
                     .str();
  }
  Publish();
  return Error::success();
}

} // namespace optimize
} // namespace asmevo
