//===- OptimizerSearch.h - The -O search over pass sets ---------*- C++ -*-===//
//
// Private to lib/Rewrite: the search that optimizeCodeObject runs on one
// code object, split over files by concern: SearchRounds.cpp (the rounds
// of proposals, judging and the final decision), SearchInPlace.cpp (the
// --trust-static path that edits one shared module), SearchWorkers.cpp
// (the same search spread over forked processes, and what crosses their
// pipes).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_REWRITE_OPTIMIZERSEARCH_H
#define ASMEVO_LIB_REWRITE_OPTIMIZERSEARCH_H

#include "asmevo/Rewrite/Optimizer.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Rewrite/ForkWorkers.h"
#include "asmevo/Rewrite/PatchInPlace.h"
#include "asmevo/Rewrite/StaticCost.h"
#include "asmevo/Support/PhaseTimer.h"
#include "asmevo/Transforms/ApplyEdits.h"
#include "asmevo/Transforms/KernelUnits.h"
#include "asmevo/Timing/Config.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <atomic>
#include <sys/mman.h>

namespace asmevo {

/// Instructions in \p LM: MachineInstrs of simple functions, the decoded
/// count of the others.
uint64_t countInstructions(LiftedModule &LM);

namespace optimize {
/// A fatal error as a worker's answer line.
std::string fatalAnswer(llvm::Error E);

/// The shared-module search found kept sets whose object cannot be
/// rebuilt; optimizeCodeObject searches again, rebuilding every candidate.
class InPlaceUnbuildable : public llvm::ErrorInfo<InPlaceUnbuildable> {
public:
  static char ID;
  std::string Msg;
  explicit InPlaceUnbuildable(std::string M) : Msg(std::move(M)) {}
  void log(llvm::raw_ostream &OS) const override { OS << Msg; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
};

/// One unit's place in the search (see Search).
struct UnitState {
  KernelUnit U;
  std::set<std::string> Functions;
  /// The spec restricted to this unit's launches (spec path, when the spec
  /// launches kernels of other units too).
  std::optional<emu::LaunchSpec> OwnSpec;
  GateOptions Gate;
  UnitOutcome Out;
  /// Parallel to Out.Attempts: the candidate, while it may be kept (only
  /// for attempts made in this process; shared by the units of one build).
  std::vector<std::shared_ptr<Candidate>> Cands;
  size_t Full = 0, Best = 0;
  /// Its kept pass set's edits are in the shared module (Search::Work).
  bool InWork = false;
};

/// A counter the forked workers share (an anonymous shared mapping).
class SharedCounter {
public:
  SharedCounter() {
    void *P = mmap(nullptr, sizeof(std::atomic<unsigned>),
                   PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (P != MAP_FAILED)
      Next = new (P) std::atomic<unsigned>(0);
  }
  ~SharedCounter() {
    if (Next)
      munmap(Next, sizeof(std::atomic<unsigned>));
  }
  bool valid() const { return Next != nullptr; }
  unsigned claim() { return Next->fetch_add(1); }

private:
  std::atomic<unsigned> *Next = nullptr;
};

/// One code object's search over pass sets, decided per unit. Each round
/// every undecided unit proposes pass sets; under --trust-static the units
/// that propose the same set share one build (the static cost is per
/// function), while with a spec each unit's candidate changes that unit
/// alone, so that the verifier and the timing judge only its edits.
class Search {
public:
  Search(const CodeObject &K0, const OptimizeOptions &O, ModuleOutcome &Out,
         std::map<std::string, double> K0Cost, std::vector<UnitState> &Units)
      : K0(K0), O(O), Out(Out), K0Cost(std::move(K0Cost)), Units(Units) {}

  llvm::Error run() {
    if (llvm::Error E = search())
      return E;
    return finish();
  }
  /// run() spread over processes (optimizeCodeObject forks them before
  /// the lift, so that each lifts its own Work): each claims chunks of the
  /// units (chunkUnits) through \p Counter, searches them and applies
  /// their kept sets in its Work. A worker sends each chunk's decisions
  /// and the functions it changed, as MIR, through \p Send; the parent
  /// imports what has arrived between its own chunks (\p Poll) and the
  /// rest at the end (importChunk), then rebuilds once (finish). The
  /// decisions are the same as run()'s because a unit's never depend on
  /// the other units in the module (the passes edit only OnlyFunctions,
  /// and units are closed under calls), nor do functions being imported
  /// meanwhile change what a pass sees of the running unit.
  llvm::Error searchClaimed(SharedCounter &Counter, unsigned Processes,
                      llvm::function_ref<void(std::string)> Send,
                      llvm::function_ref<llvm::Error()> Poll);
  /// One chunk's message from a worker, into Work and Units.
  llvm::Error importChunk(llvm::StringRef Message);
  llvm::Error finish();

private:
  /// The rounds of proposals, up to the decision of every unit.
  llvm::Error search();
  /// After search(): the kept list of each unit again with the parameter
  /// variants of variantsOf(), kept when the gate scores one higher.
  llvm::Error tryVariants();
  struct Proposal {
    size_t Unit;
    std::vector<std::string> Passes;
  };
  struct Group {
    std::vector<std::string> Passes;
    std::vector<size_t> Units;
  };
  /// Attempts of each proposal not yet attempted by its unit.
  llvm::Error evaluate(std::vector<Proposal> Ps, bool First = false);
  /// Builds \p G's set over its units and judges it for each of them.
  llvm::Expected<std::vector<Attempt>>
  runGroup(const Group &G, bool First, std::shared_ptr<Candidate> &Cand);
  /// Judges the built \p C for unit \p U.
  llvm::Expected<Attempt> judge(const Candidate &C, size_t U);
  /// runGroup() of each of \p Gs, in worker processes (O.Jobs); the
  /// attempts come back as summaries (verdict, check, reason, score).
  llvm::Expected<std::vector<std::vector<Attempt>>>
  runInWorkers(const std::vector<Group> &Gs);
  std::optional<size_t> find(size_t U,
                             const std::vector<std::string> &P) const {
    const auto &A = Units[U].Out.Attempts;
    for (size_t I = 0; I < A.size(); ++I)
      if (A[I].Passes == P)
        return I;
    return std::nullopt;
  }
  double score(size_t U, size_t I) const {
    const Attempt &A = Units[U].Out.Attempts[I];
    return A.Gate.Accepted ? A.Score : 0;
  }
  /// Passes of \p S in pipeline order.
  std::vector<std::string> ordered(const std::set<std::string> &S) const {
    std::vector<std::string> R;
    for (const std::string &P : O.Passes)
      if (S.count(P) && !llvm::is_contained(R, P))
        R.push_back(P);
    return R;
  }
  /// Drops the candidates no unit can still keep.
  void prune();
  /// runGroup() in the shared module Work: the passes run over the group's
  /// functions there, and every function whose edits are not kept is
  /// lifted again from K0 afterwards.
  /// In the first round (\p Keep) an accepted unit's edits stay in Work.
  llvm::Expected<std::vector<Attempt>> runGroupInPlace(const Group &G, bool Keep,
                                                 bool Print);
  /// The units whose best attempt is kept (accepted, and changed them).
  std::vector<size_t> keptUnits() const;
  /// Each of \p Kept's pass sets run in Work where its edits are not yet.
  llvm::Error applyKeptInPlace(llvm::ArrayRef<size_t> Kept);
  /// The kept sets applied in Work (those not already there) and Work
  /// rebuilt: the output candidate.
  llvm::Expected<std::shared_ptr<Candidate>> finishInPlace(llvm::ArrayRef<size_t> Kept);
  void reliftAll(const std::set<std::string> &Fns) {
    PhaseScope P("candidate: relift");
    for (LiftedFunction &LF : Work->functions())
      if (Fns.count(LF.Range.Name))
        Work->relift(LF);
  }

public:
  /// --trust-static in one process: one lifted module serves every
  /// candidate (K0's own lift), instead of a lift and a rebuild each.
  std::unique_ptr<LiftedModule> Work;

private:
  /// Per function of Work holding kept edits: each pass's share of them.
  std::map<std::string, std::map<std::string, PassStat>> WorkStats;
  /// Static cost of the functions of kept units, computed by the process
  /// that searched them (StaticCost.h; finishInPlace computes the rest).
  std::map<std::string, double> KeptCost;

  const CodeObject &K0;
  const OptimizeOptions &O;
  ModuleOutcome &Out;
  std::map<std::string, double> K0Cost;
  std::vector<UnitState> &Units;
};
} // namespace optimize

} // namespace asmevo

#endif // ASMEVO_LIB_REWRITE_OPTIMIZERSEARCH_H
