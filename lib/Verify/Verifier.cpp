//===- Verifier.cpp - Differential verification of K1 against K0 ---------===//
#include "asmevo/Verify/Verifier.h"
#include "asmevo/Verify/BufferCompare.h"
#include "asmevo/Verify/HsaBackend.h"
#include "asmevo/Verify/InputVariation.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/Emulator.h"
#include "asmevo/Emulator/KernelMetadata.h"
#include "asmevo/Emulator/LaunchSession.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <chrono>
#include <cstring>

using namespace llvm;
using namespace asmevo::emu;

namespace asmevo {
namespace verify {

StringRef verdictName(Verdict V) {
  switch (V) {
  case Verdict::Equivalent:
    return "equivalent";
  case Verdict::Different:
    return "different";
  case Verdict::Violation:
    return "violation";
  case Verdict::Unknown:
    return "unknown";
  }
  llvm_unreachable("bad verdict");
}

int verdictExitCode(Verdict V) {
  switch (V) {
  case Verdict::Equivalent:
    return 0;
  case Verdict::Different:
    return 1;
  case Verdict::Violation:
    return 2;
  case Verdict::Unknown:
    return 3;
  }
  llvm_unreachable("bad verdict");
}

namespace {

// Fatal violations that mean "the emulator could not run this", as
// opposed to "the kernel did something wrong".
bool cannotRun(const Violation &V) {
  return V.K == Violation::Unimplemented || V.K == Violation::Budget;
}

std::string violationText(const Violation &V) {
  std::string S;
  raw_string_ostream OS(S);
  V.print(OS);
  return StringRef(S).trim().str();
}

/// How many times K0's instruction count K1 may execute before it counts
/// as a runaway.
constexpr uint64_t RunawayFactor = 16;

struct Outcome {
  Verdict V = Verdict::Equivalent;
  std::string Reason;
  std::optional<Difference> Diff;
};

/// Judges one side's launches: nullopt when clean.
std::optional<Outcome> judgeRuns(StringRef Who,
                                 const std::vector<LaunchOutcome> &Out,
                                 const std::vector<std::string> &Guards,
                                 bool IsOracle, const RunConfig &R) {
  for (const LaunchOutcome &LO : Out)
    for (const Violation &V : LO.Result.Violations) {
      Outcome O;
      if (!IsOracle && V.K == Violation::Budget) {
        // K0 finished the same launch; K1 running far longer is not an
        // equivalent program (a broken loop bound, usually).
        O.V = Verdict::Violation;
        O.Reason = (Who + " did not finish within " +
                    Twine(RunawayFactor) + "x K0's instruction count (" +
                    R.describe() + "): " + violationText(V))
                       .str();
      } else if (cannotRun(V)) {
        O.V = Verdict::Unknown;
        O.Reason = (Who + " could not be run (" + R.describe() +
                    "): " + violationText(V)).str();
      } else if (IsOracle) {
        // K0 is the only oracle: when it misbehaves nothing can be judged.
        O.V = Verdict::Unknown;
        O.Reason = (Who + " itself reports a violation (" + R.describe() +
                    "): " + violationText(V)).str();
      } else {
        O.V = Verdict::Violation;
        O.Reason =
            (Who + " (" + R.describe() + "): " + violationText(V)).str();
      }
      return O;
    }
  if (!Guards.empty()) {
    Outcome O;
    O.V = IsOracle ? Verdict::Unknown : Verdict::Violation;
    O.Reason = (Who + " wrote a guard band (" + R.describe() + "): " +
                Guards.front())
                   .str();
    return O;
  }
  return std::nullopt;
}

/// K1's hazard hits, held to K0's. A K0 that leaves fewer wait states
/// than a rule asks (AMD's hand-written kernels do) is the oracle as it
/// runs on hardware; K1 may keep exactly those hazards (same rule, paired
/// consumer and producer, no more wait states missing) and nothing else.
/// \p Kept collects the sites K1 keeps.
std::optional<Outcome>
judgeHazards(const std::vector<LaunchOutcome> &K0,
             const std::vector<LaunchOutcome> &K1, const EditSet &Pairs,
             const RunConfig &R, std::set<HazardSite> &Kept) {
  std::map<HazardSite, int> Had;
  for (const LaunchOutcome &LO : K0)
    for (auto &[S, H] : LO.Result.HazardHits)
      Had[S] = std::max(Had[S], H.Missing);
  auto Old = [&](uint64_t A) -> std::optional<uint64_t> {
    auto It = Pairs.K1ToK0.find(A);
    if (It == Pairs.K1ToK0.end())
      return std::nullopt;
    return It->second;
  };
  for (const LaunchOutcome &LO : K1)
    for (auto &[S, H] : LO.Result.HazardHits) {
      std::optional<uint64_t> C = Old(S.Consumer), P = Old(S.Producer);
      if (C && P) {
        auto It = Had.find({S.Rule, *C, *P});
        if (It != Had.end() && H.Missing <= It->second) {
          Kept.insert({S.Rule, *C, *P});
          continue;
        }
      }
      Outcome O;
      O.V = Verdict::Violation;
      O.Reason = "K1 (" + R.describe() + ") adds a hazard K0 does not have (" +
                 (H.Advisory ? "advisory rule " : "rule ") + S.Rule + "): " +
                 H.Text;
      return O;
    }
  return std::nullopt;
}

std::string scalarText(const ScalarValue &V) {
  if (V.IsFloat)
    return formatv("{0}", V.F).str();
  return std::to_string(V.I);
}

/// One side of a run: a session with its inputs and what came out.
struct Side {
  std::unique_ptr<LaunchSession> S;
  std::vector<LaunchOutcome> Out;
  std::vector<std::string> Guards;
};

class Run {
public:
  /// \p LdsTurn picks the LDS fill every side of this run uses.
  Run(const LaunchSpec &Spec, const VerifyOptions &O, uint64_t LdsTurn)
      : Spec(Spec), O(O), LdsTurn(LdsTurn) {}

  /// K0's side: creates the inputs every other side of this run copies.
  Expected<Side> oracle(const Emulator &E, const RunConfig &R,
                        uint64_t Interleave) {
    auto S = LaunchSession::create(Spec, E, options(R));
    if (!S)
      return S.takeError();
    for (HostBuffer &B : (*S)->buffers())
      applyVariation(R.Inputs, B, R.InputSeed);
    Initial.clear();
    for (HostBuffer &B : (*S)->buffers())
      Initial.push_back(B.Initial);
    return execute(E, std::move(*S), Interleave, false);
  }

  /// Another side on exactly K0's inputs (copied: identity is a fact,
  /// not a property of the generator).
  Expected<Side> copy(const Emulator &E, const RunConfig &R,
                      uint64_t Interleave, bool Coverage,
                      uint64_t Budget = 0) {
    auto S = LaunchSession::create(Spec, E, options(R));
    if (!S)
      return S.takeError();
    std::vector<HostBuffer> &B = (*S)->buffers();
    if (B.size() != Initial.size())
      return createStringError("internal: sessions disagree on buffers");
    for (size_t I = 0; I < B.size(); ++I) {
      if (B[I].Initial.size() != Initial[I].size())
        return createStringError("internal: sessions disagree on the size "
                                 "of buffer '%s'",
                                 B[I].Spec->Name.c_str());
      B[I].Initial = Initial[I];
    }
    return execute(E, std::move(*S), Interleave, Coverage, Budget);
  }

private:
  SessionOptions options(const RunConfig &R) const {
    SessionOptions SO;
    SO.Seed = R.InputSeed;
    SO.Variant = R.Variant;
    SO.Overrides = R.Drawn;
    SO.MaxDeviceMemory = O.MaxDeviceMemory;
    return SO;
  }

  Expected<Side> execute(const Emulator &E, std::unique_ptr<LaunchSession> S,
                         uint64_t Interleave, bool Coverage,
                         uint64_t Budget = 0) {
    if (O.Device) {
      // On a GPU the interleaving is the hardware's; no per-instruction
      // checks or coverage exist there.
      auto R = O.Device->run(E.codeObject(), *S);
      if (!R)
        return R.takeError();
      return Side{std::move(S), {}, std::move(R->GuardErrors)};
    }
    RunOptions RO;
    RO.Seed = Interleave;
    // Uninitialised LDS differs from run to run: NaN (which min/max skip),
    // a huge positive and a negative value as f32, and as integers.
    static const uint8_t Fills[] = {0xFF, 0x7F, 0xC1};
    RO.LdsFill = Fills[LdsTurn % std::size(Fills)];
    RO.InstructionBudget = Budget ? std::min(Budget, O.InstructionBudget)
                                  : O.InstructionBudget;
    RO.RecordCoverage = Coverage;
    RO.RecordHazards = true;
    auto Out = S->run(RO);
    if (!Out)
      return Out.takeError();
    std::vector<std::string> Guards = S->guardErrors();
    return Side{std::move(S), std::move(*Out), std::move(Guards)};
  }

  const LaunchSpec &Spec;
  const VerifyOptions &O;
  std::vector<std::vector<uint8_t>> Initial;
  uint64_t LdsTurn;
};

/// Interleaving seeds of the second oracle run, away from the plan's.
constexpr uint64_t SecondInterleave = 0x51ED5EEDull;

} // namespace

namespace {

class Verification {
public:
  Verification(const Emulator &E0, const Emulator &E1, const LaunchSpec &Spec,
               const VerifyOptions &O, std::vector<ObjectDifference> Diffs)
      : E0(E0), E1(E1), Spec(Spec), O(O) {
    Rep.ObjectDiffs = std::move(Diffs);
  }

  Expected<VerifyReport> run();

private:
  Expected<std::optional<Outcome>> runOne(const RunConfig &R, bool FirstSeed);
  Error checkDeterminism(Run &X, const RunConfig &R, Side &K0);
  std::optional<Outcome> compare(Side &K0, Side &K1, const RunConfig &R);
  void judgeEdits();

  const Emulator &E0, &E1;
  const LaunchSpec &Spec;
  const VerifyOptions &O;
  VerifyReport Rep;
  std::set<HazardSite> K0Hazards, KeptHazards;
  /// Buffers excluded from comparison: K0 is not deterministic on them.
  std::set<std::string> Unjudgeable;
};

Error Verification::checkDeterminism(Run &X, const RunConfig &R, Side &K0) {
  auto Again = X.copy(E0, R, SecondInterleave + R.Variant, false);
  if (!Again)
    return Again.takeError();
  std::vector<HostBuffer> &A = K0.S->buffers(), &B = Again->S->buffers();
  for (size_t I = 0; I < A.size(); ++I) {
    const SpecBuffer &SB = *A[I].Spec;
    if (!SB.writable() || !SB.Compare)
      continue;
    auto Idx = firstMismatch(SB.Type, Tolerance(), A[I].Bytes, B[I].Bytes);
    if (!Idx)
      continue;
    unsigned ES = elemSize(SB.Type);
    NondeterministicBuffer N;
    N.Buffer = SB.Name;
    N.Variant = R.Variant;
    N.Index = *Idx;
    N.First = formatElement(SB.Type, &A[I].Bytes[*Idx * ES]);
    N.Second = formatElement(SB.Type, &B[I].Bytes[*Idx * ES]);
    N.Declared = SB.Nondeterministic && SB.Tol.any();
    if (N.Declared) {
      if (auto T = firstMismatch(SB.Type, SB.Tol, A[I].Bytes, B[I].Bytes))
        Rep.UnknownReasons.push_back(
            ("K0 differs from itself on buffer '" + SB.Name +
             "' by more than its tolerance under two interleavings (" +
             R.describe() + ", element " + Twine(*T) +
             "): the tolerance cannot separate K1 from K0")
                .str());
    } else if (Unjudgeable.insert(SB.Name).second) {
      Rep.UnknownReasons.push_back(
          ("K0 is not deterministic on buffer '" + SB.Name + "' (element " +
           Twine(N.Index) + ": " + N.First + " and " + N.Second +
           " under two interleavings, " + R.describe() + "); " +
           (isFloatType(SB.Type)
                ? "declare it `nondeterministic: true` with an explicit "
                  "`tolerance` to compare it"
                : "an integer result that depends on the order has no "
                  "tolerance: exclude it with `compare: false` and say why"))
              .str());
    }
    Rep.Nondeterministic.push_back(std::move(N));
  }
  return Error::success();
}

std::optional<Outcome> Verification::compare(Side &K0, Side &K1,
                                             const RunConfig &R) {
  std::vector<HostBuffer> &B0 = K0.S->buffers(), &B1 = K1.S->buffers();
  for (size_t I = 0; I < B0.size(); ++I) {
    const SpecBuffer &SB = *B0[I].Spec;
    if (!SB.writable() || !SB.Compare || Unjudgeable.count(SB.Name))
      continue;
    auto Idx = firstMismatch(SB.Type, SB.Tol, B0[I].Bytes, B1[I].Bytes);
    if (!Idx)
      continue;
    unsigned ES = elemSize(SB.Type);
    Difference D;
    D.Run = R;
    D.Buffer = SB.Name;
    D.Index = *Idx;
    D.K0Value = formatElement(SB.Type, &B0[I].Bytes[*Idx * ES]);
    D.K1Value = formatElement(SB.Type, &B1[I].Bytes[*Idx * ES]);
    D.Message = ("buffer '" + SB.Name + "' [" + Twine(D.Index) + "]: K0 " +
                 D.K0Value + ", K1 " + D.K1Value + " (" + R.describe() + ")")
                    .str();
    return Outcome{Verdict::Different, D.Message, D};
  }
  return std::nullopt;
}

Expected<std::optional<Outcome>> Verification::runOne(const RunConfig &R,
                                                      bool FirstSeed) {
  Run X(Spec, O, R.InputSeed);
  auto K0 = X.oracle(E0, R, R.Interleave);
  if (!K0)
    return K0.takeError();
  uint64_t K0Count = 0;
  for (const LaunchOutcome &LO : K0->Out)
    K0Count += LO.Result.Instructions;
  auto K1 = X.copy(E1, R, R.Interleave, /*Coverage=*/true,
                   RunawayFactor * K0Count + (1u << 20));
  if (!K1)
    return K1.takeError();

  std::map<std::string, std::string> Scalars;
  for (auto &KV : K0->S->scalars())
    Scalars[KV.first] = scalarText(KV.second);
  std::vector<std::string> Varied;
  if (!R.Inputs.isIdentity())
    for (HostBuffer &B : K0->S->buffers())
      if (isVaried(*B.Spec))
        Varied.push_back(B.Spec->Name);
  Rep.Runs.push_back(R);
  Rep.RunScalars.push_back(std::move(Scalars));
  Rep.RunVaried.push_back(std::move(Varied));
  for (Side *Sd : {&*K0, &*K1})
    for (const LaunchOutcome &LO : Sd->Out)
      Rep.Approximations.insert(LO.Result.Approximations.begin(),
                                LO.Result.Approximations.end());
  for (const LaunchOutcome &LO : K0->Out)
    Rep.K0Instructions += LO.Result.Instructions;
  for (const LaunchOutcome &LO : K1->Out) {
    Rep.K1Instructions += LO.Result.Instructions;
    Rep.K1Executed.insert(LO.Result.Executed.begin(),
                          LO.Result.Executed.end());
  }

  if (auto Bad = judgeRuns("K0", K0->Out, K0->Guards, true, R))
    return Bad;
  if (O.CheckDeterminism && FirstSeed)
    if (Error E = checkDeterminism(X, R, *K0))
      return std::move(E);
  if (auto Bad = judgeRuns("K1", K1->Out, K1->Guards, false, R))
    return Bad;
  for (const LaunchOutcome &LO : K0->Out)
    for (auto &KV : LO.Result.HazardHits)
      K0Hazards.insert(KV.first);
  if (auto Bad = judgeHazards(K0->Out, K1->Out, Rep.Edits, R, KeptHazards))
    return Bad;
  auto Bad = compare(*K0, *K1, R);
  // (A first seed has just been checked above.)
  if (Bad && O.CheckDeterminism && !FirstSeed) {
    // K1 may interleave differently from K0 (another instruction count);
    // a difference K0 can produce on its own under another interleaving
    // says nothing about K1.
    size_t Before = Rep.UnknownReasons.size();
    if (Error E = checkDeterminism(X, R, *K0))
      return std::move(E);
    if (Rep.UnknownReasons.size() != Before)
      Bad = compare(*K0, *K1, R);
  }
  return Bad;
}

void Verification::judgeEdits() {
  std::vector<const EditedInstruction *> Unrun;
  std::map<EditClass, std::vector<const EditedInstruction *>> Unjudged;
  for (EditedInstruction &E : Rep.Edits.Edits) {
    E.Executed = Rep.K1Executed.count(E.K1Addr);
    if (!E.Executed)
      Unrun.push_back(&E);
    if (E.Class != EditClass::Code && !O.Accepted.count(E.Class))
      Unjudged[E.Class].push_back(&E);
  }
  auto Where = [](const EditedInstruction &E) {
    std::string S;
    if (E.K1Addr != ~0ull)
      S = formatv("K1 {0:x} '{1}'", E.K1Addr, E.K1Text).str();
    if (E.K == EditedInstruction::Removed || E.K1Addr == ~0ull)
      S += formatv("{0}K0 {1:x} '{2}' removed", S.empty() ? "" : ", ",
                   *E.K0Addr, E.K0Text)
               .str();
    return S;
  };
  for (auto &[C, Es] : Unjudged)
    Rep.UnknownReasons.push_back(
        (Twine(Es.size()) + " " + editClassName(C) +
         " edit(s), which one coherent emulated memory cannot judge, first " +
         Where(*Es.front()) + "; accept them with --accept=" +
         editClassName(C))
            .str());
  if (O.Device && O.CheckCoverage && !Rep.Edits.empty())
    Rep.UnknownReasons.push_back(
        "edit coverage is not measured on a GPU; verify with the emu "
        "backend for it (or pass --no-coverage-check)");
  else if (O.CheckCoverage && !Unrun.empty())
    Rep.UnknownReasons.push_back(
        (Twine(Unrun.size()) + " of " + Twine(Rep.Edits.Edits.size()) +
         " edited instructions never executed in any run, first " +
         Where(*Unrun.front()))
            .str());
  if (Rep.K0Instructions && Rep.K1Instructions * 2 < Rep.K0Instructions)
    Rep.Flags.push_back(
        formatv("K1 executed {0:P} of K0's instructions: check the "
                "speedup is not the work left undone",
                double(Rep.K1Instructions) / double(Rep.K0Instructions))
            .str());
}

Expected<VerifyReport> Verification::run() {
  auto Start = std::chrono::steady_clock::now();
  Rep.Accepted = O.Accepted;
  if (O.Device)
    Rep.Backend = "hsa: " + O.Device->agentName() + " (" +
                  O.Device->isaName() + ")";
  auto Edits = findEdits(E0, E1, O.Map);
  if (!Edits)
    return Edits.takeError();
  Rep.Edits = std::move(*Edits);
  PlanOptions PO;
  PO.Seeds = O.Seeds;
  PO.RandomSizes = O.RandomSizes;
  auto Plan = planRuns(Spec, PO);
  if (!Plan)
    return Plan.takeError();
  std::set<unsigned> SizesChecked;
  for (const RunConfig &R : *Plan) {
    bool First = !R.RandomSize && SizesChecked.insert(R.Variant).second;
    auto Bad = runOne(R, First);
    if (!Bad)
      return Bad.takeError();
    if (!*Bad)
      continue;
    if ((*Bad)->V == Verdict::Unknown) {
      // A later run may still prove a difference; keep going.
      Rep.UnknownReasons.push_back((*Bad)->Reason);
      continue;
    }
    Rep.V = (*Bad)->V;
    Rep.Reason = (*Bad)->Reason;
    Rep.FirstDifference = (*Bad)->Diff;
    break;
  }
  for (const HazardSite &S : K0Hazards)
    ++Rep.K0HazardSites[S.Rule];
  for (const HazardSite &S : KeptHazards)
    ++Rep.KeptHazardSites[S.Rule];
  if (!K0Hazards.empty()) {
    std::string Rules;
    for (auto &KV : Rep.K0HazardSites)
      Rules += (Rules.empty() ? "" : ", ") + KV.first;
    Rep.Flags.push_back(
        "K0 itself leaves fewer wait states than hazard rules ask at " +
        std::to_string(K0Hazards.size()) + " site(s) (" + Rules +
        "); K1 was allowed those and no others");
  }
  if (Rep.V == Verdict::Equivalent) {
    judgeEdits();
    for (const ObjectDifference &D : Rep.ObjectDiffs)
      if (D.J == ObjectDifference::Unknown)
        Rep.UnknownReasons.push_back(D.describe());
    if (!Rep.UnknownReasons.empty()) {
      Rep.V = Verdict::Unknown;
      Rep.Reason = Rep.UnknownReasons.front();
    }
  }
  Rep.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return std::move(Rep);
}

} // namespace

Expected<VerifyReport> verify(const CodeObject &K0, const CodeObject &K1,
                              const LaunchSpec &Spec, const VerifyOptions &O) {
  if (Error E = checkComparable(K0, K1, Spec))
    return std::move(E);
  if (O.Seeds == 0)
    return createStringError("at least one seed is needed");
  auto E0 = Emulator::create(K0);
  if (!E0)
    return E0.takeError();
  auto E1 = Emulator::create(K1);
  if (!E1)
    return E1.takeError();
  std::set<std::string> Launched;
  for (const SpecLaunch &L : Spec.Launches)
    if (const KernelInfo *K = resolveLaunchedKernel(K0, L.Kernel))
      Launched.insert(K->Name);
  return Verification(**E0, **E1, Spec, O,
                      diffObjects(K0, K1, Launched, O.AcceptedFields,
                                  O.Device != nullptr))
      .run();
}

} // namespace verify
} // namespace asmevo
