//===- Evolve.h - asmevo-opt --evolve: a search over pass lists -*- C++ -*-===//
//
// Candidates are pass lists (the -O2 pipeline, then mutations of the best
// accepted one), each built from K0 by buildCandidate and judged by runGate,
// exactly as -O2's. Candidate I draws its randomness from hash(seed, I)
// alone and candidates are decided in id order, so a (seed, budget) pair
// always gives the same result, and a run resumed from its lineage store
// decides as the uninterrupted one did.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SEARCH_EVOLVE_H
#define ASMEVO_SEARCH_EVOLVE_H

#include "asmevo/Lift/LiftedModule.h"
#include "asmevo/Rewrite/Gate.h"
#include "asmevo/Search/EditScript.h"
#include "asmevo/Search/LineageStore.h"
#include "asmevo/Search/WorkerPool.h"
#include <optional>

namespace asmevo {

/// A proposal from outside the built-in mutations (an --agent): an edit
/// script against K0, judged like any candidate.
struct ExternalProposal {
  std::string Hypothesis;
  std::string Script; ///< JSON text, not yet read.
};

struct ExternalAnswer {
  bool Stop = false;
  std::string Note;
  std::vector<ExternalProposal> Proposals;
};

/// Where external proposals come from. The search asks it, with a `state`
/// (docs/agent-protocol.md), whenever it has none queued; an Error (late,
/// malformed, exited) ends the source's part of the run, not the run.
class ProposalSource {
public:
  virtual ~ProposalSource() = default;
  virtual llvm::Expected<ExternalAnswer> ask(const llvm::json::Value &State) = 0;
};

struct EvolveOptions {
  uint64_t Seed = 1;
  unsigned Candidates = 8;
  double TimeBudget = 0; ///< Seconds; 0: none. Ends the run early.
  std::vector<std::string> Pipeline; ///< The passes mutations draw from.
  /// Candidate #0's list: -O2's outcome on K0 (o2KeptPasses()), so that
  /// the run starts from what -O2 keeps; empty: Pipeline itself.
  std::vector<std::string> First;
  /// Three of every four candidates after a new best walk the parameter
  /// sweep of its active passes (ParamSweep.h); false: random mutations
  /// only.
  bool Sweep = true;
  LiftOptions Lift;
  GateOptions Gate;
  LineageStore *Store = nullptr;
  bool Resume = false;
  /// Workers evaluating candidates at once. Above 1, or with limits, every
  /// candidate is evaluated in a forked worker; the result does not depend
  /// on either (only on whether a limit was hit).
  unsigned Jobs = 1;
  WorkerLimits Limits;
  /// --agent: its proposals take candidate ids from the same budget.
  ProposalSource *Agent = nullptr;
  /// The hot windows the agent is shown (a JSON array), computed once.
  llvm::json::Value AgentWindows = llvm::json::Array();
  llvm::raw_ostream *Progress = nullptr;
};

struct EvolveResult {
  std::string RunId;
  std::vector<CandidateRecord> All; ///< In id order.
  std::vector<int64_t> Lineage;     ///< Ids from the first accepted one.
  std::optional<std::vector<uint8_t>> Bytes; ///< The winner; none: K0.
  EditScript Edits;                 ///< Reproduces the winner from K0.
  unsigned Evaluated = 0, Reused = 0;
  /// Evaluations started ahead of their turn and discarded because an
  /// earlier candidate was accepted (their parent was then stale).
  unsigned Discarded = 0;
  bool OutOfTime = false;
  /// Why the agent's part of the run ended ("stopped: ...", "failed: ...");
  /// empty without --agent.
  std::string AgentEnd;
};

llvm::Expected<EvolveResult> evolve(const CodeObject &K0,
                                    const EvolveOptions &O);

/// What -O2's search (the whole list, then its subsets, then the parameter
/// variants; optimizeCodeObject) keeps on K0 under O's gate, when every
/// kernel unit it keeps kept the same list; empty otherwise. Its attempts
/// are not evolve candidates: the caller reports how many it judged
/// (\p Attempts).
llvm::Expected<std::vector<std::string>>
o2KeptPasses(const CodeObject &K0, const EvolveOptions &O, unsigned &Attempts);

/// The winner's lineage; deterministic (no wall times).
void printEvolveReport(llvm::raw_ostream &OS, const EvolveResult &R);

/// Hex of a 64-bit hash of \p Bytes.
std::string contentHash(llvm::ArrayRef<uint8_t> Bytes);

} // namespace asmevo
#endif
