//===- Optimizer.h - The -O job on one code object --------------*- C++ -*-===//
//
// What `asmevo-opt -O2 --spec S` does to each code object, as BOLT's
// RewriteInstance holds llvm-bolt's job: lift it afresh, run the pipeline
// with the static checks after every pass, rebuild, and put the candidate
// through the gate. A failed whole-pipeline candidate is followed by
// subsets of the passes (each alone, then the accepted ones combined);
// the best accepted candidate is kept, and when none is, the original
// bytes are. Every attempt is recorded with the check that decided it.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_REWRITE_OPTIMIZER_H
#define ASMEVO_REWRITE_OPTIMIZER_H

#include "asmevo/Emit/Rebuild.h"
#include "asmevo/Lift/LiftedModule.h"
#include "asmevo/Rewrite/Gate.h"
#include <map>
#include "asmevo/Transforms/Pass.h"
#include "asmevo/Search/EditScript.h"
#include "asmevo/Verify/EditSet.h"
#include <memory>
#include <string>
#include <vector>

namespace asmevo {

struct OptimizeOptions {
  std::vector<std::string> Passes; ///< Expanded (expandPipeline).
  LiftOptions Lift;
  GateOptions Gate;
  /// After a failed whole-pipeline candidate, try subsets.
  bool TrySubsets = true;
  /// Write accepted edits as byte patches into the original object
  /// (PatchInPlace.h); a candidate that moves code is refused.
  bool PatchInPlace = false;
  /// For -print-after= and friends (the first attempt only).
  PipelineOptions Print;
  /// Keep, per candidate, what its passes did as an edit script
  /// (ModuleOutcome::Edits; costs a fingerprint per function and pass).
  bool RecordEdits = false;
  /// Worker processes for the attempts that do not depend on each other
  /// (each pass alone); the outcome does not depend on it.
  unsigned Jobs = 1;
};

/// A rebuilt code object and what made it.
struct Candidate {
  std::vector<std::string> Passes;
  std::vector<PassStat> Stats;
  bool Changed = false;
  RebuildResult Rebuilt;
  verify::AddressMap Map;
  std::unique_ptr<CodeObject> CO;
  /// Instructions of the lifted functions after the passes.
  uint64_t Instructions = 0;
  /// Set when the candidate's bytes are K0's with byte patches.
  bool Patched = false;
  unsigned PatchedInstructions = 0;
  /// StaticCost.h, per function, after the passes.
  std::map<std::string, double> Cost;
  /// The passes' changes as pass edits (CandidateOptions::RecordEdits).
  EditScript Edits;
};

/// How buildCandidate works beyond the passes.
struct CandidateOptions {
  PipelineOptions Print; ///< -print-after= and the reduction's filters.
  bool PatchInPlace = false;
  /// Compute Candidate::Cost (only --trust-static decides by it).
  bool StaticCost = false;
  /// Fill Candidate::Edits.
  bool RecordEdits = false;
};

/// Lifts \p K0 afresh, runs \p Passes (with the static checks after each;
/// an introduced violation is an error naming the pass) and rebuilds. With
/// no passes nothing is rebuilt: K0 is its own candidate, and only the
/// instruction count (and cost) are filled in.
llvm::Expected<Candidate>
buildCandidate(const CodeObject &K0, llvm::ArrayRef<std::string> Passes,
               const LiftOptions &LO, const CandidateOptions &CO = {});

struct Attempt {
  std::vector<std::string> Passes;
  GateResult Gate;
  bool Built = true;   ///< False: a pass failed or broke a static check.
  std::string Error;   ///< When !Built.
  bool Changed = false;
};

struct ModuleOutcome {
  std::string Name;
  std::vector<std::string> Kernels; ///< The kernels the spec launches.
  /// The new code object, when a candidate was accepted.
  std::optional<std::vector<uint8_t>> Bytes;
  std::vector<std::string> AcceptedPasses;
  GateResult Final;                 ///< Of the kept candidate (or K0 alone).
  std::vector<PassStat> Stats;      ///< Of the kept candidate.
  std::vector<Attempt> Attempts;
  uint64_t K0Instructions = 0, K1Instructions = 0;
  /// Allocated VGPRs (arch + acc, descriptor granules) of the first
  /// launched kernel.
  unsigned K0VGPRs = 0, K1VGPRs = 0;
  /// Address map of the kept candidate (for --address-map).
  std::optional<RebuildResult> Rebuilt;
  std::string Why; ///< One line: why this outcome.
  /// The kept candidate is K0 with this many instructions patched.
  bool Patched = false;
  unsigned PatchedInstructions = 0;
  /// The kept candidate's passes as an edit script that reproduces it from
  /// K0 (OptimizeOptions::RecordEdits; docs/edit-script.md).
  EditScript Edits;
};

/// The whole job on one code object.
llvm::Expected<ModuleOutcome> optimizeCodeObject(const CodeObject &K0,
                                                 const OptimizeOptions &O);

} // namespace asmevo

#endif
