//===- SearchWorkers.cpp - The search over processes ------------------------===//
#include "OptimizerSearch.h"

using namespace llvm;

namespace asmevo {
namespace optimize {

/// A worker's attempt, as it crosses the pipe.
static json::Value attemptJSON(const Attempt &A) {
  return json::Object{{"built", A.Built},         {"changed", A.Changed},
                      {"error", A.Error},         {"accepted", A.Gate.Accepted},
                      {"check", A.Gate.Check},    {"reason", A.Gate.Reason},
                      {"score", A.Score}};
}

static Attempt attemptFromJSON(const json::Object &R) {
  Attempt T;
  T.Built = R.getBoolean("built").value_or(false);
  T.Changed = R.getBoolean("changed").value_or(false);
  T.Error = R.getString("error").value_or("").str();
  T.Gate.Accepted = R.getBoolean("accepted").value_or(false);
  T.Gate.Check = R.getString("check").value_or("").str();
  T.Gate.Reason = R.getString("reason").value_or("").str();
  T.Score = R.getNumber("score").value_or(0);
  return T;
}

Expected<std::vector<std::vector<Attempt>>>
Search::runInWorkers(const std::vector<Group> &Gs) {
  unsigned N = std::min<size_t>(std::max(O.Jobs, 1u), Gs.size());
  auto Texts = forkWorkers(
      N + 1,
      [&](unsigned W) {
        json::Array Results;
        for (size_t K = W - 1; K < Gs.size(); K += N) {
          std::shared_ptr<Candidate> Unused;
          auto As = runGroup(Gs[K], false, Unused);
          if (!As) {
            Results.push_back(
                json::Object{{"fatal", toString(As.takeError())}});
            break;
          }
          json::Array Group;
          for (const Attempt &A : *As)
            Group.push_back(attemptJSON(A));
          Results.push_back(std::move(Group));
        }
        std::string Text;
        raw_string_ostream OS(Text);
        OS << json::Value(std::move(Results));
        return Text;
      },
      [] { return Error::success(); });
  if (!Texts)
    return Texts.takeError();
  std::vector<json::Array> Answers(N);
  for (unsigned W = 0; W < N; ++W) {
    auto V = json::parse((*Texts)[W]);
    if (!V || !V->getAsArray()) {
      if (!V)
        consumeError(V.takeError());
      return createStringError("an optimizer worker answered garbage");
    }
    Answers[W] = std::move(*V->getAsArray());
  }
  // In the order a single process would have made them.
  std::vector<std::vector<Attempt>> Out;
  for (size_t K = 0; K < Gs.size(); ++K) {
    json::Array &A = Answers[K % N];
    size_t At = K / N;
    if (At >= A.size())
      return createStringError("an optimizer worker answered too little");
    if (const json::Object *R = A[At].getAsObject()) {
      if (auto F = R->getString("fatal"))
        return createStringError(*F);
      return createStringError("an optimizer worker answered garbage");
    }
    const json::Array *G = A[At].getAsArray();
    if (!G || G->size() != Gs[K].Units.size())
      return createStringError("an optimizer worker answered garbage");
    std::vector<Attempt> As;
    for (const json::Value &V : *G) {
      if (!V.getAsObject())
        return createStringError("an optimizer worker answered garbage");
      As.push_back(attemptFromJSON(*V.getAsObject()));
      As.back().Passes = Gs[K].Passes;
    }
    Out.push_back(std::move(As));
  }
  return std::move(Out);
}

/// A worker's answer when it could not finish its share.
std::string fatalAnswer(Error E) {
  std::string Text;
  raw_string_ostream OS(Text);
  OS << json::Value(json::Object{{"fatal", toString(std::move(E))}});
  return Text;
}

/// A unit's decision as it crosses the pipe: its attempts in full (they
/// are the report) and which of them are the pipeline's and the best.
static json::Value unitJSON(const UnitState &S) {
  json::Array As;
  for (const Attempt &A : S.Out.Attempts) {
    json::Object R = *attemptJSON(A).getAsObject();
    R["passes"] = json::Array(A.Passes);
    R["unit"] = A.Unit;
    As.push_back(std::move(R));
  }
  return json::Object{{"attempts", std::move(As)},
                      {"full", (int64_t)S.Full},
                      {"best", (int64_t)S.Best},
                      {"in_work", S.InWork}};
}

static Error unitFromJSON(const json::Object &R, UnitState &S) {
  const json::Array *As = R.getArray("attempts");
  auto Full = R.getInteger("full"), Best = R.getInteger("best");
  if (!As || !Full || !Best || *Full < 0 || *Best < 0 ||
      (!As->empty() && ((size_t)*Full >= As->size() ||
                        (size_t)*Best >= As->size())))
    return createStringError("an optimizer worker answered garbage");
  S.Out.Attempts.clear();
  for (const json::Value &V : *As) {
    const json::Object *A = V.getAsObject();
    if (!A)
      return createStringError("an optimizer worker answered garbage");
    Attempt T = attemptFromJSON(*A);
    if (const json::Array *Ps = A->getArray("passes"))
      for (const json::Value &P : *Ps)
        if (auto Name = P.getAsString())
          T.Passes.push_back(Name->str());
    T.Unit = A->getString("unit").value_or("").str();
    S.Out.Attempts.push_back(std::move(T));
  }
  S.Cands.assign(S.Out.Attempts.size(), nullptr);
  S.Full = *Full;
  S.Best = *Best;
  S.InWork = R.getBoolean("in_work").value_or(false);
  return Error::success();
}

static json::Value passStatJSON(const PassStat &P) {
  return json::Array{P.FunctionsChanged, (int64_t)P.Added, (int64_t)P.Removed,
                     (int64_t)P.Rewritten, P.IntroducedViolations};
}

static PassStat passStatFromJSON(StringRef Pass, const json::Array &A) {
  PassStat P;
  P.Pass = Pass.str();
  auto At = [&](size_t I) -> uint64_t {
    return I < A.size() ? A[I].getAsInteger().value_or(0) : 0;
  };
  P.FunctionsChanged = At(0);
  P.Added = At(1);
  P.Removed = At(2);
  P.Rewritten = At(3);
  P.IntroducedViolations = At(4);
  return P;
}

/// \p Units in chunks for \p N processes to claim one at a time: the
/// largest units first (a process that draws a long one late would finish
/// last), about 16 chunks per process so that they finish close together,
/// each chunk in unit order. The work of a unit is roughly its code size,
/// but a unit whose whole pipeline fails costs ten times more (it tries
/// subsets): claiming, not a fixed split, evens that out.
static std::vector<std::vector<size_t>>
chunkUnits(const std::vector<UnitState> &Units, const LiftedModule &LM,
           unsigned N) {
  std::map<std::string, uint64_t> Size;
  for (const LiftedFunction &LF : LM.functions())
    Size[LF.Range.Name] = LF.Range.Size;
  std::vector<std::pair<uint64_t, size_t>> BySize;
  uint64_t Total = 0;
  for (size_t U = 0; U < Units.size(); ++U) {
    uint64_t Bytes = 0;
    for (const std::string &F : Units[U].Functions)
      Bytes += Size.count(F) ? Size[F] : 0;
    BySize.push_back({Bytes, U});
    Total += Bytes;
  }
  llvm::stable_sort(BySize, [](auto &A, auto &B) { return A.first > B.first; });
  uint64_t Target = std::max<uint64_t>(Total / (16 * N), 1);
  std::vector<std::vector<size_t>> Chunks;
  uint64_t Filled = Target;
  for (auto [Bytes, U] : BySize) {
    if (Filled >= Target) {
      Chunks.emplace_back();
      Filled = 0;
    }
    Chunks.back().push_back(U);
    Filled += Bytes;
  }
  for (std::vector<size_t> &C : Chunks)
    llvm::sort(C);
  return Chunks;
}


Error Search::searchClaimed(SharedCounter &Counter, unsigned Processes,
                            function_ref<void(std::string)> Send,
                            function_ref<Error()> Poll) {
  std::vector<std::vector<size_t>> Chunks =
      chunkUnits(Units, *Work, Processes);
  ModuleOutcome Unused;
  for (unsigned C; (C = Counter.claim()) < Chunks.size();) {
    // The chunk in a Search of its own over Work, with its kept sets
    // applied there (what finishInPlace would do for them later).
    std::vector<UnitState> Part;
    for (size_t U : Chunks[C])
      Part.push_back(Units[U]);
    Search T(K0, O, Unused, K0Cost, Part);
    T.Work = std::move(Work);
    Error E = T.search();
    if (!E)
      E = T.applyKeptInPlace(T.keptUnits());
    Work = std::move(T.Work);
    if (E)
      return E;
    // The kept functions are final: their cost now, and in a worker their
    // MIR, while the other processes still search.
    std::set<std::string> Kept;
    std::vector<std::string> Names;
    for (const UnitState &S : Part)
      if (S.InWork) {
        Kept.insert(S.Functions.begin(), S.Functions.end());
        llvm::append_range(Names, S.Functions);
      }
    std::map<std::string, double> Cost;
    {
      PhaseScope P("candidate: static cost");
      for (auto &[Fn, V] :
           staticCost(*Work, timing::TimingConfig::mi300x(), &Kept))
        if (Kept.count(Fn))
          Cost[Fn] = V;
    }
    if (Send) {
      json::Array Us;
      for (size_t K = 0; K < Part.size(); ++K) {
        json::Value V = unitJSON(Part[K]);
        (*V.getAsObject())["index"] = (int64_t)Chunks[C][K];
        Us.push_back(std::move(V));
      }
      json::Object St;
      for (auto &[Fn, PerPass] : T.WorkStats) {
        json::Object P;
        for (auto &[Pass, Stat] : PerPass)
          P[Pass] = passStatJSON(Stat);
        St[Fn] = std::move(P);
      }
      json::Object Co;
      for (auto &[Fn, V] : Cost)
        Co[Fn] = V;
      // The MIR does not hold regalloc-compact's flags, and the counts the
      // emitter declares depend on them.
      json::Object Renumbered;
      for (const std::string &Name : Names)
        if (const LiftedFunction *LF = Work->findFunction(Name))
          if (LF->RegistersRenumbered || LF->SGPRsRenumbered)
            Renumbered[Name] = json::Array{LF->RegistersRenumbered,
                                           LF->SGPRsRenumbered};
      json::Object R{{"units", std::move(Us)},
                     {"stats", std::move(St)},
                     {"cost", std::move(Co)},
                     {"functions", json::Array(Names)},
                     {"renumbered", std::move(Renumbered)}};
      // After the JSON and a NUL (which JSON text never holds): the MIR
      // is most of the message, and reading it as a JSON string would
      // cost more than the import itself.
      std::string Text;
      raw_string_ostream OS(Text);
      OS << json::Value(std::move(R)) << '\0';
      if (Error E = Work->printFunctionsMIR(Names, OS))
        return E;
      Send(std::move(Text));
    } else {
      for (auto &[Fn, PerPass] : T.WorkStats)
        WorkStats[Fn] = std::move(PerPass);
      for (auto &[Fn, V] : Cost)
        KeptCost[Fn] = V;
    }
    for (size_t K = 0; K < Part.size(); ++K)
      Units[Chunks[C][K]] = std::move(Part[K]);
    if (Poll)
      if (Error E = Poll())
        return E;
  }
  return Error::success();
}

Error Search::importChunk(StringRef Message) {
  PhaseScope P("candidate: import");
  auto [Head, MIR] = Message.split('\0');
  auto V = json::parse(Head);
  const json::Object *R = V ? V->getAsObject() : nullptr;
  if (!V)
    consumeError(V.takeError());
  if (!R)
    return createStringError("an optimizer worker answered garbage");
  if (auto F = R->getString("fatal"))
    return createStringError(*F);
  const json::Array *Us = R->getArray("units");
  const json::Array *Fns = R->getArray("functions");
  const json::Object *St = R->getObject("stats");
  const json::Object *Cost = R->getObject("cost");
  if (!Us || !Fns || !St || !Cost)
    return createStringError("an optimizer worker answered garbage");
  for (const json::Value &UV : *Us) {
    const json::Object *U = UV.getAsObject();
    std::optional<int64_t> I = U ? U->getInteger("index") : std::nullopt;
    if (!I || *I < 0 || (size_t)*I >= Units.size())
      return createStringError("an optimizer worker answered garbage");
    if (Error E = unitFromJSON(*U, Units[*I]))
      return E;
  }
  for (auto &[Fn, PerPass] : *St)
    if (const json::Object *PP = PerPass.getAsObject())
      for (auto &[Pass, Stat] : *PP)
        if (const json::Array *A = Stat.getAsArray())
          WorkStats[Fn.str()][Pass.str()] = passStatFromJSON(Pass, *A);
  for (auto &[Fn, C] : *Cost)
    if (auto V = C.getAsNumber())
      KeptCost[Fn.str()] = *V;
  std::vector<std::string> Names;
  for (const json::Value &F : *Fns)
    if (auto Name = F.getAsString())
      Names.push_back(Name->str());
  if (Error E = Work->importFunctionsMIR(MIR, Names))
    return E;
  if (const json::Object *Ren = R->getObject("renumbered"))
    for (auto &[Fn, Flags] : *Ren) {
      LiftedFunction *LF = Work->findFunction(Fn.str());
      const json::Array *A = Flags.getAsArray();
      if (!LF || !A || A->size() != 2)
        return createStringError("an optimizer worker answered garbage");
      LF->RegistersRenumbered = (*A)[0].getAsBoolean().value_or(false);
      LF->SGPRsRenumbered = (*A)[1].getAsBoolean().value_or(false);
    }
  return Error::success();
}

} // namespace optimize
} // namespace asmevo
