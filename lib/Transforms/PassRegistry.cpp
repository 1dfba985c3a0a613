//===- PassRegistry.cpp - Passes by name, the pipeline runner -------------===//
#include "asmevo/Transforms/Pass.h"
#include "ApplyEditsPass.h"
#include "asmevo/Transforms/ApplyEdits.h"
#include "BlockLayout.h"
#include "ExecLoopFlatten.h"
#include "FoldAddressStep.h"
#include "HoistGuardedLoad.h"
#include "InsertNops.h"
#include "LoopUnroll.h"
#include "NopShrink.h"
#include "RedundancyElim.h"
#include "RegallocCompact.h"
#include "RelaxWaitcnt.h"
#include "ViolationSites.h"
#include "asmevo/Lift/FunctionKey.h"
#include "asmevo/Analysis/ISAFacts.h"
#include "asmevo/Support/PhaseTimer.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "SinkWaitcnt.h"
#include "TestDropWaitcnt.h"
#include "TestSwapDependent.h"
#include "MemWiden.h"
#include "PackF32.h"
#include "Scalarize.h"
#include "ScheduleWindow.h"
#include "SetPrio.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/IR/PrintPasses.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <optional>

using namespace llvm;
using namespace asmevo;

const std::vector<PassEntry> &asmevo::registeredPasses() {
  static const std::vector<PassEntry> Passes = {
      {"insert-nops",
       "test-only: s_nop 0 at the top of every block (outside preload "
       "prologues), to prove that code can move",
       [] { return std::make_unique<InsertNopsPass>(); }, /*TestOnly=*/true},
      {"relax-waitcnt",
       "s_waitcnt values relaxed to what later instructions need (the "
       "waitcnt analysis' slack); same size, no code moves",
       [] { return std::make_unique<RelaxWaitcntPass>(); }},
      {"sink-waitcnt",
       "each s_waitcnt moved down its block to just before the first "
       "instruction that needs it (run relax-waitcnt after it)",
       [] { return std::make_unique<SinkWaitcntPass>(); }, false,
       {{"reach", "most instructions a wait may sink past (0: to its first "
                  "user)", 0, 64}}},
      {"nop-shrink",
       "each s_nop cut to the wait states the hazard rules need, counting "
       "the instructions already between; unneeded ones removed",
       [] { return std::make_unique<NopShrinkPass>(); }},
      {"redundancy-elim",
       "satisfied waits, duplicate moves (EXEC save/restore pairs among "
       "them) and dead register writes deleted",
       [] { return std::make_unique<RedundancyElimPass>(); }},
      {"test-drop-waitcnt",
       "test-only, deliberately wrong: deletes the first s_waitcnt a later "
       "instruction needs",
       [] { return std::make_unique<TestDropWaitcntPass>(); },
       /*TestOnly=*/true},
      {"test-swap-dependent",
       "test-only, deliberately wrong: swaps the first two adjacent ALU "
       "instructions where the second reads what the first writes",
       [] { return std::make_unique<TestSwapDependentPass>(); },
       /*TestOnly=*/true},
      {"pack-f32",
       "pairs of independent f32 fma/mul/add merged into v_pk_*_f32 "
       "(gfx90a+), results renamed into an aligned pair where needed",
       [] { return std::make_unique<PackF32Pass>(); }},
      {"mem-widen",
       "global dword loads/stores at consecutive offsets from one base into "
       "dwordx2/x3/x4, ds_read/write_b32 pairs into read2/write2; later "
       "waits re-counted",
       [] { return std::make_unique<MemWidenPass>(); }},
      {"fold-address-step",
       "a 64-bit VGPR pointer stepped by a constant several times in a "
       "block: each step but the last folded into the offsets of the global "
       "loads and stores between",
       [] { return std::make_unique<FoldAddressStepPass>(); }},
      {"scalarize",
       "wave-uniform VALU integer/bit ops onto the SALU and v_mov_b32 of "
       "SGPRs/constants into their readers",
       [] { return std::make_unique<ScalarizePass>(); }},
      {"block-layout",
       "fall-through straightening (a block laid out after its only "
       "predecessor, the s_branch removed) and branches to the next block "
       "removed",
       [] { return std::make_unique<BlockLayoutPass>(); }},
      {"setprio",
       "s_setprio 1 ... s_setprio 0 around the memory issue of innermost "
       "loops with many MFMAs",
       [] { return std::make_unique<SetPrioPass>(); }, false,
       {{"min-mfma", "fewest MFMAs in an innermost loop", 1, 16}}},
      {"loop-unroll",
       "counted single-block loops unrolled (factor 4): a scalar "
       "down-counter's by peeling the trip count's low bits; a stepped "
       "induction compared with a bound's under a guard (a block of copies "
       "while the bound proves them, the original loop for the rest), "
       "each copy's loads issued before the first wait; the copies' VGPR "
       "temporaries renamed into free VGPRs",
       [] { return std::make_unique<LoopUnrollPass>(); }, false,
       {{"factor", "copies of the body per iteration (2, 4 or 8)", 2, 8},
        {"max-body", "most instructions in a body it copies", 16, 128},
        {"occupancy-drop", "waves per SIMD the copies' registers may cost "
                           "(0: none; down to one wave)",
         0, 7}}},
      {"exec-loop-flatten",
       "exec-masked loops whose body is an if over lane-masked work made "
       "one block (the skip branch removed, the latch rotated to the end) "
       "so that exec-loop-pipeline can take them",
       [] { return std::make_unique<ExecLoopFlattenPass>(); }},
      {"exec-if-flatten",
       "an if over lane-masked work (s_and_saveexec, skip branch, masked "
       "body, exec restore) made one block with what precedes and follows "
       "it",
       [] { return std::make_unique<ExecIfFlattenPass>(); }},
      {"hoist-guarded-load",
       "a guarded load region moved above the wait for an earlier load in "
       "its block (that load's value renamed), so both are in flight",
       [] { return std::make_unique<HoistGuardedLoadPass>(); }},
      {"exec-loop-pipeline",
       "single-block exec-masked loops unrolled into four copies (two "
       "when registers are short), every later iteration's loads issued "
       "before the first one's wait (each copy under its own EXEC)",
       [] { return std::make_unique<ExecLoopPipelinePass>(); }, false,
       {{"depth", "iterations in flight per loop trip", 2, 8},
        {"max-body", "most instructions in a body it copies", 16, 128},
        {"occupancy-drop", "waves per SIMD a loop that cannot be renamed "
                           "otherwise may cost (1: never below 4; 2-7: "
                           "down to one wave)",
         0, 7}}},
      {"apply-edits",
       "the edit script of --edits=FILE (docs/edit-script.md): anchored "
       "replace/insert/delete/move/set-waitcnt/set-nop/rename/pass edits, "
       "each checked against the kernel before it is applied",
       [] { return std::make_unique<ApplyEditsPass>(); }},
      {"regalloc-compact",
       "a kernel's VGPRs, AGPRs and SGPRs renumbered by aligned quads to "
       "close holes, and its declared counts (granules, ACCUM_OFFSET, "
       "metadata) lowered to what the code uses",
       [] { return std::make_unique<RegallocCompactPass>(); }},
      {"schedule-window",
       "list scheduling within each block (memory issue hoisted, MFMA "
       "interleaved; waits renumbered, wait states inserted), kept only "
       "when the static one-wave cost is lower",
       [] { return std::make_unique<ScheduleWindowPass>(); }, false,
       {{"size", "most instructions scheduled together", 4, 160},
        {"order", "ready-list priority: 0 earliest issue, then height; 1 "
                  "height, then earliest issue; 2 memory first, then 0; 3 "
                  "source order among equal issue times",
         0, 3},
        {"jitter", "seed of a random tie-break among equal priorities (0: "
                   "none)",
         0, 1 << 30}}},
  };
  return Passes;
}

bool asmevo::passKeepsAddresses(StringRef Name) {
  // Same-size rewrites (waits, s_nops put back at their size) and moves
  // within a block; the rest add, remove or resize instructions. Two
  // test-only passes, never in a -O pipeline, are here so that the tests
  // can show the checks on patch-only functions: insert-nops always moves
  // code (the patcher refuses it), test-drop-waitcnt breaks a wait (the
  // static checks refuse it).
  return is_contained({"relax-waitcnt", "nop-shrink", "sink-waitcnt",
                       "schedule-window", "insert-nops", "test-drop-waitcnt"},
                      Name);
}

const PassEntry *asmevo::findPass(StringRef Name) {
  for (const PassEntry &P : registeredPasses())
    if (P.Name == Name)
      return &P;
  return nullptr;
}

const std::vector<PassParamInfo> &asmevo::commonPassParams() {
  static const std::vector<PassParamInfo> Common = {
      {"keep", "percent of the pass's rewrites made (which ones: pick)", 1,
       100},
      {"pick", "seed choosing the rewrites keep makes", 0, 1 << 30}};
  return Common;
}

const PassParamInfo *asmevo::findPassParam(const PassEntry &Entry,
                                           StringRef Key) {
  for (const PassParamInfo &I : Entry.Params)
    if (I.Name == Key)
      return &I;
  for (const PassParamInfo &I : commonPassParams())
    if (I.Name == Key)
      return &I;
  return nullptr;
}

bool asmevo::Pass::sampled() {
  int64_t Keep = param("keep", 100);
  if (Keep >= 100)
    return true;
  uint64_t Key[2] = {static_cast<uint64_t>(param("pick", 0)), Sampled++};
  uint64_t H = xxh3_64bits(ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(Key), sizeof(Key)));
  return static_cast<int64_t>(H % 100) < Keep;
}

std::string PassSpec::str() const {
  if (Params.empty())
    return Name;
  std::string S = Name + "<";
  ListSeparator LS(";");
  for (const auto &[K, V] : Params)
    S += (Twine(LS) + K + "=" + Twine(V)).str();
  return S + ">";
}

Expected<PassSpec> asmevo::parsePassSpec(StringRef Text) {
  Text = Text.trim();
  PassSpec S;
  StringRef Name = Text, Rest;
  if (size_t Open = Text.find('<'); Open != StringRef::npos) {
    if (!Text.ends_with(">"))
      return createStringError("pass '" + Text + "': parameters end with '>'");
    Name = Text.take_front(Open).trim();
    Rest = Text.slice(Open + 1, Text.size() - 1);
  }
  const PassEntry *E = findPass(Name);
  if (!E) {
    std::string Known;
    for (const PassEntry &P : registeredPasses())
      Known += " " + P.Name;
    return createStringError("unknown pass '" + Name +
                             "'; registered passes:" + Known);
  }
  S.Name = Name.str();
  SmallVector<StringRef, 4> Parts;
  Rest.split(Parts, ';', -1, false);
  for (StringRef Part : Parts) {
    auto [K, V] = Part.split('=');
    K = K.trim();
    V = V.trim();
    const PassParamInfo *I = findPassParam(*E, K);
    if (!I)
      return createStringError("pass '" + Name + "' has no parameter '" + K +
                               "'");
    int64_t N;
    if (V.getAsInteger(10, N) || N < I->Min || N > I->Max)
      return createStringError(
          formatv("pass '{0}': parameter '{1}' must be an integer from {2} "
                  "to {3}, not '{4}'",
                  Name, K, I->Min, I->Max, V)
              .str());
    if (!S.Params.emplace(K.str(), N).second)
      return createStringError("pass '" + Name + "': parameter '" + K +
                               "' given twice");
  }
  return S;
}

/// (opcode, operands) of each instruction of \p MF, as a sorted list: the
/// multiset PassStat compares.
static std::vector<unsigned> instructionPrints(const MachineFunction &MF) {
  std::vector<unsigned> H;
  for (const MachineBasicBlock &MBB : MF)
    for (const MachineInstr &MI : MBB)
      if (!MI.isMetaInstruction())
        H.push_back(MachineInstrExpressionTrait::getHashValue(&MI));
  llvm::sort(H);
  return H;
}

static void countChanges(const std::vector<unsigned> &Before,
                         const std::vector<unsigned> &After, PassStat &S) {
  std::vector<unsigned> Common;
  std::set_intersection(Before.begin(), Before.end(), After.begin(),
                        After.end(), std::back_inserter(Common));
  uint64_t Removed = Before.size() - Common.size();
  uint64_t Added = After.size() - Common.size();
  uint64_t Rewritten = std::min(Removed, Added);
  S.Rewritten += Rewritten;
  S.Removed += Removed - Rewritten;
  S.Added += Added - Rewritten;
}

Error asmevo::runPipeline(LiftedModule &LM, StringRef Pipeline,
                          const PipelineOptions &Opts) {
  auto Names = expandPipeline(Pipeline);
  if (!Names)
    return Names.takeError();
  std::vector<std::unique_ptr<Pass>> Passes;
  for (const std::string &N : *Names) {
    auto Spec = parsePassSpec(N);
    if (!Spec)
      return Spec.takeError();
    Passes.push_back(findPass(Spec->Name)->Create());
    Passes.back()->setParams(std::move(Spec->Params));
    auto F = Opts.Filters.find(Passes.back()->name().str());
    if (F != Opts.Filters.end())
      Passes.back()->setRewriteFilter(F->second);
  }
  // Passes edit only functions the MachineVerifier accepts (and, with
  // Opts.PatchOnly, those it rejected that can still take byte patches).
  {
    PhaseScope Phase("finalize");
    LM.finalize();
  }
  std::unique_ptr<ISAFacts> Facts;
  if (Opts.VerifyEach)
    Facts = std::make_unique<ISAFacts>(LM.target());
  // What is known of each function as it stands: its content (FunctionKey.h),
  // its instruction prints (for PassStat) and its violation sites. A pass
  // that leaves a function's content as it was leaves them valid; any
  // change, whatever the pass reports, drops them.
  struct Known {
    std::optional<std::vector<uint64_t>> Key;
    std::optional<std::vector<unsigned>> Prints;
    std::optional<SiteSet> Sites;
  };
  std::vector<Known> State(LM.functions().size());
  // The functions this run may edit: outside the filter nothing is run,
  // fingerprinted or checked (their content is what it was).
  std::vector<bool> InScope(LM.functions().size(), true);
  if (Opts.OnlyFunctions)
    for (size_t I = 0; I < InScope.size(); ++I)
      InScope[I] = Opts.OnlyFunctions->count(LM.functions()[I].Range.Name);
  // Patch-only functions (LiftedFunction::PatchMF) are run and checked
  // when the caller asked for them; their MIR is lent as MF meanwhile.
  auto PatchOnly = [&](size_t I) {
    const LiftedFunction &LF = LM.functions()[I];
    return Opts.PatchOnly && LF.PatchMF && InScope[I];
  };
  auto Refresh = [&](size_t I) {
    LiftedFunction &LF = LM.functions()[I];
    std::optional<std::vector<uint64_t>> K;
    if (MachineFunction *MF = PatchOnly(I) ? LF.PatchMF : LF.MF) {
      PhaseScope Phase("function keys");
      K = functionKey(*MF);
    }
    if (!K || !State[I].Key || *K != *State[I].Key) {
      State[I].Prints.reset();
      State[I].Sites.reset();
    }
    State[I].Key = std::move(K);
  };
  auto ModuleSites = [&] {
    std::map<std::string, SiteSet> Out;
    for (size_t I = 0; I < State.size(); ++I) {
      LiftedFunction &LF = LM.functions()[I];
      bool Lend = PatchOnly(I);
      if (!Lend && (!LF.Simple || !LF.MF || !InScope[I]))
        continue;
      PatchOnlyLoan Loan(LF, Lend);
      if (!State[I].Sites)
        State[I].Sites = SiteSet::of(LM, LF, *Facts);
      Out[LF.Range.Name] = *State[I].Sites;
    }
    return Out;
  };
  bool Track = Opts.VerifyEach || Opts.Stats;
  // The key of every function in scope (the MachineVerifier memo looks
  // functions up by it); the others are neither edited nor checked, and a
  // run over one kernel of many should not cost a key of each.
  if (Track)
    for (size_t I = 0; I < State.size(); ++I)
      if (InScope[I])
        Refresh(I);
  std::map<std::string, SiteSet> InputSites;
  if (Opts.VerifyEach) {
    PhaseScope Phase("verify-each: sites");
    InputSites = ModuleSites();
  }
  for (auto &P : Passes) {
    PassStat Stat;
    Stat.Pass = P->name().str();
    std::string PhaseName = "pass: " + Stat.Pass;
    std::optional<PhaseScope> PassPhase(std::in_place, PhaseName);
    for (size_t I = 0; I < State.size(); ++I) {
      LiftedFunction &LF = LM.functions()[I];
      bool Lend = PatchOnly(I) && passKeepsAddresses(Stat.Pass);
      if (!Lend && (!LF.Simple || !LF.MF || !InScope[I]))
        continue;
      PatchOnlyLoan Loan(LF, Lend);
      std::vector<unsigned> Before;
      if (Opts.Stats) {
        if (!State[I].Prints)
          State[I].Prints = instructionPrints(*LF.MF);
        Before = *State[I].Prints;
      }
      const RewriteFilter *Filter = nullptr;
      if (auto F = Opts.Filters.find(Stat.Pass); F != Opts.Filters.end())
        Filter = F->second;
      // An edit script cannot name a function that is not simple
      // (docs/edit-script.md): a patch-only function's edits go unrecorded.
      EditRecorder *Record = Lend ? nullptr : Opts.Record;
      if (Record)
        if (Error E = Record->beforePass(LM, LF, Filter))
          return E;
      P->beginFunction();
      auto Changed = P->run(LM, LF);
      for (std::string &N : P->takeNotes())
        if (Opts.Stats)
          Stat.Notes.push_back(LF.Range.Name + ": " + N);
      if (Changed && Record)
        Record->afterPass(LM, LF, Stat.Pass, P->params(), *Changed, Filter);
      if (!Changed)
        return createStringError(LM.original().name() + ": pass '" +
                                 P->name() + "' on '" + LF.Range.Name +
                                 "': " + toString(Changed.takeError()));
      if (*Changed && Opts.ChangedFunctions)
        (*Opts.ChangedFunctions)[Stat.Pass].insert(LF.Range.Name);
      if (*Changed && Opts.Stats) {
        PassStat FS;
        FS.Pass = Stat.Pass;
        FS.FunctionsChanged = 1;
        countChanges(Before, instructionPrints(*LF.MF), FS);
        ++Stat.FunctionsChanged;
        Stat.Added += FS.Added;
        Stat.Removed += FS.Removed;
        Stat.Rewritten += FS.Rewritten;
        if (Opts.FunctionStats)
          (*Opts.FunctionStats)[Stat.Pass][LF.Range.Name] = FS;
      }
    }
    // After the whole pass, in case one function's run touched another.
    if (Track)
      for (size_t I = 0; I < State.size(); ++I)
        if (InScope[I])
          Refresh(I);
    PassPhase.reset();
    if (Opts.VerifyEach) {
      {
        PhaseScope Phase("verify-each: machine verifier");
        std::vector<const std::vector<uint64_t> *> Keys;
        for (const Known &K : State)
          Keys.push_back(K.Key ? &*K.Key : nullptr);
        if (Error E = LM.verify(("After " + P->name()).str(), Keys,
                                &InScope))
          return E;
      }
      PhaseScope Phase("verify-each: sites");
      auto New = introducedViolations(InputSites, ModuleSites());
      Stat.IntroducedViolations = New.size();
      if (!New.empty()) {
        std::string Msg = LM.original().name().str() + ": pass '" +
                          P->name().str() + "' introduced " +
                          std::to_string(New.size()) +
                          " hazard/waitcnt violation(s), a bug in the pass: ";
        for (size_t I = 0; I < New.size() && I < 3; ++I)
          Msg += (I ? "; " : "") + New[I].first + ": " +
                 New[I].second.describe();
        return createStringError(Msg);
      }
    }
    if (Opts.Stats)
      Opts.Stats->push_back(Stat);
    bool Print = Opts.PrintAfterAll || is_contained(Opts.PrintAfter, P->name()) ||
                 shouldPrintAfterPass(P->name());
    if (Print && Opts.PrintStream) {
      *Opts.PrintStream << "# *** IR Dump After " << P->name() << " ***\n";
      for (LiftedFunction &LF : LM.functions())
        if (LF.MF)
          LF.MF->print(*Opts.PrintStream);
    }
  }
  return Error::success();
}
