//===- Receipt.cpp - The JSON receipt of a verification -------------------===//
//
// Everything needed to reproduce or audit a verdict: which runs were made
// (seeds, sizes, drawn scalars, input variations, interleavings), what the
// emulator approximated, which edited instructions ran, and on which
// buffers K0 was not deterministic. The tool adds the hashes of its input
// files.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Verify/Verifier.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

using namespace llvm;

namespace asmevo {
namespace verify {

static std::string hex(uint64_t A) { return formatv("{0:x}", A).str(); }

static json::Value runJSON(const RunConfig &R) {
  json::Object Obj{{"input_seed", int64_t(R.InputSeed)},
                   {"size", R.RandomSize ? json::Value("random")
                                         : json::Value(int64_t(R.Variant))},
                   {"interleave_seed", int64_t(R.Interleave)},
                   {"inputs", R.Inputs.describe()}};
  if (!R.Drawn.empty()) {
    json::Object D;
    for (auto &[N, V] : R.Drawn)
      D[N] = V;
    Obj["drawn_scalars"] = std::move(D);
  }
  return Obj;
}

/// Executed K1 addresses as "0x100-0x1f4" runs of consecutive instructions.
static json::Array executedRanges(const std::set<uint64_t> &Executed) {
  json::Array A;
  // Consecutive in address order is enough for a reader: instructions are
  // 4 or 8 bytes long, so a gap of more than 8 bytes starts a new range.
  std::optional<uint64_t> Lo, Hi;
  for (uint64_t X : Executed) {
    if (Lo && X <= *Hi + 8) {
      Hi = X;
      continue;
    }
    if (Lo)
      A.push_back(hex(*Lo) + "-" + hex(*Hi));
    Lo = Hi = X;
  }
  if (Lo)
    A.push_back(hex(*Lo) + "-" + hex(*Hi));
  return A;
}

static json::Value ruleCounts(const std::map<std::string, unsigned> &M) {
  json::Object O;
  for (auto &KV : M)
    O[KV.first] = int64_t(KV.second);
  return O;
}

static json::Value editsJSON(const VerifyReport &Rep) {
  json::Array Edits;
  for (const EditedInstruction &E : Rep.Edits.Edits) {
    static const char *Kinds[] = {"changed", "added", "removed"};
    json::Object Obj{{"kind", Kinds[E.K]},
                     {"class", editClassName(E.Class)},
                     {"executed", E.Executed}};
    if (E.K1Addr != ~0ull) {
      Obj["k1_address"] = hex(E.K1Addr);
      Obj["k1"] = E.K1Text;
    }
    if (E.K0Addr) {
      Obj["k0_address"] = hex(*E.K0Addr);
      Obj["k0"] = E.K0Text;
    }
    Edits.push_back(std::move(Obj));
  }
  json::Array Accepted;
  for (EditClass C : Rep.Accepted)
    Accepted.push_back(editClassName(C));
  return json::Object{
      {"pairing", Rep.Edits.Method},
      {"k1_instructions", int64_t(Rep.Edits.K1Instructions)},
      {"k1_instructions_executed", int64_t(Rep.K1Executed.size())},
      {"k1_executed_ranges", executedRanges(Rep.K1Executed)},
      {"edited_instructions", std::move(Edits)},
      {"accepted_classes", std::move(Accepted)}};
}

json::Value VerifyReport::toJSON() const {
  json::Array RunsA, SeedsA, InterA;
  std::set<uint64_t> SeedSet, InterSet;
  for (size_t I = 0; I < Runs.size(); ++I) {
    json::Value V = runJSON(Runs[I]);
    json::Object Scalars;
    if (I < RunScalars.size())
      for (auto &[N, X] : RunScalars[I])
        Scalars[N] = X;
    V.getAsObject()->insert({"scalars", std::move(Scalars)});
    json::Array Varied;
    if (I < RunVaried.size())
      for (const std::string &B : RunVaried[I])
        Varied.push_back(B);
    V.getAsObject()->insert({"varied_buffers", std::move(Varied)});
    RunsA.push_back(std::move(V));
    SeedSet.insert(Runs[I].InputSeed);
    InterSet.insert(Runs[I].Interleave);
  }
  for (uint64_t S : SeedSet)
    SeedsA.push_back(int64_t(S));
  for (uint64_t S : InterSet)
    InterA.push_back(int64_t(S));
  json::Array ApproxA, ReasonsA, FlagsA, NondetA;
  for (const std::string &A : Approximations)
    ApproxA.push_back(A);
  for (const std::string &R : UnknownReasons)
    ReasonsA.push_back(R);
  for (const std::string &F : Flags)
    FlagsA.push_back(F);
  for (const NondeterministicBuffer &N : Nondeterministic)
    NondetA.push_back(json::Object{{"buffer", N.Buffer},
                                   {"size", int64_t(N.Variant)},
                                   {"index", int64_t(N.Index)},
                                   {"first", N.First},
                                   {"second", N.Second},
                                   {"declared", N.Declared}});
  json::Array DiffsA;
  for (const ObjectDifference &D : ObjectDiffs) {
    json::Object X{{"in", D.In},
                   {"field", D.Field},
                   {"k0", D.K0Value},
                   {"k1", D.K1Value},
                   {"judged", judgementName(D.J)},
                   {"accept_as", D.acceptName()}};
    if (!D.Kernel.empty())
      X["kernel"] = D.Kernel;
    if (!D.Location.empty())
      X["location"] = D.Location;
    if (!D.Why.empty())
      X["why"] = D.Why;
    DiffsA.push_back(std::move(X));
  }
  json::Array AcceptedFieldsA;
  for (const ObjectDifference &D : ObjectDiffs)
    if (D.J == ObjectDifference::Accepted)
      AcceptedFieldsA.push_back(D.acceptName());
  json::Object Obj{
      {"backend", Backend},
      // Descriptor and metadata fields K1 changed (ObjectDiff.h).
      {"object_differences", std::move(DiffsA)},
      {"accepted_fields", std::move(AcceptedFieldsA)},
      {"verdict", verdictName(V)},
      {"seeds", std::move(SeedsA)},
      {"interleaving_seeds", std::move(InterA)},
      {"runs", std::move(RunsA)},
      {"approximations", std::move(ApproxA)},
      {"k0_instructions", int64_t(K0Instructions)},
      {"k1_instructions", int64_t(K1Instructions)},
      {"coverage", editsJSON(*this)},
      {"nondeterministic_buffers", std::move(NondetA)},
      {"flags", std::move(FlagsA)},
      {"hazards", json::Object{{"k0_sites", ruleCounts(K0HazardSites)},
                               {"kept_by_k1", ruleCounts(KeptHazardSites)}}},
      // Host time of the whole verification: not a kernel time.
      {"verification_seconds", Seconds},
      {"timing_source", "none: verdicts carry no kernel time"}};
  if (!Reason.empty())
    Obj["reason"] = Reason;
  if (!UnknownReasons.empty())
    Obj["unknown_reasons"] = std::move(ReasonsA);
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
