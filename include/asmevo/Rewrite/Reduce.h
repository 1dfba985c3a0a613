//===- Reduce.h - The smallest failing set of passes and rewrites -*- C++ -*-//
//
// `asmevo-opt --reduce`: a candidate the gate rejects for correctness (the
// verifier or the static checks, not the timing) is brought down by delta
// debugging to the fewest passes that still fail, then, within each of
// them, to the fewest of its individual rewrites (Pass::shouldRewrite
// numbers them), and the final set is built and judged once more, all
// together. The result names each rewrite at fault by the instructions it
// edited.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_REWRITE_REDUCE_H
#define ASMEVO_REWRITE_REDUCE_H

#include "asmevo/Rewrite/Optimizer.h"
#include <map>
#include <set>

namespace asmevo {

struct ReduceResult {
  bool Failed = false;  ///< The whole pipeline's candidate failed at all.
  std::string Check;    ///< "verify" or "static".
  std::string Reason;   ///< Of the final, reduced candidate.
  std::vector<std::string> Passes;
  /// Per pass: the rewrites at fault, and how many the pass proposed.
  std::map<std::string, std::set<unsigned>> Rewrites;
  std::map<std::string, unsigned> RewriteCounts;
  std::vector<std::string> Edits; ///< Of the final candidate.
  unsigned Builds = 0;            ///< Candidates built and judged.
  bool Confirmed = false;         ///< The final set fails when run together.
};

llvm::Expected<ReduceResult> reduceFailure(const CodeObject &K0,
                                           const OptimizeOptions &O);

void printReduceResult(llvm::raw_ostream &OS, const ReduceResult &R);

} // namespace asmevo

#endif
