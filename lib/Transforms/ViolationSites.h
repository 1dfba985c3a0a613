//===- ViolationSites.h - Violations counted by site, not by total -*- C++ -*-//
//
// AMD's hand-written kernels already break some hazard and waitcnt rules
// (8,694 sites over the corpus, each argued in docs/). A pass is judged by
// the sites it *introduces*: a violation whose (rule, consumer, producer,
// register) by original address the input did not have. Totals would let
// a pass that fixes one site and breaks another pass unseen.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_TRANSFORMS_VIOLATIONSITES_H
#define ASMEVO_TRANSFORMS_VIOLATIONSITES_H

#include "asmevo/Lift/LiftedModule.h"
#include <map>
#include <set>
#include <string>
#include <vector>

namespace asmevo {
class ISAFacts;

struct ViolationSite {
  std::string Rule;
  uint64_t Consumer = ~0ull, Producer = ~0ull; ///< Original addresses.
  unsigned Reg = 0;
  bool operator<(const ViolationSite &O) const {
    return std::tie(Rule, Consumer, Producer, Reg) <
           std::tie(O.Rule, O.Consumer, O.Producer, O.Reg);
  }
  std::string describe() const;
};

/// Every violation site of every simple function, by function name.
std::map<std::string, std::multiset<ViolationSite>>
collectViolationSites(const LiftedModule &LM, const ISAFacts &Facts);
/// The sites of one simple function.
std::multiset<ViolationSite> collectViolationSites(const LiftedModule &LM,
                                                   LiftedFunction &LF,
                                                   const ISAFacts &Facts);

/// Sites of \p After not in \p Before (a site an edit added counts once
/// per occurrence beyond the input's).
std::vector<std::pair<std::string, ViolationSite>>
introducedViolations(
    const std::map<std::string, std::multiset<ViolationSite>> &Before,
    const std::map<std::string, std::multiset<ViolationSite>> &After);

} // namespace asmevo

#endif
