//===- Optimizer.cpp - The -O job on one code object ----------------------===//
#include "asmevo/Rewrite/Optimizer.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Rewrite/PatchInPlace.h"
#include "asmevo/Rewrite/StaticCost.h"
#include "asmevo/Support/PhaseTimer.h"
#include "asmevo/Transforms/ApplyEdits.h"
#include "asmevo/Timing/Config.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <sys/wait.h>
#include <unistd.h>

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

Expected<Candidate> buildCandidate(const CodeObject &K0,
                                   ArrayRef<std::string> Passes,
                                   const LiftOptions &LO,
                                   const CandidateOptions &Opts) {
  PhaseScope Phase("candidate");
  Candidate C;
  C.Passes.assign(Passes.begin(), Passes.end());
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
  PipelineOptions PO = Opts.Print;
  PO.VerifyEach = true;
  PO.Stats = &C.Stats;
  EditRecorder Recorder;
  if (Opts.RecordEdits)
    PO.Record = &Recorder;
  if (!Passes.empty())
    if (Error E = runPipeline(**LM, join(Passes, ","), PO))
      return std::move(E);
  C.Edits = std::move(Recorder.script());
  for (const PassStat &S : C.Stats)
    C.Changed |= S.FunctionsChanged > 0;
  C.Instructions = countInstructions(**LM);
  if (Opts.StaticCost) {
    PhaseScope P("candidate: static cost");
    C.Cost = staticCost(**LM, timing::TimingConfig::mi300x());
  }
  if (Passes.empty())
    return std::move(C);
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
/// One code object's search over pass sets.
class Search {
public:
  Search(const CodeObject &K0, const OptimizeOptions &O, ModuleOutcome &Out,
         std::map<std::string, double> K0Cost)
      : K0(K0), O(O), Out(Out), K0Cost(std::move(K0Cost)) {}

  Error run();

private:
  /// Builds and gates \p Passes; returns the index of its Attempt.
  Expected<size_t> attempt(std::vector<std::string> Passes, bool First);
  /// attempt() of each of \p Sets, in worker processes (O.Jobs); the
  /// attempts are recorded as summaries (verdict, check, reason, score),
  /// their candidates built again in this process only when kept.
  Error attemptInWorkers(const std::vector<std::vector<std::string>> &Sets);
  /// Builds the candidate of a worker's attempt \p I here.
  Error materialize(size_t I);
  double score(size_t I) const {
    const Attempt &A = Out.Attempts[I];
    if (!A.Gate.Accepted)
      return 0;
    if (I < Remote.size() && Remote[I])
      return *Remote[I];
    return A.Gate.Speed ? A.Gate.Speed->Median : 1.0;
  }
  /// Passes of \p S in pipeline order.
  std::vector<std::string> ordered(const std::set<std::string> &S) const {
    std::vector<std::string> R;
    for (const std::string &P : O.Passes)
      if (S.count(P) && !is_contained(R, P))
        R.push_back(P);
    return R;
  }

  const CodeObject &K0;
  const OptimizeOptions &O;
  ModuleOutcome &Out;
  std::map<std::string, double> K0Cost;
  std::vector<Candidate> Candidates; ///< Parallel to Out.Attempts.
  /// Parallel to Out.Attempts: a worker's score, for attempts whose
  /// candidate is not here (materialize builds it).
  std::vector<std::optional<double>> Remote;
};
} // namespace

/// A worker's attempt, as it crosses the pipe.
static json::Value attemptJSON(const Attempt &A, double Score) {
  return json::Object{{"built", A.Built},         {"changed", A.Changed},
                      {"error", A.Error},         {"accepted", A.Gate.Accepted},
                      {"check", A.Gate.Check},    {"reason", A.Gate.Reason},
                      {"score", Score}};
}

Error Search::attemptInWorkers(
    const std::vector<std::vector<std::string>> &Sets) {
  unsigned N = std::min<size_t>(std::max(O.Jobs, 1u), Sets.size());
  if (N <= 1) {
    for (const auto &S : Sets)
      if (auto I = attempt(S, false); !I)
        return I.takeError();
    return Error::success();
  }
  struct Worker {
    pid_t Pid;
    int FD;
  };
  std::vector<Worker> Workers;
  // Written before forking, so that the children's output is not doubled.
  outs().flush();
  errs().flush();
  for (unsigned W = 0; W < N; ++W) {
    int P[2];
    if (pipe(P) != 0)
      return createStringError("cannot create a pipe for a worker");
    pid_t Pid = fork();
    if (Pid < 0)
      return createStringError("cannot fork a worker");
    if (Pid == 0) {
      close(P[0]);
      json::Array Results;
      for (size_t K = W; K < Sets.size(); K += N) {
        auto I = attempt(Sets[K], false);
        if (!I) {
          Results.push_back(json::Object{{"fatal", toString(I.takeError())}});
          break;
        }
        Results.push_back(attemptJSON(Out.Attempts[*I], score(*I)));
      }
      std::string Text;
      raw_string_ostream OS(Text);
      OS << json::Value(std::move(Results));
      OS.flush();
      for (size_t Done = 0; Done < Text.size();) {
        ssize_t R = write(P[1], Text.data() + Done, Text.size() - Done);
        if (R <= 0)
          break;
        Done += R;
      }
      close(P[1]);
      _exit(0);
    }
    close(P[1]);
    Workers.push_back({Pid, P[0]});
  }
  std::vector<json::Array> Answers(N);
  std::string Failure;
  for (unsigned W = 0; W < N; ++W) {
    std::string Text;
    char Buf[65536];
    for (ssize_t R; (R = read(Workers[W].FD, Buf, sizeof(Buf))) > 0;)
      Text.append(Buf, R);
    close(Workers[W].FD);
    int Status = 0;
    waitpid(Workers[W].Pid, &Status, 0);
    auto V = json::parse(Text);
    if (!V || !V->getAsArray()) {
      if (!V)
        consumeError(V.takeError());
      Failure = "an optimizer worker died (status " + std::to_string(Status) +
                ")";
      continue;
    }
    Answers[W] = std::move(*V->getAsArray());
  }
  if (!Failure.empty())
    return createStringError(Failure);
  // Recorded in the order a single process would have made them.
  for (size_t K = 0; K < Sets.size(); ++K) {
    json::Array &A = Answers[K % N];
    size_t At = K / N;
    if (At >= A.size())
      return createStringError("an optimizer worker answered too little");
    const json::Object *R = A[At].getAsObject();
    if (auto F = R->getString("fatal"))
      return createStringError(*F);
    Attempt T;
    T.Passes = Sets[K];
    T.Built = R->getBoolean("built").value_or(false);
    T.Changed = R->getBoolean("changed").value_or(false);
    T.Error = R->getString("error").value_or("").str();
    T.Gate.Accepted = R->getBoolean("accepted").value_or(false);
    T.Gate.Check = R->getString("check").value_or("").str();
    T.Gate.Reason = R->getString("reason").value_or("").str();
    Out.Attempts.push_back(std::move(T));
    Candidates.emplace_back();
    Remote.resize(Out.Attempts.size());
    Remote.back() = R->getNumber("score").value_or(0);
  }
  return Error::success();
}

Error Search::materialize(size_t I) {
  if (I >= Remote.size() || !Remote[I])
    return Error::success();
  // The same deterministic build and gate the worker ran.
  std::vector<std::string> Passes = Out.Attempts[I].Passes;
  Out.Attempts[I].Passes.clear(); // so that attempt() builds it afresh
  auto J = attempt(Passes, false);
  if (!J)
    return J.takeError();
  Out.Attempts[I] = std::move(Out.Attempts[*J]);
  Candidates[I] = std::move(Candidates[*J]);
  Remote[I].reset();
  Out.Attempts.pop_back();
  Candidates.pop_back();
  Remote.resize(Out.Attempts.size());
  return Error::success();
}

Expected<size_t> Search::attempt(std::vector<std::string> Passes,
                                 bool First) {
  for (size_t I = 0; I < Out.Attempts.size(); ++I)
    if (Out.Attempts[I].Passes == Passes)
      return I;
  Attempt A;
  A.Passes = Passes;
  PipelineOptions PO;
  if (First)
    PO = O.Print;
  CandidateOptions CO;
  CO.Print = PO;
  CO.PatchInPlace = O.PatchInPlace;
  CO.StaticCost = !O.Gate.Spec;
  CO.RecordEdits = O.RecordEdits;
  auto C = buildCandidate(K0, Passes, O.Lift, CO);
  if (!C) {
    // A pass that fails or breaks a static check rules out this set, not
    // the run: the other sets may still be good.
    A.Built = false;
    A.Error = toString(C.takeError());
    A.Gate.Check = "static";
    A.Gate.Reason = A.Error;
    Out.Attempts.push_back(std::move(A));
    Candidates.emplace_back();
    return Out.Attempts.size() - 1;
  }
  A.Changed = C->Changed;
  if (!C->Changed) {
    A.Gate.Reason = "no pass changed anything";
  } else {
    PhaseScope P("gate");
    auto G = runGate(K0, *C->CO, C->Map, O.Gate);
    if (!G)
      return G.takeError();
    A.Gate = std::move(*G);
    if (!O.Gate.Spec && A.Gate.Accepted) {
      // --trust-static: the static cost decides (StaticCost.h).
      double Before = 0, After = 0;
      for (const auto &[Fn, Cost] : C->Cost) {
        double Old = K0Cost.count(Fn) ? K0Cost.at(Fn) : 0;
        Before += Old;
        After += Cost;
        if (Cost > Old) {
          A.Gate.Accepted = false;
          A.Gate.Reason = formatv("static cost of '{0}' went up: {1:F0} -> "
                                  "{2:F0} weighted issue cycles",
                                  Fn, Old, Cost)
                              .str();
          break;
        }
      }
      if (A.Gate.Accepted)
        A.Gate.Reason += formatv("; static cost {0:F0} -> {1:F0} weighted "
                                 "issue cycles",
                                 Before, After)
                             .str();
    }
  }
  Out.Attempts.push_back(std::move(A));
  Candidates.push_back(std::move(*C));
  return Out.Attempts.size() - 1;
}

Error Search::run() {
  if (O.Passes.empty())
    return Error::success();
  auto Full = attempt(O.Passes, /*First=*/true);
  if (!Full)
    return Full.takeError();
  size_t Best = *Full;
  bool FullChanged = Out.Attempts[*Full].Changed || !Out.Attempts[*Full].Built;
  if (!Out.Attempts[*Full].Gate.Accepted && O.TrySubsets &&
      O.Passes.size() > 1 && FullChanged) {
    // Each pass alone, then the accepted ones combined greedily from the
    // best: the pass at fault in the whole pipeline drops out.
    std::vector<std::pair<double, std::string>> Good;
    std::vector<std::vector<std::string>> Singles;
    for (const std::string &P : O.Passes)
      Singles.push_back({P});
    if (Error E = attemptInWorkers(Singles))
      return E;
    for (const std::string &P : O.Passes) {
      auto I = attempt({P}, false);
      if (!I)
        return I.takeError();
      if (Out.Attempts[*I].Gate.Accepted)
        Good.push_back({score(*I), P});
      if (score(*I) > score(Best))
        Best = *I;
    }
    llvm::stable_sort(Good, [](auto &A, auto &B) { return A.first > B.first; });
    if (Good.size() > 1) {
      std::set<std::string> Set{Good.front().second};
      for (size_t G = 1; G < Good.size(); ++G) {
        std::set<std::string> Try = Set;
        Try.insert(Good[G].second);
        auto I = attempt(ordered(Try), false);
        if (!I)
          return I.takeError();
        if (score(*I) > score(Best)) {
          Best = *I;
          Set = Try;
        }
      }
    }
  }
  if (Out.Attempts[Best].Gate.Accepted && Out.Attempts[Best].Changed)
    if (Error E = materialize(Best))
      return E;
  const Attempt &A = Out.Attempts[Best];
  if (A.Gate.Accepted && A.Changed) {
    Candidate &C = Candidates[Best];
    Out.Bytes = C.Rebuilt.Linked;
    // The passes of the accepted set that changed something.
    for (const PassStat &S : C.Stats)
      if (S.FunctionsChanged && !is_contained(Out.AcceptedPasses, S.Pass))
        Out.AcceptedPasses.push_back(S.Pass);
    Out.Final = A.Gate;
    Out.Stats = C.Stats;
    Out.K1Instructions = C.Instructions;
    if (!Out.Kernels.empty())
      if (const KernelInfo *K = C.CO->findKernel(Out.Kernels.front()))
        Out.K1VGPRs = K->KD.allocatedVGPRs();
    Out.Patched = C.Patched;
    Out.PatchedInstructions = C.PatchedInstructions;
    Out.Rebuilt = std::move(C.Rebuilt);
    Out.Edits = std::move(C.Edits);
    Out.Why = A.Gate.Reason;
    return Error::success();
  }
  // Nothing accepted: the original stays, with the reason of the whole
  // pipeline's attempt (the one the user asked for).
  const Attempt &F = Out.Attempts[*Full];
  Out.Why = F.Gate.Check.empty() ? F.Gate.Reason
                                 : F.Gate.Check + ": " + F.Gate.Reason;
  if (Best != *Full && !Out.Attempts[Best].Gate.Accepted)
    Out.Why += " (no subset of the passes was accepted either)";
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
  // K0's own figures, and its time, for the report (and for kernels that
  // stay unchanged).
  CandidateOptions BaseOpts;
  BaseOpts.StaticCost = !O.Gate.Spec;
  auto Base = buildCandidate(K0, {}, Opts.Lift, BaseOpts);
  if (!Base)
    return Base.takeError();
  Out.K0Instructions = Out.K1Instructions = Base->Instructions;
  // Every candidate is gated against this K0: its trace is taken once.
  Opts.Gate.Memo = makeGateMemo();
  if (O.Gate.Spec) {
    auto T = timeOnly(K0, Opts.Gate);
    if (!T)
      return T.takeError();
    Out.Final = std::move(*T);
  }
  Search S(K0, Opts, Out, Base->Cost);
  if (Error E = S.run())
    return std::move(E);
  return std::move(Out);
}

} // namespace asmevo
