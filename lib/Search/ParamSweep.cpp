//===- ParamSweep.cpp -----------------------------------------------------===//
#include "asmevo/Search/ParamSweep.h"
#include "asmevo/Transforms/Pass.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

using namespace llvm;

namespace asmevo {

namespace {
/// One swept parameter: the pass's default (what an unset parameter means)
/// and the values worth a candidate, most promising first. Values are
/// within the registered ranges (PassRegistry.cpp); `keep`, `pick` and
/// `jitter` are left to the random mutations, whose effect no order ranks.
struct SweptParam {
  const char *Pass;
  const char *Name;
  int64_t Default;
  std::vector<int64_t> Values;
  /// Lower ranks are swept first.
  unsigned Rank;
  /// Set together with each of Values (when the parent leaves it unset):
  /// parameters that only pay together, such as more copies and the
  /// registers they need.
  const char *AlsoName = nullptr;
  int64_t AlsoValue = 0;
};
} // namespace

static const std::vector<SweptParam> &sweptParams() {
  static const std::vector<SweptParam> Params = {
      {"loop-unroll", "factor", 4, {8, 2}, 0},
      {"loop-unroll", "occupancy-drop", 0, {4, 2}, 0},
      {"exec-loop-pipeline", "depth", 4, {8, 6, 2, 3, 5, 7}, 0},
      {"exec-loop-pipeline", "occupancy-drop", 1, {4, 0}, 0},
      // Deeper copies with the waves their registers cost (each alone
      // may not fit, or not pay).
      {"loop-unroll", "factor", 4, {8}, 1, "occupancy-drop", 4},
      {"exec-loop-pipeline", "depth", 4, {8, 6}, 1, "occupancy-drop", 4},
      {"schedule-window", "order", 0, {1, 2, 3}, 1},
      {"schedule-window", "size", 96, {160, 48, 24}, 1},
      {"loop-unroll", "max-body", 96, {128, 32}, 2},
      {"exec-loop-pipeline", "max-body", 64, {128, 32}, 2},
      {"sink-waitcnt", "reach", 0, {8, 2}, 2},
      {"setprio", "min-mfma", 8, {2, 16}, 2},
  };
  return Params;
}

static bool parseAll(ArrayRef<std::string> List, std::vector<PassSpec> &Out) {
  for (const std::string &S : List) {
    auto P = parsePassSpec(S);
    if (!P) {
      consumeError(P.takeError());
      return false;
    }
    Out.push_back(std::move(*P));
  }
  return true;
}

std::vector<std::vector<std::string>>
sweepNeighbours(ArrayRef<std::string> Parent,
                const std::set<std::string> &Active,
                ArrayRef<std::string> Grandparent) {
  std::vector<std::vector<std::string>> Out;
  std::vector<PassSpec> Specs, Before;
  if (!parseAll(Parent, Specs))
    return Out;
  // The one coordinate (position, parameter) the parent moved, if that is
  // all that tells it from the grandparent.
  size_t MovedAt = Specs.size();
  std::string MovedParam;
  if (Grandparent.size() == Parent.size() && parseAll(Grandparent, Before)) {
    unsigned Diffs = 0;
    for (size_t I = 0; I < Specs.size(); ++I) {
      if (Specs[I].Name != Before[I].Name) {
        Diffs = 2;
        break;
      }
      std::set<std::string> Keys;
      for (auto &KV : Specs[I].Params)
        Keys.insert(KV.first);
      for (auto &KV : Before[I].Params)
        Keys.insert(KV.first);
      for (const std::string &K : Keys) {
        auto A = Specs[I].Params.find(K), B = Before[I].Params.find(K);
        bool HasA = A != Specs[I].Params.end(),
             HasB = B != Before[I].Params.end();
        if (HasA != HasB || (HasA && A->second != B->second)) {
          ++Diffs;
          MovedAt = I;
          MovedParam = K;
        }
      }
    }
    if (Diffs != 1)
      MovedAt = Specs.size();
  }
  // Rank 3 is the moved coordinate, after everything else.
  for (unsigned Rank = 0; Rank <= 3; ++Rank)
    for (size_t At = 0; At < Specs.size(); ++At) {
      const PassSpec &Spec = Specs[At];
      if (!Active.empty() && !Active.count(Spec.Name))
        continue;
      for (const SweptParam &SP : sweptParams()) {
        if (Spec.Name != SP.Pass)
          continue;
        bool Moved = At == MovedAt && MovedParam == SP.Name;
        if ((Moved ? 3 : SP.Rank) != Rank)
          continue;
        auto It = Spec.Params.find(SP.Name);
        int64_t Now = It == Spec.Params.end() ? SP.Default : It->second;
        // The default is a value too once the parent moved away from it.
        std::vector<int64_t> Values = SP.Values;
        if (Now != SP.Default)
          Values.push_back(SP.Default);
        if (SP.AlsoName) {
          // Joint steps only from where neither parameter was moved.
          if (Now != SP.Default || Spec.Params.count(SP.AlsoName))
            continue;
          Values = SP.Values;
        }
        for (int64_t V : Values) {
          if (V == Now)
            continue;
          PassSpec Next = Spec;
          if (V == SP.Default)
            Next.Params.erase(SP.Name);
          else
            Next.Params[SP.Name] = V;
          if (SP.AlsoName)
            Next.Params[SP.AlsoName] = SP.AlsoValue;
          std::vector<std::string> List(Parent.begin(), Parent.end());
          List[At] = Next.str();
          Out.push_back(std::move(List));
        }
      }
    }
  return Out;
}

} // namespace asmevo
