//===- Pass.h - MachineFunction passes registered by name -------*- C++ -*-===//
#ifndef ASMEVO_TRANSFORMS_PASS_H
#define ASMEVO_TRANSFORMS_PASS_H

#include "asmevo/Lift/LiftedModule.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace asmevo {

/// Which of a pass's individual rewrites may apply. The pipeline's
/// reduction mode (delta debugging) numbers the rewrites a pass proposes,
/// in the order it asks, and enables a subset to find the one at fault.
class RewriteFilter {
public:
  /// All rewrites enabled; count them.
  RewriteFilter() = default;
  /// Only the rewrites whose numbers are in \p Enabled.
  explicit RewriteFilter(std::set<unsigned> Enabled)
      : Enabled(std::move(Enabled)), Restricted(true) {}
  /// Called once per rewrite the pass is about to make.
  bool allow() {
    unsigned N = Seen++;
    return !Restricted || Enabled.count(N);
  }
  unsigned seen() const { return Seen; }
  bool restricted() const { return Restricted; }
  const std::set<unsigned> &enabled() const { return Enabled; }

private:
  std::set<unsigned> Enabled;
  bool Restricted = false;
  unsigned Seen = 0;
};

/// A pass's parameters as a pipeline gives them (`name<key=value;...>`):
/// integers by name. They live in the pass object, so two pipelines in one
/// process (two --evolve candidates) never share them, unlike cl::opts.
using PassParams = std::map<std::string, int64_t>;

/// One parameter a pass accepts, with the range --evolve draws from.
struct PassParamInfo {
  std::string Name;
  std::string Description;
  int64_t Min = 0, Max = 0;
};

/// Parameters every pass accepts: `keep` (1-100, default 100) percent of
/// its rewrites, chosen by hashing `pick` with each rewrite's number
/// within the function. They choose *which* waits to sink, pairs to pack,
/// loads to widen, without the pass knowing.
const std::vector<PassParamInfo> &commonPassParams();

/// A pass over the simple functions of a lifted module. Non-simple
/// functions keep their bytes; of them, only patch-only ones
/// (LiftedFunction::PatchMF) are ever shown to a pass, and only to the
/// passes of passKeepsAddresses() when PipelineOptions::PatchOnly asks.
class Pass {
public:
  virtual ~Pass() = default;
  virtual llvm::StringRef name() const = 0;
  /// Returns true if it changed \p LF.
  virtual llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) = 0;

  /// Every pass calls this before each individual rewrite (one site: one
  /// wait changed, one pair packed, one load widened) and skips the rewrite
  /// when it returns false. The order must be deterministic for a given
  /// input, so that rewrite N means the same site on every run.
  bool shouldRewrite() {
    if (!sampled())
      return false;
    return !Filter || Filter->allow();
  }
  void setRewriteFilter(RewriteFilter *F) { Filter = F; }

  /// Parameters checked by parsePassSpec against the pass's registration.
  void setParams(PassParams P) { Params = std::move(P); }
  const PassParams &params() const { return Params; }
  /// The parameter \p Key if the pipeline gave it, else \p Default (the
  /// pass's cl::opt, which then only sets the default).
  int64_t param(llvm::StringRef Key, int64_t Default) const {
    auto It = Params.find(Key.str());
    return It == Params.end() ? Default : It->second;
  }
  /// The runner calls this before each function, so that `keep` numbers
  /// rewrites within the function, as an edit script's pass edit (one
  /// function, a fresh pass) does.
  void beginFunction() { Sampled = 0; }

  /// Why the pass left the function it runs on as it was, for a pass whose
  /// refusals a user cannot guess (`--pass-stats` prints them).
  void note(const llvm::Twine &Why) { Notes.push_back(Why.str()); }
  std::vector<std::string> takeNotes() { return std::move(Notes); }

private:
  bool sampled();

  std::vector<std::string> Notes;

  RewriteFilter *Filter = nullptr;
  PassParams Params;
  unsigned Sampled = 0;
};

using PassFactory = std::function<std::unique_ptr<Pass>()>;

struct PassEntry {
  std::string Name;
  std::string Description;
  PassFactory Create;
  /// Test-only passes (deliberately wrong ones among them) are never part
  /// of a -O pipeline and are listed apart.
  bool TestOnly = false;
  /// Its own parameters (commonPassParams() come on top).
  std::vector<PassParamInfo> Params = {};
};

/// A pipeline element: a pass name and the parameters given to it.
struct PassSpec {
  std::string Name;
  PassParams Params;
  /// `name` or `name<k=v;k=v>`, keys in order: the form lineage rows and
  /// pipelines record.
  std::string str() const;
};

/// Reads `name` or `name<k=v;...>`, checking the name, each key against the
/// pass's and the common parameters and each value against its range.
llvm::Expected<PassSpec> parsePassSpec(llvm::StringRef Text);

/// The parameter \p Key of pass \p Entry (its own or a common one).
const PassParamInfo *findPassParam(const PassEntry &Entry,
                                   llvm::StringRef Key);

const std::vector<PassEntry> &registeredPasses();

/// True for the passes whose edits can leave every instruction at its
/// address with its size (wait counts and s_nop lengths changed, a wait
/// sunk or instructions reordered within a block): the only ones run over
/// patch-only functions, whose result must be a byte patch. Whether an
/// edit really kept the addresses is the patcher's to decide.
bool passKeepsAddresses(llvm::StringRef Name);
const PassEntry *findPass(llvm::StringRef Name);

/// What one pass of a pipeline did to a module (`--pass-stats`).
/// Instructions are compared as multisets of (opcode, operands) per
/// function: an instruction that only moved counts as nothing, one whose
/// operands changed as rewritten (a removed and an added one, paired).
struct PassStat {
  std::string Pass;
  unsigned FunctionsChanged = 0;
  uint64_t Added = 0, Removed = 0, Rewritten = 0;
  /// Hazard and waitcnt violations at sites the input did not have.
  unsigned IntroducedViolations = 0;
  /// "function: why" for each Pass::note() (not carried across --jobs).
  std::vector<std::string> Notes;
};

class EditRecorder;

struct PipelineOptions {
  /// The MachineVerifier after every pass, and our hazard and waitcnt
  /// checks: a violation at a site (rule, consumer, producer by original
  /// address) the input did not have is the pass's bug and an error.
  bool VerifyEach = false;
  bool PrintAfterAll = false;
  std::vector<std::string> PrintAfter;
  llvm::raw_ostream *PrintStream = nullptr;
  /// Filled per pass, in pipeline order, when set.
  std::vector<PassStat> *Stats = nullptr;
  /// Per pass name: which of its rewrites may apply (reduction mode).
  std::map<std::string, RewriteFilter *> Filters;
  /// When set, every (pass, function) change is recorded as an edit
  /// (ApplyEdits.h).
  EditRecorder *Record = nullptr;
  /// When set, the passes run only over these functions (by name; a
  /// kernel with the device functions it reaches, KernelUnits.h), and
  /// only they are checked and counted: the others keep their content.
  /// This is how different kernels of one object get different passes.
  const std::set<std::string> *OnlyFunctions = nullptr;
  /// When set, receives per pass the names of the functions it changed.
  std::map<std::string, std::set<std::string>> *ChangedFunctions = nullptr;
  /// With Stats: also each changed function's share, per pass and function.
  std::map<std::string, std::map<std::string, PassStat>> *FunctionStats =
      nullptr;
  /// Also run the passes of passKeepsAddresses() over patch-only functions
  /// (in scope), with the hazard and waitcnt checks but not the
  /// MachineVerifier, which rejected them as lifted. Only a caller that
  /// writes them back as byte patches (buildCandidate) may set this.
  bool PatchOnly = false;
};

/// The passes of \p Pipeline: comma-separated names (each may carry
/// parameters, `name<k=v;...>`, returned in PassSpec::str() form), where
/// "O1" and "O2" stand for the pipelines of optimizationPipeline().
llvm::Expected<std::vector<std::string>>
expandPipeline(llvm::StringRef Pipeline);

/// The -O1 / -O2 pass lists (Pipelines.cpp says why in this order).
std::vector<std::string> optimizationPipeline(unsigned Level);

/// Runs the comma-separated \p Pipeline over every simple function (or
/// those of PipelineOptions::OnlyFunctions).
llvm::Error runPipeline(LiftedModule &LM, llvm::StringRef Pipeline,
                        const PipelineOptions &Opts);

} // namespace asmevo

#endif
