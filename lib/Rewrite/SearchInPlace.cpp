//===- SearchInPlace.cpp - One shared module --------------------------------===//
#include "OptimizerSearch.h"

using namespace llvm;

namespace asmevo {
namespace optimize {

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

} // namespace optimize
} // namespace asmevo
