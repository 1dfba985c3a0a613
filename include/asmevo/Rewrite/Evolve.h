//===- Evolve.h - asmevo-opt --evolve: a search over pass sequences -*- C++ -*-//
//
// A population of candidates behind the -O2 gate: candidate 0 is the whole
// pipeline, every later one a mutation (a pass added, dropped, swapped or
// repeated; or a fresh random subset) of the best accepted so far. Each
// candidate's randomness comes from (seed, id) alone and acceptance is
// decided in id order, so a seed and a candidate budget give one result.
// A candidate is accepted when the gate accepts it (verified equivalent,
// robustly faster than K0) and it is robustly faster than the best so far:
// at least 1% under the base model parameters and under every perturbed set.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_REWRITE_EVOLVE_H
#define ASMEVO_REWRITE_EVOLVE_H

#include "asmevo/Rewrite/Optimizer.h"

namespace asmevo {

struct EvolveOptions {
  OptimizeOptions Base; ///< Passes: the mutation pool (and candidate 0).
  uint64_t Seed = 1;
  unsigned Candidates = 16;
  /// The lineage store (docs/lineage-store.md); empty: none.
  std::string LineagePath;
  bool Resume = false;
  /// Progress lines on this stream (none: quiet).
  llvm::raw_ostream *Progress = nullptr;
};

/// The search on one code object; the outcome is the winner's, as
/// optimizeCodeObject would report it (Attempts: one per candidate).
llvm::Expected<ModuleOutcome> evolveCodeObject(const CodeObject &K0,
                                               const EvolveOptions &O);

} // namespace asmevo

#endif
