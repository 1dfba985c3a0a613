//===- Optimizer.cpp - The -O job on one code object ----------------------===//
#include "asmevo/Rewrite/Optimizer.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Rewrite/ForkWorkers.h"
#include "asmevo/Rewrite/PatchInPlace.h"
#include "asmevo/Rewrite/StaticCost.h"
#include "asmevo/Support/PhaseTimer.h"
#include "asmevo/Transforms/ApplyEdits.h"
#include "asmevo/Transforms/KernelUnits.h"
#include "asmevo/Timing/Config.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <atomic>
#include <sys/mman.h>

using namespace llvm;

namespace asmevo {

static uint64_t countInstructions(LiftedModule &LM) {
  uint64_t N = 0;
  for (LiftedFunction &LF : LM.functions()) {
    if (!LF.Simple || !LF.MF) {
      N += LF.NumInstrs;
      continue;
    }
    for (MachineBasicBlock &MBB : *LF.MF)
      for (MachineInstr &MI : MBB)
        N += !MI.isMetaInstruction();
  }
  return N;
}

std::set<std::string> Candidate::changedFunctions() const {
  std::set<std::string> Out;
  for (const auto &[Pass, Fns] : ChangedBy)
    Out.insert(Fns.begin(), Fns.end());
  return Out;
}

std::string UnitOutcome::name() const {
  return join(Kernels.empty() ? Functions : Kernels, ", ");
}

/// \p Step's stats added to \p Into, pass by pass (a pass of several
/// steps is one entry, at its first place).
static void mergeStats(std::vector<PassStat> &Into,
                       const std::vector<PassStat> &Step) {
  for (const PassStat &S : Step) {
    auto It = llvm::find_if(Into, [&](const PassStat &P) {
      return P.Pass == S.Pass;
    });
    if (It == Into.end()) {
      Into.push_back(S);
      continue;
    }
    It->FunctionsChanged += S.FunctionsChanged;
    It->Added += S.Added;
    It->Removed += S.Removed;
    It->Rewritten += S.Rewritten;
    It->IntroducedViolations += S.IntroducedViolations;
  }
}

Expected<Candidate> buildCandidate(const CodeObject &K0,
                                   ArrayRef<std::string> Passes,
                                   const LiftOptions &LO,
                                   const CandidateOptions &Opts) {
  PlanStep Step;
  Step.Passes.assign(Passes.begin(), Passes.end());
  return buildCandidate(K0, ArrayRef<PlanStep>(Step), LO, Opts);
}

Expected<Candidate> buildCandidate(const CodeObject &K0,
                                   ArrayRef<PlanStep> Plan,
                                   const LiftOptions &LO,
                                   const CandidateOptions &Opts) {
  PhaseScope Phase("candidate");
  Candidate C;
  bool AnyPass = false;
  for (const PlanStep &S : Plan) {
    AnyPass |= !S.Passes.empty();
    for (const std::string &P : S.Passes)
      if (!is_contained(C.Passes, P))
        C.Passes.push_back(P);
  }
  auto CO = CodeObject::create(K0.image(), K0.name());
  if (!CO)
    return CO.takeError();
  LiftOptions L = LO;
  L.Finalize = true;
  Expected<std::unique_ptr<LiftedModule>> LM = nullptr;
  {
    PhaseScope P("candidate: lift");
    LM = LiftedModule::lift(std::move(*CO), L);
  }
  if (!LM)
    return LM.takeError();
  if (Opts.Units)
    C.Units = kernelUnits(**LM);
  EditRecorder Recorder;
  // The functions the plan may change: only their cost can differ from
  // K0's, so only theirs is computed (unset: every function's).
  std::optional<std::set<std::string>> Scope;
  if (llvm::all_of(Plan, [](const PlanStep &S) {
        return S.Passes.empty() || S.Functions;
      })) {
    Scope.emplace();
    for (const PlanStep &S : Plan)
      if (!S.Passes.empty())
        Scope->insert(S.Functions->begin(), S.Functions->end());
  }
  for (const PlanStep &S : Plan) {
    if (S.Passes.empty())
      continue;
    PipelineOptions PO = Opts.Print;
    PO.VerifyEach = true;
    std::vector<PassStat> Stats;
    PO.Stats = &Stats;
    PO.ChangedFunctions = &C.ChangedBy;
    if (S.Functions)
      PO.OnlyFunctions = &*S.Functions;
    if (Opts.RecordEdits)
      PO.Record = &Recorder;
    if (Error E = runPipeline(**LM, join(S.Passes, ","), PO))
      return std::move(E);
    mergeStats(C.Stats, Stats);
  }
  C.Edits = std::move(Recorder.script());
  for (const PassStat &S : C.Stats)
    C.Changed |= S.FunctionsChanged > 0;
  C.Instructions = countInstructions(**LM);
  if (Opts.StaticCost) {
    PhaseScope P("candidate: static cost");
    C.Cost = staticCost(**LM, timing::TimingConfig::mi300x(),
                        AnyPass && Scope ? &*Scope : nullptr);
  }
  if (!AnyPass) {
    if (Opts.KeepModule)
      C.Module = std::move(*LM);
    return std::move(C);
  }
  Expected<RebuildResult> R = RebuildResult();
  {
    PhaseScope P("candidate: rebuild");
    R = rebuild(**LM);
  }
  if (!R)
    return R.takeError();
  C.Rebuilt = std::move(*R);
  for (const AddressMapEntry &E : C.Rebuilt.AddressMap)
    C.Map.NewToOld[E.NewAddr] = E.OrigAddr;
  C.Map.Path = (K0.name() + " (candidate)").str();
  auto New = CodeObject::create(ArrayRef<uint8_t>(C.Rebuilt.Linked),
                                (K0.name() + " (candidate)").str());
  if (!New)
    return New.takeError();
  C.CO = std::move(*New);
  if (Opts.PatchInPlace && C.Changed) {
    auto P = patchInPlace(K0, *C.CO, C.Rebuilt);
    if (!P)
      return createStringError("not patchable in place: " +
                               toString(P.takeError()));
    C.Rebuilt.Linked = std::move(P->Bytes);
    C.Patched = true;
    C.PatchedInstructions = P->PatchedInstructions;
    auto PCO = CodeObject::create(ArrayRef<uint8_t>(C.Rebuilt.Linked),
                                  (K0.name() + " (patched)").str());
    if (!PCO)
      return PCO.takeError();
    C.CO = std::move(*PCO);
  }
  return std::move(C);
}

namespace {
/// The shared-module search found kept sets whose object cannot be
/// rebuilt; optimizeCodeObject searches again, rebuilding every candidate.
class InPlaceUnbuildable : public ErrorInfo<InPlaceUnbuildable> {
public:
  static char ID;
  std::string Msg;
  explicit InPlaceUnbuildable(std::string M) : Msg(std::move(M)) {}
  void log(raw_ostream &OS) const override { OS << Msg; }
  std::error_code convertToErrorCode() const override {
    return inconvertibleErrorCode();
  }
};
char InPlaceUnbuildable::ID;

/// One unit's place in the search (see Search).
struct UnitState {
  KernelUnit U;
  std::set<std::string> Functions;
  /// The spec restricted to this unit's launches (spec path, when the spec
  /// launches kernels of other units too).
  std::optional<emu::LaunchSpec> OwnSpec;
  GateOptions Gate;
  UnitOutcome Out;
  /// Parallel to Out.Attempts: the candidate, while it may be kept (only
  /// for attempts made in this process; shared by the units of one build).
  std::vector<std::shared_ptr<Candidate>> Cands;
  size_t Full = 0, Best = 0;
  /// Its kept pass set's edits are in the shared module (Search::Work).
  bool InWork = false;
};

/// A counter the forked workers share (an anonymous shared mapping).
class SharedCounter {
public:
  SharedCounter() {
    void *P = mmap(nullptr, sizeof(std::atomic<unsigned>),
                   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (P != MAP_FAILED)
      Next = new (P) std::atomic<unsigned>(0);
  }
  ~SharedCounter() {
    if (Next)
      munmap(Next, sizeof(std::atomic<unsigned>));
  }
  bool valid() const { return Next != nullptr; }
  unsigned claim() { return Next->fetch_add(1); }

private:
  std::atomic<unsigned> *Next = nullptr;
};

/// One code object's search over pass sets, decided per unit. Each round
/// every undecided unit proposes pass sets; under --trust-static the units
/// that propose the same set share one build (the static cost is per
/// function), while with a spec each unit's candidate changes that unit
/// alone, so that the verifier and the timing judge only its edits.
class Search {
public:
  Search(const CodeObject &K0, const OptimizeOptions &O, ModuleOutcome &Out,
         std::map<std::string, double> K0Cost, std::vector<UnitState> &Units)
      : K0(K0), O(O), Out(Out), K0Cost(std::move(K0Cost)), Units(Units) {}

  Error run() {
    if (Error E = search())
      return E;
    return finish();
  }
  /// run() spread over processes (optimizeCodeObject forks them before
  /// the lift, so that each lifts its own Work): each claims chunks of the
  /// units (chunkUnits) through \p Counter, searches them and applies
  /// their kept sets in its Work. A worker sends each chunk's decisions
  /// and the functions it changed, as MIR, through \p Send; the parent
  /// imports what has arrived between its own chunks (\p Poll) and the
  /// rest at the end (importChunk), then rebuilds once (finish). The
  /// decisions are the same as run()'s because a unit's never depend on
  /// the other units in the module (the passes edit only OnlyFunctions,
  /// and units are closed under calls), nor do functions being imported
  /// meanwhile change what a pass sees of the running unit.
  Error searchClaimed(SharedCounter &Counter, unsigned Processes,
                      function_ref<void(std::string)> Send,
                      function_ref<Error()> Poll);
  /// One chunk's message from a worker, into Work and Units.
  Error importChunk(StringRef Message);
  Error finish();

private:
  /// The rounds of proposals, up to the decision of every unit.
  Error search();
  struct Proposal {
    size_t Unit;
    std::vector<std::string> Passes;
  };
  struct Group {
    std::vector<std::string> Passes;
    std::vector<size_t> Units;
  };
  /// Attempts of each proposal not yet attempted by its unit.
  Error evaluate(std::vector<Proposal> Ps, bool First = false);
  /// Builds \p G's set over its units and judges it for each of them.
  Expected<std::vector<Attempt>>
  runGroup(const Group &G, bool First, std::shared_ptr<Candidate> &Cand);
  /// Judges the built \p C for unit \p U.
  Expected<Attempt> judge(const Candidate &C, size_t U);
  /// runGroup() of each of \p Gs, in worker processes (O.Jobs); the
  /// attempts come back as summaries (verdict, check, reason, score).
  Expected<std::vector<std::vector<Attempt>>>
  runInWorkers(const std::vector<Group> &Gs);
  std::optional<size_t> find(size_t U,
                             const std::vector<std::string> &P) const {
    const auto &A = Units[U].Out.Attempts;
    for (size_t I = 0; I < A.size(); ++I)
      if (A[I].Passes == P)
        return I;
    return std::nullopt;
  }
  double score(size_t U, size_t I) const {
    const Attempt &A = Units[U].Out.Attempts[I];
    return A.Gate.Accepted ? A.Score : 0;
  }
  /// Passes of \p S in pipeline order.
  std::vector<std::string> ordered(const std::set<std::string> &S) const {
    std::vector<std::string> R;
    for (const std::string &P : O.Passes)
      if (S.count(P) && !is_contained(R, P))
        R.push_back(P);
    return R;
  }
  /// Drops the candidates no unit can still keep.
  void prune();
  /// runGroup() in the shared module Work: the passes run over the group's
  /// functions there, and every function whose edits are not kept is
  /// lifted again from K0 afterwards.
  /// In the first round (\p Keep) an accepted unit's edits stay in Work.
  Expected<std::vector<Attempt>> runGroupInPlace(const Group &G, bool Keep,
                                                 bool Print);
  /// The units whose best attempt is kept (accepted, and changed them).
  std::vector<size_t> keptUnits() const;
  /// Each of \p Kept's pass sets run in Work where its edits are not yet.
  Error applyKeptInPlace(ArrayRef<size_t> Kept);
  /// The kept sets applied in Work (those not already there) and Work
  /// rebuilt: the output candidate.
  Expected<std::shared_ptr<Candidate>> finishInPlace(ArrayRef<size_t> Kept);
  void reliftAll(const std::set<std::string> &Fns) {
    PhaseScope P("candidate: relift");
    for (LiftedFunction &LF : Work->functions())
      if (Fns.count(LF.Range.Name))
        Work->relift(LF);
  }

public:
  /// --trust-static in one process: one lifted module serves every
  /// candidate (K0's own lift), instead of a lift and a rebuild each.
  std::unique_ptr<LiftedModule> Work;

private:
  /// Per function of Work holding kept edits: each pass's share of them.
  std::map<std::string, std::map<std::string, PassStat>> WorkStats;
  /// Static cost of the functions of kept units, computed by the process
  /// that searched them (StaticCost.h; finishInPlace computes the rest).
  std::map<std::string, double> KeptCost;

  const CodeObject &K0;
  const OptimizeOptions &O;
  ModuleOutcome &Out;
  std::map<std::string, double> K0Cost;
  std::vector<UnitState> &Units;
};
} // namespace

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
static std::string fatalAnswer(Error E) {
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
      json::Object R{{"units", std::move(Us)},
                     {"stats", std::move(St)},
                     {"cost", std::move(Co)},
                     {"functions", json::Array(Names)}};
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
  return Work->importFunctionsMIR(MIR, Names);
}

Expected<Attempt> Search::judge(const Candidate &C, size_t U) {
  UnitState &S = Units[U];
  Attempt A;
  A.Passes = C.Passes;
  A.Unit = S.U.name();
  std::set<std::string> Changed = C.changedFunctions();
  A.Changed = llvm::any_of(S.Functions, [&](const std::string &F) {
    return Changed.count(F);
  });
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
    return Error::success();
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
  return Error::success();
}

Expected<std::vector<Attempt>>
Search::runGroupInPlace(const Group &G, bool Keep, bool Print) {
  std::set<std::string> Scope;
  for (size_t U : G.Units)
    Scope.insert(Units[U].Functions.begin(), Units[U].Functions.end());
  Candidate C;
  C.Passes = G.Passes;
  std::map<std::string, std::map<std::string, PassStat>> FS;
  PipelineOptions PO;
  if (Print)
    PO = O.Print;
  PO.VerifyEach = true;
  PO.Stats = &C.Stats;
  PO.ChangedFunctions = &C.ChangedBy;
  PO.FunctionStats = &FS;
  PO.OnlyFunctions = &Scope;
  std::vector<Attempt> As;
  Error E = Error::success();
  {
    PhaseScope P("candidate");
    E = runPipeline(*Work, join(G.Passes, ","), PO);
  }
  if (E) {
    reliftAll(Scope);
    if (G.Units.size() > 1) {
      // Whose function broke is not known: each unit alone says.
      consumeError(std::move(E));
      for (size_t U : G.Units) {
        auto A = runGroupInPlace({G.Passes, {U}}, Keep, false);
        if (!A)
          return A.takeError();
        As.push_back(std::move(A->front()));
      }
      return std::move(As);
    }
    Attempt A;
    A.Passes = G.Passes;
    A.Built = false;
    A.Error = toString(std::move(E));
    A.Gate.Check = "static";
    A.Gate.Reason = A.Error;
    As.push_back(std::move(A));
    return std::move(As);
  }
  {
    PhaseScope P("candidate: static cost");
    C.Cost = staticCost(*Work, timing::TimingConfig::mi300x(), &Scope);
  }
  std::set<std::string> Undo;
  for (size_t U : G.Units) {
    auto A = judge(C, U);
    if (!A)
      return A.takeError();
    // The whole pipeline accepted in the first round is this unit's
    // outcome (it tries no subset): its edits stay in Work.
    if (Keep && A->Gate.Accepted && A->Changed) {
      for (const std::string &F : Units[U].Functions)
        for (auto &[Pass, PerFn] : FS)
          if (auto It = PerFn.find(F); It != PerFn.end())
            WorkStats[F][Pass] = It->second;
      Units[U].InWork = true;
    } else {
      Undo.insert(Units[U].Functions.begin(), Units[U].Functions.end());
    }
    As.push_back(std::move(*A));
  }
  reliftAll(Undo);
  return std::move(As);
}

std::vector<size_t> Search::keptUnits() const {
  std::vector<size_t> Kept;
  for (size_t U = 0; U < Units.size(); ++U) {
    const UnitState &S = Units[U];
    if (S.Out.Attempts.empty())
      continue;
    const Attempt &B = S.Out.Attempts[S.Best];
    if (B.Gate.Accepted && B.Changed)
      Kept.push_back(U);
  }
  return Kept;
}

Error Search::applyKeptInPlace(ArrayRef<size_t> Kept) {
  for (size_t U : Kept) {
    UnitState &S = Units[U];
    if (S.InWork)
      continue;
    std::map<std::string, std::map<std::string, PassStat>> FS;
    std::vector<PassStat> Stats;
    PipelineOptions PO;
    PO.VerifyEach = true;
    PO.Stats = &Stats;
    PO.FunctionStats = &FS;
    PO.OnlyFunctions = &S.Functions;
    PhaseScope P("candidate");
    // Out.Passes is only set by finish(): the best attempt's set.
    if (Error E = runPipeline(*Work, join(S.Out.Attempts[S.Best].Passes, ","),
                              PO))
      return createStringError("the kept pass sets together: " +
                               toString(std::move(E)));
    for (const std::string &F : S.Functions)
      for (auto &[Pass, PerFn] : FS)
        if (auto It = PerFn.find(F); It != PerFn.end())
          WorkStats[F][Pass] = It->second;
    S.InWork = true;
  }
  return Error::success();
}

Expected<std::shared_ptr<Candidate>>
Search::finishInPlace(ArrayRef<size_t> Kept) {
  auto C = std::make_shared<Candidate>();
  std::set<std::string> KeptFns;
  for (size_t U : Kept)
    KeptFns.insert(Units[U].Functions.begin(), Units[U].Functions.end());
  if (Error E = applyKeptInPlace(Kept))
    return std::move(E);
  // The stats of the output: every pass of a kept set, each function's
  // share added up (what one run of the plan would count).
  for (const std::string &P : O.Passes) {
    bool Ran = llvm::any_of(Kept, [&](size_t U) {
      return is_contained(Units[U].Out.Passes, P);
    });
    if (!Ran)
      continue;
    PassStat Sum;
    Sum.Pass = P;
    for (const std::string &F : KeptFns) {
      auto It = WorkStats.find(F);
      if (It == WorkStats.end())
        continue;
      auto J = It->second.find(P);
      if (J == It->second.end())
        continue;
      Sum.FunctionsChanged += J->second.FunctionsChanged;
      Sum.Added += J->second.Added;
      Sum.Removed += J->second.Removed;
      Sum.Rewritten += J->second.Rewritten;
      C->ChangedBy[P].insert(F);
    }
    C->Stats.push_back(Sum);
    C->Changed |= Sum.FunctionsChanged > 0;
  }
  C->Instructions = countInstructions(*Work);
  {
    PhaseScope P("candidate: static cost");
    std::set<std::string> Missing;
    for (const std::string &F : KeptFns)
      if (auto It = KeptCost.find(F); It != KeptCost.end())
        C->Cost[F] = It->second;
      else
        Missing.insert(F);
    if (!Missing.empty())
      for (auto &[Fn, Cost] :
           staticCost(*Work, timing::TimingConfig::mi300x(), &Missing))
        C->Cost.emplace(Fn, Cost);
  }
  Expected<RebuildResult> R = RebuildResult();
  {
    PhaseScope P("candidate: rebuild");
    R = rebuild(*Work);
  }
  if (!R)
    return R.takeError();
  C->Rebuilt = std::move(*R);
  for (const AddressMapEntry &E : C->Rebuilt.AddressMap)
    C->Map.NewToOld[E.NewAddr] = E.OrigAddr;
  C->Map.Path = (K0.name() + " (candidate)").str();
  auto New = CodeObject::create(ArrayRef<uint8_t>(C->Rebuilt.Linked),
                                (K0.name() + " (candidate)").str());
  if (!New)
    return New.takeError();
  C->CO = std::move(*New);
  return C;
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
      Out.Why = "nothing to optimize: no kernel was lifted as simple (a "
                "non-simple kernel keeps its bytes, and so do the device "
                "functions only such kernels call)";
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
    // lifted, only the kept units changed) need not be built again.
    C.reset();
    FromBest = false;
    if (Plan.size() == 1)
      for (size_t U : Try) {
        const std::shared_ptr<Candidate> &P = Units[U].Cands[Units[U].Best];
        if (!P)
          continue;
        std::set<std::string> Ch = P->changedFunctions();
        if (llvm::all_of(Ch, [&](const std::string &F) {
              return KeptFns.count(F);
            })) {
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

Expected<ModuleOutcome> optimizeCodeObject(const CodeObject &K0,
                                           const OptimizeOptions &O) {
  ModuleOutcome Out;
  Out.Name = K0.name().str();
  OptimizeOptions Opts = O;
  // Only the kernels the spec launches can be judged by running them; an
  // edit elsewhere would never execute and the verifier would say unknown.
  if (O.Gate.Spec) {
    for (const emu::SpecLaunch &L : O.Gate.Spec->Launches)
      if (const KernelInfo *K = verify::resolveLaunchedKernel(K0, L.Kernel))
        if (!is_contained(Out.Kernels, K->Name))
          Out.Kernels.push_back(K->Name);
    if (Out.Kernels.empty()) {
      Out.Why = "the launch spec runs no kernel of this code object; left "
                "unchanged";
      Out.K0Instructions = Out.K1Instructions = 0;
      return std::move(Out);
    }
    if (Opts.Lift.Kernels.empty())
      Opts.Lift.Kernels = Out.Kernels;
  } else {
    for (const KernelInfo &K : K0.kernels())
      if (Opts.Lift.Kernels.empty() || is_contained(Opts.Lift.Kernels, K.Name))
        Out.Kernels.push_back(K.Name);
  }
  if (!Out.Kernels.empty())
    if (const KernelInfo *K = K0.findKernel(Out.Kernels.front()))
      Out.K0VGPRs = Out.K1VGPRs = K->KD.allocatedVGPRs();
  // Whatever --jobs says: forked workers building a candidate each were
  // 0.55x the speed of the one shared module on hipBLASLt's 154 kernels
  // (docs/optimize-report.md), and the output is the same. --jobs shares
  // the units of the shared module out instead (Search::searchClaimed).
  bool InPlace = !O.Gate.Spec && !O.PatchInPlace && !O.RecordEdits &&
                 !getenv("ASMEVO_NO_SHARED_MODULE");
  // -print-after= and the reduction's filters speak of one process's
  // passes: they keep to one.
  bool Printing = O.Print.PrintAfterAll || !O.Print.PrintAfter.empty() ||
                  !O.Print.Filters.empty();
  unsigned Processes = InPlace && !Printing
                           ? std::min<size_t>(O.Jobs, Out.Kernels.size())
                           : 1;
  std::optional<Candidate> Base;
  std::vector<UnitState> Units, Fresh;
  ModuleOutcome Start;
  // K0's own figures, and its time, for the report (and for kernels that
  // stay unchanged). With several processes each makes its own (forked
  // before it: the lift is a tenth of the work), the same in all.
  auto Prepare = [&]() -> Error {
    CandidateOptions BaseOpts;
    BaseOpts.StaticCost = !O.Gate.Spec;
    BaseOpts.Units = true;
    BaseOpts.KeepModule = InPlace;
    auto B = buildCandidate(K0, ArrayRef<std::string>(), Opts.Lift, BaseOpts);
    if (!B)
      return B.takeError();
    Base = std::move(*B);
    Out.K0Instructions = Out.K1Instructions = Base->Instructions;
    // Every candidate is gated against this K0: its trace is taken once.
    Opts.Gate.Memo = makeGateMemo();
    if (O.Gate.Spec) {
      auto T = timeOnly(K0, Opts.Gate);
      if (!T)
        return T.takeError();
      Out.Final = std::move(*T);
    }
    for (KernelUnit &U : Base->Units) {
      // A device function no lifted kernel reaches stays as it is: with a
      // spec nothing launched would run an edit of it, and its callers kept
      // as bytes (non-simple kernels) expect of it what no pass can see
      // (the loads in flight across the call and its return).
      if (U.Kernels.empty())
        continue;
      UnitState S;
      S.Functions.insert(U.Functions.begin(), U.Functions.end());
      S.U = std::move(U);
      S.Gate = Opts.Gate;
      Units.push_back(std::move(S));
    }
    if (O.Gate.Spec && Units.size() > 1)
      for (UnitState &S : Units) {
        // Each unit is judged on its own launches, with a trace of its own.
        emu::LaunchSpec Own = *O.Gate.Spec;
        Own.Launches.clear();
        for (const emu::SpecLaunch &L : O.Gate.Spec->Launches)
          if (const KernelInfo *K = verify::resolveLaunchedKernel(K0, L.Kernel))
            if (is_contained(S.U.Kernels, K->Name))
              Own.Launches.push_back(L);
        if (Own.Launches.size() == O.Gate.Spec->Launches.size())
          continue;
        S.OwnSpec = std::move(Own);
        S.Gate.Spec = &*S.OwnSpec;
        S.Gate.Memo = makeGateMemo();
      }
    if (InPlace)
      Fresh = Units;
    Start.Name = Out.Name;
    Start.Kernels = Out.Kernels;
    Start.K0Instructions = Out.K0Instructions;
    Start.K1Instructions = Out.K1Instructions;
    Start.K0VGPRs = Out.K0VGPRs;
    Start.K1VGPRs = Out.K1VGPRs;
    Start.Final = Out.Final;
    return Error::success();
  };
  {
    std::optional<Search> S;
    Error E = Error::success();
    if (Processes > 1) {
      // Named so that a run shows it took this path, whichever process
      // happened to claim the chunks.
      PhaseScope P("search: shared out over processes");
      SharedCounter Counter;
      if (!Counter.valid())
        return createStringError("--jobs: cannot map memory to share with worker "
                                 "processes (--jobs 1 needs none)");
      auto Workers = ForkedWorkers::start(
          Processes, [&](unsigned, ForkedWorkers::SendFn Send) {
            if (Error E = Prepare())
              return Send(fatalAnswer(std::move(E)));
            Search W(K0, Opts, Out, Base->Cost, Units);
            W.Work = std::move(Base->Module);
            if (Error E = W.searchClaimed(Counter, Processes, Send, nullptr))
              Send(fatalAnswer(std::move(E)));
          });
      if (!Workers)
        return Workers.takeError();
      auto Import = [&](unsigned, StringRef Msg) { return S->importChunk(Msg); };
      E = Prepare();
      if (!E) {
        S.emplace(K0, Opts, Out, Base->Cost, Units);
        S->Work = std::move(Base->Module);
        E = S->searchClaimed(Counter, Processes, nullptr,
                             [&] { return (*Workers)->poll(Import); });
      }
      if (!E)
        E = (*Workers)->finish(Import);
      if (!E)
        E = S->finish();
    } else {
      if (Error E = Prepare())
        return std::move(E);
      S.emplace(K0, Opts, Out, Base->Cost, Units);
      S->Work = std::move(Base->Module);
      E = S->run();
    }
    if (!E)
      return std::move(Out);
    if (!InPlace || !E.isA<InPlaceUnbuildable>())
      return std::move(E);
    consumeError(std::move(E));
  }
  // Some candidate judged in the shared module cannot be rebuilt: search
  // again with a lift and a rebuild per candidate, which rejects those.
  Out = std::move(Start);
  Search S(K0, Opts, Out, Base->Cost, Fresh);
  if (Error E = S.run())
    return std::move(E);
  return std::move(Out);
}

} // namespace asmevo
