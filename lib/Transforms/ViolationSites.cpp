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

std::map<std::string, std::multiset<ViolationSite>>
collectViolationSites(const LiftedModule &LM, const ISAFacts &Facts) {
  std::map<std::string, std::multiset<ViolationSite>> Out;
  for (LiftedFunction &LF :
       const_cast<LiftedModule &>(LM).functions()) {
    if (!LF.Simple || !LF.MF)
      continue;
    std::multiset<ViolationSite> S = collectViolationSites(LM, LF, Facts);
    Out[LF.Range.Name].insert(S.begin(), S.end());
  }
  return Out;
}

std::multiset<ViolationSite> collectViolationSites(const LiftedModule &LM,
                                                   LiftedFunction &LF,
                                                   const ISAFacts &Facts) {
  std::multiset<ViolationSite> Sites;
  AnalysisOptions AO;
  AO.Liveness = false;
  {
    FunctionAnalysis A = analyzeFunction(LM, LF, Facts, AO);
    auto Addr = [&](unsigned I) {
      return I < A.Seq.Instrs.size() ? A.Seq.Instrs[I].Addr : ~0ull;
    };
    for (const std::vector<HazardHit> *Hits : {&A.Hazards, &A.SoftClauses})
      for (const HazardHit &H : *Hits)
        Sites.insert({H.Rule ? H.Rule->Id : "soft-clause", Addr(H.Consumer),
                      Addr(H.Producer), H.Reg.First});
    for (const WaitViolation &W : A.Waits.Violations)
      Sites.insert({waitKindName(W.Kind), Addr(W.Instr), ~0ull, W.Reg.First});
  }
  return Sites;
}

std::vector<std::pair<std::string, ViolationSite>> introducedViolations(
    const std::map<std::string, std::multiset<ViolationSite>> &Before,
    const std::map<std::string, std::multiset<ViolationSite>> &After) {
  std::vector<std::pair<std::string, ViolationSite>> Out;
  static const std::multiset<ViolationSite> None;
  for (const auto &[Fn, Sites] : After) {
    auto It = Before.find(Fn);
    const auto &Old = It == Before.end() ? None : It->second;
    std::vector<ViolationSite> New;
    std::set_difference(Sites.begin(), Sites.end(), Old.begin(), Old.end(),
                        std::back_inserter(New));
    for (ViolationSite &S : New)
      Out.push_back({Fn, std::move(S)});
  }
  return Out;
}

} // namespace asmevo
