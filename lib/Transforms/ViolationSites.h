//===- ViolationSites.h - Violations counted by site, not by total -*- C++ -*-//
//
// AMD's hand-written kernels already break some hazard and waitcnt rules
// (8,694 sites over the corpus, each argued in docs/). A pass is judged by
// the sites it *introduces*: a violation whose (rule, consumer, producer,
// register) by original address the input did not have, or had with fewer
// missing wait states. Totals would let a pass that fixes one site and
// breaks another pass unseen.
//
// This is the one comparison every guard uses: the pipeline's
// --verify-each against the pipeline's input, and each pass against its
// own input before it keeps a rewrite (RewriteGuard, and the passes that
// take a whole function's edits back). Since every pass keeps its output's
// sites within its input's, the pipeline's check holds by construction.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_TRANSFORMS_VIOLATIONSITES_H
#define ASMEVO_TRANSFORMS_VIOLATIONSITES_H

#include "asmevo/Lift/LiftedModule.h"
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace asmevo {
class ISAFacts;
struct FunctionAnalysis;

struct ViolationSite {
  std::string Rule;
  uint64_t Consumer = ~0ull, Producer = ~0ull; ///< Original addresses.
  unsigned Reg = 0;
  /// Wait states missing (hazards); 0 for waitcnt needs.
  int Missing = 0;
  /// Index of the consumer in the analysed sequence. Not part of the
  /// site's identity: it tells a pass where in its function the site is.
  unsigned Index = ~0u;

  auto key() const { return std::tie(Rule, Consumer, Producer, Reg); }
  std::string describe() const;
};

/// The violation sites of one function.
class SiteSet {
public:
  SiteSet() = default;
  /// From an analysis of the function as it is now. With \p Advisories,
  /// the wait states LLVM's hazard recognizer adds beyond the documented
  /// rules count too: compiled code relies on them, so a pass keeps them.
  static SiteSet of(const FunctionAnalysis &A, bool Advisories = false);
  static SiteSet of(const LiftedModule &LM, LiftedFunction &LF,
                    const ISAFacts &F, bool Advisories = false);
  /// Sites of \p After that this set does not have: a (rule, consumer,
  /// producer, register) it has fewer times, or with fewer missing wait
  /// states.
  std::vector<ViolationSite> introducedBy(const SiteSet &After) const;
  bool noneIntroducedBy(const SiteSet &After) const {
    return introducedBy(After).empty();
  }
  const std::vector<ViolationSite> &sites() const { return Sites; }
  size_t size() const { return Sites.size(); }

private:
  /// Sorted by key, then by missing wait states, most first.
  std::vector<ViolationSite> Sites;
};

/// Every violation site of every simple function, by function name.
std::map<std::string, SiteSet> collectViolationSites(const LiftedModule &LM,
                                                     const ISAFacts &Facts);

/// Sites of \p After not in \p Before, with their function's name.
std::vector<std::pair<std::string, ViolationSite>>
introducedViolations(const std::map<std::string, SiteSet> &Before,
                     const std::map<std::string, SiteSet> &After);

} // namespace asmevo

#endif
