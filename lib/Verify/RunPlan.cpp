//===- RunPlan.cpp - Which runs a verification makes ----------------------===//
#include "asmevo/Verify/RunPlan.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"
#include <cmath>
#include <random>

using namespace llvm;
using namespace asmevo::emu;

namespace asmevo {
namespace verify {

std::string RunConfig::describe() const {
  std::string S = ("seed " + Twine(InputSeed) + ", size " +
                   (RandomSize ? Twine("random") : Twine(Variant)) +
                   ", interleaving " + Twine(Interleave))
                      .str();
  if (!Inputs.isIdentity())
    S += ", inputs " + Inputs.describe();
  if (!Drawn.empty()) {
    S += ", drawn";
    for (auto &[N, V] : Drawn)
      S += " " + N + "=" + V;
  }
  return S;
}

static void identifiers(StringRef Expr, std::set<std::string> &Out) {
  size_t I = 0;
  while (I < Expr.size()) {
    if (!isAlpha(Expr[I]) && Expr[I] != '_') {
      ++I;
      continue;
    }
    size_t J = I;
    while (J < Expr.size() && (isAlnum(Expr[J]) || Expr[J] == '_'))
      ++J;
    StringRef Id = Expr.slice(I, J);
    if (!is_contained({"min", "max", "ceil_div", "align"}, Id))
      Out.insert(Id.str());
    I = J;
  }
}

std::set<std::string> sizeScalars(const LaunchSpec &Spec) {
  std::set<std::string> S;
  for (const SpecBuffer &B : Spec.Buffers) {
    identifiers(B.Count, S);
    for (const SpecBuffer::Patch &P : B.Patches)
      identifiers(P.At, S);
  }
  for (const SpecLaunch &L : Spec.Launches) {
    for (unsigned D = 0; D < 3; ++D) {
      identifiers(L.Grid[D], S);
      identifiers(L.Block[D], S);
    }
    identifiers(L.DynamicLDS, S);
    identifiers(L.KernargSize, S);
    for (const SpecArg &A : L.Args) {
      identifiers(A.At, S);
      identifiers(A.Offset, S);
    }
  }
  // A derived size scalar makes the scalars it is computed from sizes too.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const SpecScalar &Sc : Spec.Scalars)
      if (S.count(Sc.Name) && Sc.isDerived()) {
        size_t Before = S.size();
        identifiers(Sc.Value, S);
        Changed |= S.size() != Before;
      }
  }
  return S;
}

/// The largest value \p Name takes in the spec's listed sizes.
static std::optional<double> largestListed(const LaunchSpec &Spec,
                                           const SpecScalar &Sc) {
  std::optional<double> Max;
  auto Consider = [&](StringRef Text) {
    double V;
    if (!Text.trim().getAsDouble(V) && (!Max || V > *Max))
      Max = V;
  };
  Consider(Sc.Value);
  for (const auto &Var : Spec.Variants) {
    auto It = Var.find(Sc.Name);
    if (It != Var.end())
      Consider(It->second);
  }
  return Max;
}

/// A value for \p Sc on its \p Turn-th draw (Turn >= 1). From a list of
/// values the draws walk the list starting after the default, so the
/// first draw already differs from the spec's value: a candidate that is
/// only right for the default (say a factor that is 1) is caught by the
/// first run that draws.
static Expected<std::string> draw(const LaunchSpec &Spec,
                                  const SpecScalar &Sc, bool IsSize,
                                  unsigned Turn, std::mt19937_64 &Rng) {
  if (!Sc.Values.empty()) {
    size_t Default = 0;
    double DV;
    if (!StringRef(Sc.Value).trim().getAsDouble(DV))
      for (size_t I = 0; I < Sc.Values.size(); ++I)
        if (Sc.Values[I] == DV)
          Default = I;
    double V = Sc.Values[(Default + Turn) % Sc.Values.size()];
    return isFloatType(Sc.Type) ? formatv("{0}", V).str()
                                : std::to_string(int64_t(V));
  }
  double Lo = Sc.Range->first, Hi = Sc.Range->second;
  if (IsSize)
    if (auto Max = largestListed(Spec, Sc))
      Hi = std::min(Hi, std::max(Lo, *Max));
  if (IsSize && !isFloatType(Sc.Type) && Lo >= 1 && Hi > Lo) {
    // Log-uniform: small sizes (a partial tile, fewer elements than a
    // workgroup, a single row) are where bounds checks differ, and they
    // are cheap to run.
    double L = std::exp(std::uniform_real_distribution<double>(
        std::log(Lo), std::log(Hi + 1))(Rng));
    int64_t V = int64_t(std::min(Hi, std::max(Lo, std::floor(L))));
    // On the first six turns, one less than a multiple of 2, 4, ... 64:
    // the last tile of any power-of-two width up to 64 is then partial,
    // and a bounds check that is off by one shows. Later turns keep the
    // plain draw (sizes with other residues).
    if (Sc.MultipleOf <= 1 && Turn <= 6) {
      int64_t W = int64_t(1) << Turn;
      int64_t R = V | (W - 1);
      while (R > int64_t(Hi) && R - W >= int64_t(Lo))
        R -= W;
      if (R >= int64_t(Lo) && R <= int64_t(Hi))
        V = R;
    }
    Lo = Hi = double(V);
  }
  if (isFloatType(Sc.Type)) {
    double V = std::uniform_real_distribution<double>(Lo, Hi)(Rng);
    return std::string(
        formatv(Sc.Type == ElemType::F64 ? "{0:e16}" : "{0:e8}", V).str());
  }
  int64_t M = Sc.MultipleOf > 0 ? Sc.MultipleOf : 1;
  int64_t LoM = int64_t(std::ceil(Lo / double(M)));
  int64_t HiM = int64_t(std::floor(Hi / double(M)));
  if (HiM < LoM)
    return createStringError("%s: scalar '%s': no multiple of %lld in its "
                             "range",
                             Spec.Path.c_str(), Sc.Name.c_str(),
                             (long long)M);
  return std::to_string(
      std::uniform_int_distribution<int64_t>(LoM, HiM)(Rng) * M);
}

static Error drawScalars(const LaunchSpec &Spec,
                         const std::set<std::string> &Sizes, unsigned Turn,
                         RunConfig &R) {
  std::mt19937_64 Rng(R.InputSeed * 0xD1B54A32D192ED03ull ^
                      (R.RandomSize ? 0x5123ull : R.Variant));
  const std::map<std::string, std::string> *Var =
      R.Variant ? &Spec.Variants[R.Variant - 1] : nullptr;
  for (const SpecScalar &Sc : Spec.Scalars) {
    if (Sc.isDerived() || (!Sc.Range && Sc.Values.empty()))
      continue;
    bool IsSize = Sizes.count(Sc.Name);
    // A listed size stays as listed; only random-size runs move sizes.
    if (IsSize && !R.RandomSize)
      continue;
    if (Var && Var->count(Sc.Name))
      continue;
    auto V = draw(Spec, Sc, IsSize, Turn, Rng);
    if (!V)
      return V.takeError();
    R.Drawn[Sc.Name] = *V;
  }
  return Error::success();
}

Expected<std::vector<RunConfig>> planRuns(const LaunchSpec &Spec,
                                          const PlanOptions &O) {
  std::set<std::string> Sizes = sizeScalars(Spec);
  std::vector<RunConfig> Runs;
  for (unsigned Var = 0; Var <= Spec.Variants.size(); ++Var)
    for (unsigned K = 0; K < O.Seeds; ++K) {
      RunConfig R;
      R.InputSeed = Spec.Seed + K;
      R.Variant = Var;
      R.Interleave = K;
      R.Inputs = variationForSeed(K);
      if (K > 0)
        if (Error E = drawScalars(Spec, Sizes, K, R))
          return std::move(E);
      Runs.push_back(std::move(R));
    }
  for (unsigned K = 0; K < O.RandomSizes; ++K) {
    RunConfig R;
    R.InputSeed = Spec.Seed + O.Seeds + K;
    R.RandomSize = true;
    R.Interleave = O.Seeds + K;
    R.Inputs = variationForSeed(O.Seeds + K);
    if (Error E = drawScalars(Spec, Sizes, K + 1, R))
      return std::move(E);
    Runs.push_back(std::move(R));
  }
  return Runs;
}

} // namespace verify
} // namespace asmevo
