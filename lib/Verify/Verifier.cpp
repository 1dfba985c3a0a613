//===- Verifier.cpp - Differential verification of K1 against K0 ---------===//
#include "asmevo/Verify/Verifier.h"
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

// A spec may name a kernel by its index in the code object (as
// LaunchSession accepts); both objects must resolve it the same way.
static const KernelInfo *resolveKernel(const CodeObject &CO, StringRef Name) {
  if (const KernelInfo *K = CO.findKernel(Name))
    return K;
  unsigned Idx;
  if (!Name.getAsInteger(10, Idx) && Idx < CO.kernels().size())
    return &CO.kernels()[Idx];
  return nullptr;
}

static Error compareLayouts(const CodeObject &K0, const KernelInfo &A,
                            const CodeObject &K1, const KernelInfo &B) {
  auto MA = readKernelMetadata(K0, A);
  if (!MA)
    return MA.takeError();
  auto MB = readKernelMetadata(K1, B);
  if (!MB)
    return MB.takeError();
  auto Fail = [&](const Twine &What) {
    return createStringError("kernel '" + A.Name + "': K1 '" + K1.name() +
                             "' has a kernel-argument layout different "
                             "from K0 '" + K0.name() + "': " + What);
  };
  if (MA->Args.size() != MB->Args.size())
    return Fail(Twine(MA->Args.size()) + " arguments in K0, " +
                Twine(MB->Args.size()) + " in K1");
  for (size_t I = 0; I < MA->Args.size(); ++I) {
    const KernelArg &X = MA->Args[I], &Y = MB->Args[I];
    if (X.Offset != Y.Offset || X.Size != Y.Size ||
        X.ValueKind != Y.ValueKind || X.AddressSpace != Y.AddressSpace)
      return Fail("argument " + Twine(I) + ": K0 " + X.ValueKind + " at " +
                  Twine(X.Offset) + " size " + Twine(X.Size) + ", K1 " +
                  Y.ValueKind + " at " + Twine(Y.Offset) + " size " +
                  Twine(Y.Size));
  }
  if (MA->KernargSegmentSize != MB->KernargSegmentSize)
    return Fail("kernarg segment sizes differ");
  // The argument preload count is part of how arguments reach the kernel.
  if (A.KD.preloadLength() != B.KD.preloadLength())
    return Fail("preloaded kernel-argument counts differ");
  return Error::success();
}

Error checkComparable(const CodeObject &K0, const CodeObject &K1,
                      const LaunchSpec &Spec) {
  std::string T0 = K0.target().targetID(), T1 = K1.target().targetID();
  if (T0 != T1)
    return createStringError("K1 '%s' targets %s but K0 '%s' targets %s",
                             K1.name().str().c_str(), T1.c_str(),
                             K0.name().str().c_str(), T0.c_str());
  for (size_t LI = 0; LI < Spec.Launches.size(); ++LI) {
    StringRef Name = Spec.Launches[LI].Kernel;
    const KernelInfo *A = resolveKernel(K0, Name);
    const KernelInfo *B = resolveKernel(K1, Name);
    for (auto [K, CO] : {std::pair(A, &K0), std::pair(B, &K1)})
      if (!K)
        return createStringError("%s: launch %zu: '%s' has no kernel '%s'",
                                 Spec.Path.c_str(), LI,
                                 CO->name().str().c_str(),
                                 Name.str().c_str());
    if (A->Name != B->Name)
      return createStringError(
          "%s: launch %zu: kernel '%s' is '%s' in K0 and '%s' in K1",
          Spec.Path.c_str(), LI, Name.str().c_str(), A->Name.c_str(),
          B->Name.c_str());
    if (Error E = compareLayouts(K0, *A, K1, *B))
      return E;
  }
  return Error::success();
}

namespace {

std::string formatElement(ElemType T, const uint8_t *P) {
  unsigned N = elemSize(T);
  uint64_t Bits = 0;
  std::memcpy(&Bits, P, N);
  std::string S;
  raw_string_ostream OS(S);
  OS << format_hex(Bits, 2 + 2 * N);
  if (T == ElemType::F32) {
    float F;
    std::memcpy(&F, P, 4);
    OS << " (" << format("%.9g", F) << ")";
  } else if (T == ElemType::F64) {
    double D;
    std::memcpy(&D, P, 8);
    OS << " (" << format("%.17g", D) << ")";
  } else if (T == ElemType::I32) {
    OS << " (" << int32_t(Bits) << ")";
  } else if (T == ElemType::I64) {
    OS << " (" << int64_t(Bits) << ")";
  }
  return S;
}

std::string runText(const RunConfig &R) {
  return ("seed " + Twine(R.InputSeed) + ", size " + Twine(R.Variant) +
          ", interleaving " + Twine(R.Interleave))
      .str();
}

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
      if (cannotRun(V)) {
        O.V = Verdict::Unknown;
        O.Reason = (Who + " could not be run (" + runText(R) +
                    "): " + violationText(V)).str();
      } else if (IsOracle) {
        // K0 is the only oracle: when it misbehaves nothing can be judged.
        O.V = Verdict::Unknown;
        O.Reason = (Who + " itself reports a violation (" + runText(R) +
                    "): " + violationText(V)).str();
      } else {
        O.V = Verdict::Violation;
        O.Reason = (Who + " (" + runText(R) + "): " + violationText(V)).str();
      }
      return O;
    }
  if (!Guards.empty()) {
    Outcome O;
    O.V = IsOracle ? Verdict::Unknown : Verdict::Violation;
    O.Reason = (Who + " wrote a guard band (" + runText(R) + "): " +
                Guards.front()).str();
    return O;
  }
  return std::nullopt;
}

std::optional<Difference> compareBuffers(std::vector<HostBuffer> &B0,
                                         std::vector<HostBuffer> &B1,
                                         const RunConfig &R) {
  for (size_t I = 0; I < B0.size(); ++I) {
    const SpecBuffer &SB = *B0[I].Spec;
    if (!SB.writable() || !SB.Compare)
      continue;
    const std::vector<uint8_t> &X = B0[I].Bytes, &Y = B1[I].Bytes;
    unsigned ES = elemSize(SB.Type);
    if (X.size() != Y.size() || X == Y)
      continue;
    for (size_t Off = 0; Off + ES <= X.size(); Off += ES) {
      if (std::memcmp(&X[Off], &Y[Off], ES) == 0)
        continue;
      Difference D;
      D.Run = R;
      D.Buffer = SB.Name;
      D.Index = Off / ES;
      D.K0Value = formatElement(SB.Type, &X[Off]);
      D.K1Value = formatElement(SB.Type, &Y[Off]);
      D.Message = ("buffer '" + SB.Name + "' [" + Twine(D.Index) +
                   "]: K0 " + D.K0Value + ", K1 " + D.K1Value + " (" +
                   runText(R) + ")").str();
      return D;
    }
  }
  return std::nullopt;
}

std::string scalarText(const ScalarValue &V) {
  if (V.IsFloat)
    return formatv("{0}", V.F).str();
  return std::to_string(V.I);
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

  auto Start = std::chrono::steady_clock::now();
  VerifyReport Rep;
  std::optional<Outcome> FirstUnknown;
  for (unsigned Var = 0; Var <= Spec.Variants.size(); ++Var) {
    for (unsigned S = 0; S < O.Seeds; ++S) {
      RunConfig R;
      R.InputSeed = Spec.Seed + S;
      R.Variant = Var;
      // The first run keeps waves in order; the others shuffle them.
      R.Interleave = S;
      SessionOptions SO;
      SO.Seed = R.InputSeed;
      SO.Variant = Var;
      auto S0 = LaunchSession::create(Spec, **E0, SO);
      if (!S0)
        return S0.takeError();
      auto S1 = LaunchSession::create(Spec, **E1, SO);
      if (!S1)
        return S1.takeError();
      // Generation is seeded, but copying makes identity a fact rather
      // than a property of the generator.
      std::vector<HostBuffer> &B0 = (*S0)->buffers(), &B1 = (*S1)->buffers();
      if (B0.size() != B1.size())
        return createStringError("internal: sessions disagree on buffers");
      for (size_t I = 0; I < B0.size(); ++I)
        B1[I].Initial = B0[I].Initial;
      auto &Sizes = Rep.Sizes[Var];
      for (auto &KV : (*S0)->scalars())
        Sizes[KV.first] = scalarText(KV.second);

      RunOptions RO;
      RO.Seed = R.Interleave;
      RO.InstructionBudget = O.InstructionBudget;
      auto O0 = (*S0)->run(RO);
      if (!O0)
        return O0.takeError();
      auto O1 = (*S1)->run(RO);
      if (!O1)
        return O1.takeError();
      Rep.Runs.push_back(R);
      for (auto *Out : {&*O0, &*O1})
        for (const LaunchOutcome &LO : *Out)
          Rep.Approximations.insert(LO.Result.Approximations.begin(),
                                    LO.Result.Approximations.end());
      for (const LaunchOutcome &LO : *O0)
        Rep.K0Instructions += LO.Result.Instructions;
      for (const LaunchOutcome &LO : *O1)
        Rep.K1Instructions += LO.Result.Instructions;

      std::optional<Outcome> Bad =
          judgeRuns("K0", *O0, (*S0)->guardErrors(), true, R);
      if (!Bad)
        Bad = judgeRuns("K1", *O1, (*S1)->guardErrors(), false, R);
      if (!Bad)
        if (auto D = compareBuffers(B0, B1, R)) {
          Bad = Outcome{Verdict::Different, D->Message, *D};
        }
      if (!Bad)
        continue;
      if (Bad->V == Verdict::Unknown) {
        // A later run may still prove a difference; keep going.
        if (!FirstUnknown)
          FirstUnknown = Bad;
        continue;
      }
      Rep.V = Bad->V;
      Rep.Reason = Bad->Reason;
      Rep.FirstDifference = Bad->Diff;
      Rep.Seconds = std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - Start)
                        .count();
      return Rep;
    }
  }
  if (FirstUnknown) {
    Rep.V = Verdict::Unknown;
    Rep.Reason = FirstUnknown->Reason;
  }
  Rep.Seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - Start)
          .count();
  return Rep;
}

static json::Value runJSON(const RunConfig &R) {
  return json::Object{{"input_seed", int64_t(R.InputSeed)},
                      {"size", int64_t(R.Variant)},
                      {"interleave_seed", int64_t(R.Interleave)}};
}

json::Value VerifyReport::toJSON() const {
  json::Array RunsA, SeedsA, InterA;
  std::set<uint64_t> SeedSet, InterSet;
  for (const RunConfig &R : Runs) {
    RunsA.push_back(runJSON(R));
    SeedSet.insert(R.InputSeed);
    InterSet.insert(R.Interleave);
  }
  for (uint64_t S : SeedSet)
    SeedsA.push_back(int64_t(S));
  for (uint64_t S : InterSet)
    InterA.push_back(int64_t(S));
  json::Array SizesA;
  for (auto &[Var, Env] : Sizes) {
    json::Object Scalars;
    for (auto &[N, V] : Env)
      Scalars[N] = V;
    SizesA.push_back(json::Object{{"size", int64_t(Var)},
                                  {"scalars", std::move(Scalars)}});
  }
  json::Array ApproxA;
  for (const std::string &A : Approximations)
    ApproxA.push_back(A);
  json::Object Obj{{"backend", "emu"},
                   {"verdict", verdictName(V)},
                   {"seeds", std::move(SeedsA)},
                   {"sizes", std::move(SizesA)},
                   {"interleaving_seeds", std::move(InterA)},
                   {"runs", std::move(RunsA)},
                   {"approximations", std::move(ApproxA)},
                   {"k0_instructions", int64_t(K0Instructions)},
                   {"k1_instructions", int64_t(K1Instructions)}};
  if (!Reason.empty())
    Obj["reason"] = Reason;
  if (FirstDifference) {
    const Difference &D = *FirstDifference;
    Obj["first_difference"] = json::Object{{"buffer", D.Buffer},
                                           {"index", int64_t(D.Index)},
                                           {"k0", D.K0Value},
                                           {"k1", D.K1Value},
                                           {"launch", runJSON(D.Run)}};
  }
  return Obj;
}

} // namespace verify
} // namespace asmevo
