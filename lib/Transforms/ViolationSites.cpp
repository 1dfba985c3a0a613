//===- ViolationSites.cpp -------------------------------------------------===//
#include "ViolationSites.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace llvm;

namespace asmevo {

std::string ViolationSite::describe() const {
  std::string S;
  raw_string_ostream OS(S);
  OS << Rule << " at ";
  if (Consumer == ~0ull)
    OS << "an added instruction";
  else
    OS << format_hex(Consumer, 0);
  if (Producer != ~0ull && Producer != Consumer)
    OS << " (producer " << format_hex(Producer, 0) << ")";
  return S;
}

static const char *waitKindName(WaitNeedKind K) {
  switch (K) {
  case WaitNeedKind::Read:
    return "waitcnt-read";
  case WaitNeedKind::WriteAfterWrite:
    return "waitcnt-write-after-write";
  case WaitNeedKind::Barrier:
    return "waitcnt-barrier";
  case WaitNeedKind::Release:
    return "waitcnt-release";
  }
  return "waitcnt";
}

SiteSet SiteSet::of(const FunctionAnalysis &A, bool Advisories) {
  SiteSet Out;
  auto Addr = [&](unsigned I) {
    return I < A.Seq.Instrs.size() ? A.Seq.Instrs[I].Addr : ~0ull;
  };
  auto AddHits = [&](const std::vector<HazardHit> &Hits, const char *Prefix,
                     const char *Unnamed) {
    for (const HazardHit &H : Hits)
      Out.Sites.push_back({std::string(Prefix) + (H.Rule ? H.Rule->Id : Unnamed),
                           Addr(H.Consumer), Addr(H.Producer), H.Reg.First,
                           H.Missing, H.Consumer});
  };
  AddHits(A.Hazards, "", "hazard");
  AddHits(A.SoftClauses, "", "soft-clause");
  if (Advisories)
    AddHits(A.Advisories, "advisory:", "hazard");
  for (const WaitViolation &W : A.Waits.Violations)
    Out.Sites.push_back({waitKindName(W.Kind), Addr(W.Instr), ~0ull,
                         W.Reg.First, 0, W.Instr});
  llvm::sort(Out.Sites, [](const ViolationSite &X, const ViolationSite &Y) {
    if (X.key() != Y.key())
      return X.key() < Y.key();
    return X.Missing > Y.Missing;
  });
  return Out;
}

SiteSet SiteSet::of(const LiftedModule &LM, LiftedFunction &LF,
                    const ISAFacts &F, bool Advisories) {
  AnalysisOptions AO;
  AO.Liveness = false;
  return of(analyzeFunction(LM, LF, F, AO), Advisories);
}

std::vector<ViolationSite> SiteSet::introducedBy(const SiteSet &After) const {
  // Within one key, the k-th worst site after is matched with the k-th
  // worst before: it is new when there is none, or it misses more.
  std::vector<ViolationSite> Out;
  auto B = Sites.begin(), BE = Sites.end();
  for (auto A = After.Sites.begin(), AE = After.Sites.end(); A != AE;) {
    auto AEnd = std::find_if(A, AE, [&](const ViolationSite &S) {
      return S.key() != A->key();
    });
    while (B != BE && B->key() < A->key())
      ++B;
    auto BEnd = B;
    while (BEnd != BE && BEnd->key() == A->key())
      ++BEnd;
    for (auto X = A, Y = B; X != AEnd; ++X) {
      if (Y == BEnd || X->Missing > Y->Missing)
        Out.push_back(*X);
      if (Y != BEnd)
        ++Y;
    }
    A = AEnd;
    B = BEnd;
  }
  return Out;
}

std::map<std::string, SiteSet> collectViolationSites(const LiftedModule &LM,
                                                     const ISAFacts &Facts) {
  std::map<std::string, SiteSet> Out;
  for (LiftedFunction &LF : const_cast<LiftedModule &>(LM).functions())
    if (LF.Simple && LF.MF)
      Out[LF.Range.Name] = SiteSet::of(LM, LF, Facts);
  return Out;
}

std::vector<std::pair<std::string, ViolationSite>>
introducedViolations(const std::map<std::string, SiteSet> &Before,
                     const std::map<std::string, SiteSet> &After) {
  std::vector<std::pair<std::string, ViolationSite>> Out;
  static const SiteSet None;
  for (const auto &[Fn, Sites] : After) {
    auto It = Before.find(Fn);
    for (ViolationSite &S :
         (It == Before.end() ? None : It->second).introducedBy(Sites))
      Out.push_back({Fn, std::move(S)});
  }
  return Out;
}

} // namespace asmevo
