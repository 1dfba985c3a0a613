//===- Evolve.cpp ---------------------------------------------------------===//
#include "asmevo/Search/Evolve.h"
#include "asmevo/Search/CandidateWire.h"
#include "asmevo/Search/ParamSweep.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Rewrite/Optimizer.h"
#include "asmevo/Transforms/ApplyEdits.h"
#include "asmevo/Transforms/Pass.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"
#include <chrono>
#include <set>
#include <random>

using namespace llvm;

namespace asmevo {

std::string contentHash(ArrayRef<uint8_t> Bytes) {
  return utohexstr(xxh3_64bits(Bytes), /*LowerCase=*/true, 16);
}

namespace {
/// What candidate \p Id is, given the best so far: a function of the seed,
/// the id and that best only (never of a shared generator).
struct Proposal {
  std::string Strategy;
  std::vector<std::string> Passes;
};
} // namespace

/// A value for parameter \p I: uniform over its range, except where most
/// of the range says nothing new (unroll factors are powers of two; a
/// `keep` under 40% drops most of what made the parent good).
static int64_t drawParam(const PassParamInfo &I, std::mt19937_64 &R) {
  auto in = [&](int64_t Lo, int64_t Hi) {
    return Lo + static_cast<int64_t>(R() % uint64_t(Hi - Lo + 1));
  };
  if (I.Name == "factor")
    return int64_t(1) << in(1, 3);
  if (I.Name == "keep")
    return in(40, 99);
  if (I.Name == "pick" || I.Name == "jitter")
    return in(1, I.Max);
  return in(I.Min, I.Max);
}

/// Sets one randomly drawn parameter of one randomly drawn pass of \p
/// Passes (which all parse: they came from a pipeline), among those that
/// changed the parent (\p Active, by name) when any did: most of -O2's
/// passes find nothing to do in a given kernel, and a parameter of those
/// makes the parent's bytes again.
static void tuneOne(std::vector<std::string> &Passes,
                    const std::set<std::string> &Active,
                    std::mt19937_64 &R) {
  std::vector<size_t> Where;
  for (size_t I = 0; I < Passes.size(); ++I)
    if (Active.count(StringRef(Passes[I]).take_until([](char C) {
          return C == '<';
        }).str()))
      Where.push_back(I);
  size_t At = Where.empty() ? R() % Passes.size() : Where[R() % Where.size()];
  auto Spec = parsePassSpec(Passes[At]);
  if (!Spec) {
    consumeError(Spec.takeError());
    return;
  }
  const PassEntry &E = *findPass(Spec->Name);
  std::vector<const PassParamInfo *> All;
  for (const PassParamInfo &I : E.Params)
    All.push_back(&I);
  for (const PassParamInfo &I : commonPassParams())
    All.push_back(&I);
  const PassParamInfo &I = *All[R() % All.size()];
  Spec->Params[I.Name] = drawParam(I, R);
  // `pick` says nothing without `keep`: give it one.
  if (I.Name == "pick" && !Spec->Params.count("keep"))
    Spec->Params["keep"] = drawParam(*findPassParam(E, "keep"), R);
  Passes[At] = Spec->str();
}

static Proposal propose(uint64_t Seed, int64_t Id,
                        ArrayRef<std::string> Pipeline,
                        ArrayRef<std::string> First,
                        ArrayRef<std::string> Parent,
                        const std::set<std::string> &Active) {
  if (Id == 0)
    return {"o2", First.empty() ? Pipeline.vec() : First.vec()};
  uint64_t Key[2] = {Seed, static_cast<uint64_t>(Id)};
  std::mt19937_64 R(xxh3_64bits(ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(Key), sizeof(Key))));
  auto pick = [&](size_t N) { return static_cast<size_t>(R() % N); };
  Proposal P;
  P.Passes = Parent.vec();
  // Half of the mutations change parameters (the pass lists alone give a
  // handful of distinct edits); the rest the list.
  switch (Parent.empty() ? 0 : pick(8)) {
  case 0:
    P.Strategy = "subset";
    P.Passes.clear();
    for (const std::string &S : Pipeline)
      if (R() & 1)
        P.Passes.push_back(S);
    break;
  case 1:
    P.Strategy = "drop";
    P.Passes.erase(P.Passes.begin() + pick(P.Passes.size()));
    break;
  case 2: {
    P.Strategy = "add";
    const std::string &S = Pipeline[pick(Pipeline.size())];
    P.Passes.insert(P.Passes.begin() + pick(P.Passes.size() + 1), S);
    break;
  }
  case 3: {
    P.Strategy = "reorder";
    size_t A = pick(P.Passes.size()), B = pick(P.Passes.size());
    std::swap(P.Passes[A], P.Passes[B]);
    break;
  }
  case 4:
  case 5:
  case 6:
    P.Strategy = "tune";
    tuneOne(P.Passes, Active, R);
    break;
  default: {
    // Several parameters at once, across passes: some gains need two
    // (an unroll factor and the window that schedules its copies).
    P.Strategy = "tune-many";
    for (size_t K = 2 + pick(2); K-- > 0;)
      tuneOne(P.Passes, Active, R);
    break;
  }
  }
  if (P.Passes.empty())
    P.Passes.push_back(Pipeline[pick(Pipeline.size())]);
  return P;
}

/// The gate's robust rule, candidate against the best instead of K0: at
/// least 1.01x under the base set and under every perturbed one.
static bool robustlyFaster(const CandidateRecord &C,
                           const CandidateRecord *Best) {
  if (!Best)
    return true;
  if (C.Speedups.size() != Best->Speedups.size() || C.Speedups.empty())
    return false;
  for (size_t I = 0; I < C.Speedups.size(); ++I)
    if (C.Speedups[I] < 1.01 * Best->Speedups[I])
      return false;
  return true;
}

static Expected<CandidateRecord> evaluate(const CodeObject &K0,
                                          const EvolveOptions &O,
                                          CandidateRecord C,
                                          ArrayRef<std::string> Passes) {
  CandidateOptions CO;
  // An agent's candidate is its own script (apply-edits is no edit).
  bool FromAgent = C.Strategy == "agent";
  CO.RecordEdits = !FromAgent;
  auto Built = buildCandidate(K0, Passes, O.Lift, CO);
  C.CandidateHash = C.K0Hash;
  if (!Built) {
    C.StaticCheck = toString(Built.takeError());
    C.Receipt = "static: " + C.StaticCheck;
    return C;
  }
  C.StaticCheck = "ok";
  if (!FromAgent)
    C.EditScript = serializeEditScript(Built->Edits);
  if (!Built->Changed) {
    C.Receipt = "no pass changed anything";
    return C;
  }
  C.CandidateHash = contentHash(Built->Rebuilt.Linked);
  auto G = runGate(K0, *Built->CO, Built->Map, O.Gate);
  if (!G)
    return G.takeError();
  if (G->V)
    C.Verdict = verify::verdictName(*G->V).str();
  C.Receipt = G->Check + ": " + G->Reason;
  C.K0Micros = G->K0Micros;
  C.Micros = G->K1Micros;
  if (G->Speed) {
    C.TimeSource = "model";
    C.Speedups.push_back(G->Speed->BaseSpeedup);
    append_range(C.Speedups, G->Speed->Speedups);
  }
  C.Accepted = G->Accepted;
  return C;
}

static std::vector<std::string> splitPasses(StringRef S) {
  SmallVector<StringRef> Parts;
  S.split(Parts, ',', -1, false);
  std::vector<std::string> V;
  for (StringRef P : Parts)
    V.push_back(P.str());
  return V;
}

Expected<std::vector<std::string>>
o2KeptPasses(const CodeObject &K0, const EvolveOptions &O,
             unsigned &Attempts) {
  OptimizeOptions OO;
  OO.Passes = O.Pipeline;
  OO.Lift = O.Lift;
  OO.Gate = O.Gate;
  auto M = optimizeCodeObject(K0, OO);
  if (!M)
    return M.takeError();
  Attempts = M->Attempts.size();
  std::vector<std::string> Kept;
  for (const UnitOutcome &U : M->Units) {
    if (!U.changed())
      continue;
    if (!Kept.empty() && Kept != U.Passes)
      return std::vector<std::string>();
    Kept = U.Passes;
  }
  return Kept;
}

Expected<EvolveResult> evolve(const CodeObject &K0, const EvolveOptions &O) {
  if (O.Pipeline.empty())
    return createStringError("--evolve: no passes to draw from");
  auto Start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         Start)
        .count();
  };
  EvolveResult R;
  std::string K0Hash = contentHash(K0.image());
  R.RunId = formatv("{0}-seed{1}", K0Hash, O.Seed).str();
  std::vector<CandidateRecord> Stored;
  if (O.Store) {
    auto S = O.Store->candidates(R.RunId);
    if (!S)
      return S.takeError();
    Stored = std::move(*S);
    if (!Stored.empty() && !O.Resume)
      return createStringError(
          formatv("the lineage store already holds {0} candidates of run {1} "
                  "({2}, seed {3}); pass --resume to continue it",
                  Stored.size(), R.RunId, K0.name(), O.Seed)
              .str());
    if (Error E = O.Store->addRun({R.RunId, K0.name().str(), K0Hash, O.Seed}))
      return std::move(E);
  }
  std::map<int64_t, const CandidateRecord *> ById;
  for (const CandidateRecord &C : Stored)
    ById[C.Id] = &C;
  // Indices into R.All: the best so far, which every candidate must beat,
  // and the best built-in one, which the mutations start from (an agent's
  // script is no pass list to mutate).
  std::optional<size_t> Best, BestBuiltin;
  auto skeleton = [&](int64_t Id, const Proposal &P) {
    CandidateRecord C;
    C.RunId = R.RunId;
    C.Id = Id;
    C.Parent = P.Strategy == "agent" || !BestBuiltin ? -1
                                                     : R.All[*BestBuiltin].Id;
    C.K0Hash = K0Hash;
    C.Strategy = P.Strategy;
    C.Passes = join(P.Passes, ",");
    return C;
  };
  auto proposeNext = [&](int64_t Id) {
    // Before any acceptance the -O2 list is the one to mutate: on a kernel
    // where it is gated out, a parameter of one of its passes may be all
    // that stands between it and a robust gain (the parent is still K0).
    std::vector<std::string> ParentPasses = O.Pipeline;
    const CandidateRecord *From = nullptr;
    if (BestBuiltin) {
      From = &R.All[*BestBuiltin];
      ParentPasses = splitPasses(From->Passes);
    } else if (!R.All.empty() && R.All[0].Strategy == "o2") {
      From = &R.All[0];
    }
    // The passes that changed the parent: its recorded script names them
    // (a function of the parent's passes, so the proposal still depends
    // only on the seed, the id and the parent).
    std::set<std::string> Active;
    if (From && !From->EditScript.empty()) {
      if (auto S = parseEditScript(From->EditScript, "the parent's script"))
        for (const Edit &E : S->Edits)
          Active.insert(E.PassName);
      else
        consumeError(S.takeError());
    }
    // Three of every four candidates after a new parent walk its sweep
    // (one parameter of one active pass at a time, in a fixed order); the
    // fourth, and all once the sweep is done, are random mutations. The
    // step counts from the parent's id, so this too depends only on the
    // id and the parent.
    if (O.Sweep && Id > 0) {
      int64_t Step = Id - (From ? From->Id : 0) - 1;
      std::vector<std::string> Grand;
      if (BestBuiltin && From->Parent >= 0 &&
          From->Parent < static_cast<int64_t>(R.All.size()))
        Grand = splitPasses(R.All[From->Parent].Passes);
      if (Step >= 0 && Step % 4 != 3) {
        auto Sweep = sweepNeighbours(ParentPasses, Active, Grand);
        size_t At = Step - (Step + 1) / 4;
        if (At < Sweep.size())
          return Proposal{"sweep", std::move(Sweep[At])};
      }
    }
    return propose(O.Seed, Id, O.Pipeline, O.First, ParentPasses, Active);
  };
  auto isDup = [&](StringRef Passes) {
    return any_of(R.All, [&](auto &E) {
      return E.Strategy != "agent" && E.Passes == Passes;
    });
  };

  // With workers, candidates after the next one are evaluated ahead of
  // their turn, proposed from the current best. Decisions are still made
  // one by one in id order; an acceptance makes the best change, so the
  // evaluations started from the old best are discarded and redone. The
  // result is thus the one-by-one result whatever --jobs is.
  std::optional<WorkerPool> Pool;
  if (O.Jobs > 1 || O.Limits.any()) {
    // In a worker: the candidate's skeleton in, its evaluation out.
    auto Handler = [&K0, &O](StringRef Job) {
      auto C = decodeCandidate(Job);
      if (!C)
        return encodeCandidate(C.takeError());
      bool FromAgent = C->Strategy == "agent";
      if (FromAgent)
        setEditScriptText(formatv("agent proposal #{0}", C->Id).str(),
                          C->EditScript);
      auto T0 = std::chrono::steady_clock::now();
      std::vector<std::string> Passes = splitPasses(C->Passes);
      auto E = evaluate(K0, O, std::move(*C), Passes);
      if (FromAgent)
        setEditScriptText("", "");
      if (E)
        E->Seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - T0)
                         .count();
      return encodeCandidate(std::move(E));
    };
    Pool.emplace(O.Jobs, O.Limits, Handler);
    // K0's trace and time, once, before the workers inherit the memo.
    if (O.Gate.Memo)
      if (auto T = timeOnly(K0, O.Gate); !T)
        return T.takeError();
    // One lift in the parent: what the lifter and the passes set up on
    // first use is then inherited by every worker instead of redone in
    // each.
    if (auto W = buildCandidate(K0, ArrayRef<std::string>(), O.Lift); !W)
      consumeError(W.takeError());
  }
  std::map<int64_t, std::string> InFlight; // Id -> its passes.
  auto startWorker = [&](int64_t Id, const Proposal &P,
                         StringRef Script = "") -> Error {
    CandidateRecord C = skeleton(Id, P);
    C.EditScript = Script.str();
    InFlight[Id] = C.Passes;
    return Pool->start(Id, encodeCandidate(std::move(C)));
  };
  // Keeps the workers busy with the candidates after \p Next. Before the
  // first acceptance (#0, the -O2 pipeline, nearly always is) there is no
  // parent worth speculating from.
  bool AgentActive = O.Agent != nullptr;
  auto fillWorkers = [&](int64_t Next) -> Error {
    // While an agent may still claim the next ids, nothing is speculative.
    if (!Best || AgentActive)
      return Error::success();
    for (int64_t K = Next + 1;
         K < static_cast<int64_t>(O.Candidates) && !Pool->full(); ++K) {
      if (InFlight.count(K) || ById.count(K))
        continue;
      Proposal P = proposeNext(K);
      std::string Passes = join(P.Passes, ",");
      if (isDup(Passes) || any_of(InFlight, [&](auto &F) {
            return F.second == Passes;
          }))
        continue;
      if (Error E = startWorker(K, P))
        return E;
    }
    return Error::success();
  };
  auto inWorker = [&](int64_t Id, const Proposal &P, StringRef Script,
                      double &Seconds) -> Expected<CandidateRecord> {
    if (auto It = InFlight.find(Id);
        It != InFlight.end() && It->second != join(P.Passes, ",")) {
      Pool->cancel(Id);
      InFlight.erase(It);
    }
    if (!InFlight.count(Id))
      if (Error E = startWorker(Id, P, Script))
        return std::move(E);
    if (Error E = fillWorkers(Id))
      return std::move(E);
    auto W = Pool->wait(Id);
    InFlight.erase(Id);
    if (!W)
      return W.takeError();
    if (!W->Ok) {
      // A worker over its limits (or dead): a rejected candidate.
      CandidateRecord C = skeleton(Id, P);
      C.CandidateHash = C.K0Hash;
      C.StaticCheck = "not run";
      C.Receipt = "worker: " + W->Failure;
      return C;
    }
    auto C = decodeCandidate(W->Output);
    if (!C && O.Limits.any())
      // Under limits, an evaluation may fail anywhere an allocation or a
      // mapping does; that is the limit, not the run, failing.
      return [&] {
        CandidateRecord F = skeleton(Id, P);
        F.CandidateHash = F.K0Hash;
        F.StaticCheck = "not run";
        F.Receipt = "worker: " + toString(C.takeError());
        return F;
      }();
    if (C)
      Seconds = C->Seconds;
    return C;
  };

  std::vector<ExternalProposal> AgentQueue;
  std::vector<int64_t> AgentIds;
  std::map<int64_t, std::string> Hypotheses;
  unsigned Round = 0;
  auto askAgent = [&](int64_t Id) {
    json::Array Attempts;
    for (int64_t A : AgentIds) {
      const CandidateRecord &C = R.All[A];
      bool Refused = C.StaticCheck != "ok";
      Attempts.push_back(json::Object{
          {"id", A},
          {"hypothesis", Hypotheses[A]},
          {"verdict", C.Verdict.empty() ? json::Value(nullptr)
                                        : json::Value(C.Verdict)},
          {"reason", C.Receipt},
          {"speedup", C.Speedups.empty() ? json::Value(nullptr)
                                         : json::Value(C.Speedups.front())},
          {"accepted", C.Accepted},
          {"error", Refused ? json::Value(C.StaticCheck)
                            : json::Value(nullptr)}});
    }
    const CandidateRecord &B = R.All[*Best];
    json::Object Budget{{"candidates_left", int64_t(O.Candidates) - Id}};
    if (O.TimeBudget > 0)
      Budget["seconds_left"] = std::max(0.0, O.TimeBudget - elapsed());
    json::Object State{
        {"type", "state"},
        {"round", ++Round},
        {"kernel", O.Lift.Kernels.empty() ? "" : O.Lift.Kernels.front()},
        {"function", O.Lift.Kernels.empty() ? "" : O.Lift.Kernels.front()},
        // Scripts are anchored on K0; the best is what they must beat.
        {"parent", json::Object{{"id", nullptr}, {"speedup", 1.0}}},
        {"best", json::Object{{"id", B.Id},
                              {"speedup", B.Speedups.empty()
                                              ? 1.0
                                              : B.Speedups.front()}}},
        {"windows", O.AgentWindows},
        {"attempts", std::move(Attempts)},
        {"budget", std::move(Budget)}};
    auto A = O.Agent->ask(json::Value(std::move(State)));
    if (!A) {
      R.AgentEnd = "failed: " + toString(A.takeError());
      AgentActive = false;
    } else if (A->Stop) {
      R.AgentEnd = "stopped: " + A->Note;
      AgentActive = false;
    } else {
      AgentQueue = std::move(A->Proposals);
    }
    if (!AgentActive && O.Progress)
      *O.Progress << "evolve: the agent " << R.AgentEnd
                  << "; built-in strategies go on\n";
  };

  for (int64_t Id = 0; Id < static_cast<int64_t>(O.Candidates); ++Id) {
    if (O.TimeBudget > 0 && elapsed() >= O.TimeBudget) {
      R.OutOfTime = true;
      break;
    }
    if (AgentActive && AgentQueue.empty() && Best)
      askAgent(Id);
    std::optional<ExternalProposal> FromAgent;
    if (!AgentQueue.empty()) {
      FromAgent = std::move(AgentQueue.front());
      AgentQueue.erase(AgentQueue.begin());
    }
    Proposal P = FromAgent ? Proposal{"agent", {"apply-edits"}}
                           : proposeNext(Id);
    int64_t Parent =
        FromAgent || !BestBuiltin ? -1 : R.All[*BestBuiltin].Id;
    std::string Passes = join(P.Passes, ",");
    CandidateRecord C;
    bool Reused = false;
    if (auto It = ById.find(Id); It != ById.end()) {
      C = *It->second;
      if (C.Passes != Passes || C.Parent != Parent || C.K0Hash != K0Hash)
        return createStringError(
            formatv("lineage store: candidate {0} of run {1} is [{2}] from "
                    "#{3}, but this run proposes [{4}] from #{5} (a different "
                    "build of asmevo-opt?)",
                    Id, R.RunId, C.Passes, C.Parent, Passes, Parent)
                .str());
      Reused = true;
      ++R.Reused;
    } else {
      C = skeleton(Id, P);
      if (FromAgent) {
        C.EditScript = FromAgent->Script;
        // The applying pass reads it; errors name the proposal.
        setEditScriptText(formatv("agent proposal #{0}", Id).str(),
                          FromAgent->Script);
      }
      auto Dup = FromAgent ? R.All.end()
                           : find_if(R.All, [&](const CandidateRecord &E) {
                               return E.Strategy != "agent" &&
                                      E.Passes == Passes;
                             });
      double T0 = elapsed();
      double Seconds = -1;
      if (Dup != R.All.end()) {
        // Same passes, same bytes: no better than the best already is.
        CandidateRecord D = *Dup;
        C.CandidateHash = D.CandidateHash;
        C.EditScript = D.EditScript;
        C.StaticCheck = D.StaticCheck;
        C.Verdict = D.Verdict;
        C.K0Micros = D.K0Micros;
        C.Micros = D.Micros;
        C.Speedups = D.Speedups;
        C.TimeSource = D.TimeSource;
        C.Receipt = formatv("same passes as #{0}", D.Id).str();
      } else {
        auto E = Pool ? inWorker(Id, P,
                                 FromAgent ? StringRef(FromAgent->Script)
                                           : StringRef(),
                                 Seconds)
                      : evaluate(K0, O, std::move(C), P.Passes);
        if (!E)
          return E.takeError();
        C = std::move(*E);
        if (FromAgent) {
          setEditScriptText("", "");
          C.EditScript = FromAgent->Script;
          Hypotheses[Id] = FromAgent->Hypothesis;
          C.Receipt += " (hypothesis: " + FromAgent->Hypothesis + ")";
        }
        // The gate's verdict is against K0; the best so far is the bar.
        bool GateAccepted = C.Accepted;
        C.Accepted = GateAccepted && robustlyFaster(C, Best ? &R.All[*Best]
                                                            : nullptr);
        // Before any acceptance there is no best to name (K0 is the bar).
        if (Best && GateAccepted && !C.Accepted && !C.Speedups.empty())
          C.Receipt += formatv(" but not robustly faster than #{0}",
                               R.All[*Best].Id)
                           .str();
      }
      C.Seconds = Seconds >= 0 ? Seconds : elapsed() - T0;
      if (O.Store)
        if (Error E = O.Store->add(C))
          return std::move(E);
      ++R.Evaluated;
    }
    if (O.Progress)
      *O.Progress << formatv(
          "evolve: #{0}/{1} {2} [{3}] from {4}: {5}{6}{7}\n", Id,
          O.Candidates, C.Strategy, C.Passes,
          Parent < 0 ? std::string("K0") : "#" + itostr(Parent),
          C.Accepted ? "accepted" : "rejected",
          C.Speedups.empty()
              ? (C.StaticCheck == "not run" ? ", " + C.Receipt
                                            : std::string())
              : formatv(", {0:F3}x over K0 ({1})", C.Speedups.front(),
                        C.TimeSource)
                    .str(),
          Reused ? " (from the lineage store)" : "");
    R.All.push_back(std::move(C));
    if (R.All.back().Strategy == "agent")
      AgentIds.push_back(Id);
    if (R.All.back().Accepted) {
      Best = R.All.size() - 1;
      if (R.All.back().Strategy != "agent")
        BestBuiltin = Best;
      if (Pool) {
        R.Discarded += InFlight.size();
        Pool->cancelAll();
        InFlight.clear();
      }
    }
  }
  if (Pool) {
    Pool->cancelAll();
    InFlight.clear();
  }
  if (!Best)
    return std::move(R);
  const CandidateRecord &W = R.All[*Best];
  for (int64_t Id = W.Id; Id >= 0; Id = R.All[Id].Parent)
    R.Lineage.insert(R.Lineage.begin(), Id);
  // Rebuilt rather than kept: a resumed run has only the winner's passes.
  CandidateOptions CO;
  bool AgentWinner = W.Strategy == "agent";
  CO.RecordEdits = !AgentWinner;
  if (AgentWinner)
    setEditScriptText(formatv("agent proposal #{0}", W.Id).str(),
                      W.EditScript);
  auto Built = buildCandidate(K0, splitPasses(W.Passes), O.Lift, CO);
  setEditScriptText("", "");
  if (!Built)
    return Built.takeError();
  if (AgentWinner) {
    auto S = parseEditScript(W.EditScript, "the winner's script");
    if (!S)
      return S.takeError();
    Built->Edits = std::move(*S);
  }
  if (contentHash(Built->Rebuilt.Linked) != W.CandidateHash)
    return createStringError(
        formatv("candidate {0} rebuilt to different bytes than recorded", W.Id)
            .str());
  R.Bytes = std::move(Built->Rebuilt.Linked);
  R.Edits = std::move(Built->Edits);
  return std::move(R);
}

void printEvolveReport(raw_ostream &OS, const EvolveResult &R) {
  unsigned Accepted = count_if(R.All, [](auto &C) { return C.Accepted; });
  OS << "evolve run " << R.RunId << ": " << R.All.size() << " candidates, "
     << Accepted << " accepted\n";
  if (!R.AgentEnd.empty() ||
      any_of(R.All, [](auto &C) { return C.Strategy == "agent"; }))
    OS << "agent: "
       << count_if(R.All, [](auto &C) { return C.Strategy == "agent"; })
       << " proposals judged"
       << (R.AgentEnd.empty() ? std::string() : "; the agent " + R.AgentEnd)
       << "\n";
  if (R.Lineage.empty()) {
    OS << "winner: none (K0 kept)\n";
    return;
  }
  const CandidateRecord &W = R.All[R.Lineage.back()];
  OS << formatv("winner: #{0} {1:F3}x over K0 ({2}; {3:F3} -> {4:F3} us)\n",
                W.Id, W.Speedups.front(), W.TimeSource, W.K0Micros, W.Micros);
  OS << "lineage:\n";
  double Prev = 1.0;
  for (int64_t Id : R.Lineage) {
    const CandidateRecord &C = R.All[Id];
    OS << formatv("  #{0} {1} [{2}]: {3:F3}x over K0, {4:F3}x over its "
                  "parent ({5})\n",
                  C.Id, C.Strategy, C.Passes, C.Speedups.front(),
                  C.Speedups.front() / Prev, C.TimeSource);
    Prev = C.Speedups.front();
  }
}

} // namespace asmevo
