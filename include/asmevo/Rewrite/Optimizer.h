//===- Optimizer.h - The -O job on one code object --------------*- C++ -*-===//
//
// What `asmevo-opt -O2 --spec S` does to each code object, as BOLT's
// RewriteInstance holds llvm-bolt's job: lift it afresh, run the pipeline
// with the static checks after every pass, rebuild, and put the candidate
// through the gate. The decision is made per kernel (a unit: a kernel
// with the device functions it reaches, KernelUnits.h): a failed
// whole-pipeline candidate is followed, for that kernel alone, by subsets
// of the passes (each alone, then the accepted ones combined); each
// kernel keeps its best accepted set, or its original code. The kept sets
// are then applied together, each to its own kernels, in one rebuild.
// Every attempt is recorded with the check that decided it.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_REWRITE_OPTIMIZER_H
#define ASMEVO_REWRITE_OPTIMIZER_H

#include "asmevo/Emit/Rebuild.h"
#include "asmevo/Lift/LiftedModule.h"
#include "asmevo/Rewrite/Gate.h"
#include "asmevo/Rewrite/PatchInPlace.h"
#include <map>
#include "asmevo/Transforms/KernelUnits.h"
#include "asmevo/Transforms/Pass.h"
#include "asmevo/Search/EditScript.h"
#include "asmevo/Verify/EditSet.h"
#include <memory>
#include <optional>
#include <set>
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
  /// The patch-only functions whose edits were written as byte patches
  /// (in K0's bytes, or in the rebuilt object's when other functions
  /// changed too; PatchInPlace.h).
  std::vector<PatchedFunction> PatchOnly;
  /// StaticCost.h, per function, after the passes.
  std::map<std::string, double> Cost;
  /// The passes' changes as pass edits (CandidateOptions::RecordEdits).
  EditScript Edits;
  /// Per pass, the functions it changed.
  std::map<std::string, std::set<std::string>> ChangedBy;
  /// Every function some pass changed.
  std::set<std::string> changedFunctions() const;
  /// The kernel units of the lifted module (CandidateOptions::Units).
  std::vector<KernelUnit> Units;
  /// The lifted module itself (CandidateOptions::KeepModule).
  std::unique_ptr<LiftedModule> Module;
};

/// One run of the pipeline within a candidate: \p Passes over the
/// functions of \p Functions (all simple functions when unset).
struct PlanStep {
  std::vector<std::string> Passes;
  std::optional<std::set<std::string>> Functions;
};

/// How buildCandidate works beyond the passes.
struct CandidateOptions {
  PipelineOptions Print; ///< -print-after= and the reduction's filters.
  bool PatchInPlace = false;
  /// Compute Candidate::Cost (only --trust-static decides by it).
  bool StaticCost = false;
  /// Fill Candidate::Edits.
  bool RecordEdits = false;
  /// Fill Candidate::Units (as lifted, before any pass).
  bool Units = false;
  /// Hand the lifted module over in Candidate::Module.
  bool KeepModule = false;
};

/// Lifts \p K0 afresh, runs \p Passes (with the static checks after each;
/// an introduced violation is an error naming the pass) and rebuilds. With
/// no passes nothing is rebuilt: K0 is its own candidate, and only the
/// instruction count (and cost) are filled in.
llvm::Expected<Candidate>
buildCandidate(const CodeObject &K0, llvm::ArrayRef<std::string> Passes,
               const LiftOptions &LO, const CandidateOptions &CO = {});
/// The same with several pass sets, each over its own functions (in
/// order, on one lift): how per-kernel decisions become one object.
llvm::Expected<Candidate> buildCandidate(const CodeObject &K0,
                                         llvm::ArrayRef<PlanStep> Plan,
                                         const LiftOptions &LO,
                                         const CandidateOptions &CO = {});

struct Attempt {
  std::vector<std::string> Passes;
  GateResult Gate;
  bool Built = true;   ///< False: a pass failed or broke a static check.
  std::string Error;   ///< When !Built.
  bool Changed = false;
  /// How good an accepted attempt is: the modelled median speedup, or
  /// with --trust-static the unit's static cost before / after; 0 when
  /// rejected.
  double Score = 0;
  /// The kernels (or functions) it was judged for (KernelUnit::name()).
  std::string Unit;
};

/// What was decided for one kernel and the device functions it reaches.
struct UnitOutcome {
  std::vector<std::string> Kernels, Functions;
  /// The pass set kept for it (empty: it keeps its original code).
  std::vector<std::string> Passes;
  /// The passes of that set that changed one of its functions.
  std::vector<std::string> AcceptedPasses;
  /// The kept attempt's gate, or the whole pipeline's when none was kept.
  GateResult Gate;
  std::string Why;
  std::vector<Attempt> Attempts;
  /// --trust-static: weighted issue cycles of its functions (StaticCost.h).
  double K0Cost = 0, K1Cost = 0;
  bool changed() const { return !Passes.empty(); }
  std::string name() const;
};

struct ModuleOutcome {
  std::string Name;
  std::vector<std::string> Kernels; ///< The kernels the spec launches.
  /// The new code object, when a candidate was accepted.
  std::optional<std::vector<uint8_t>> Bytes;
  std::vector<std::string> AcceptedPasses;
  GateResult Final;                 ///< Of the kept candidate (or K0 alone).
  std::vector<PassStat> Stats;      ///< Of the kept candidate.
  /// Every unit's attempts, unit after unit.
  std::vector<Attempt> Attempts;
  /// The decision per kernel, in file order.
  std::vector<UnitOutcome> Units;
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
  /// Functions of the kept candidate that are not simple and were patched
  /// in place for that reason (Candidate::PatchOnly).
  std::vector<PatchedFunction> PatchedNonSimple;
  /// The kept candidate's passes as an edit script that reproduces it from
  /// K0 (OptimizeOptions::RecordEdits; docs/edit-script.md).
  EditScript Edits;
};

/// The whole job on one code object.
llvm::Expected<ModuleOutcome> optimizeCodeObject(const CodeObject &K0,
                                                 const OptimizeOptions &O);

} // namespace asmevo

#endif
