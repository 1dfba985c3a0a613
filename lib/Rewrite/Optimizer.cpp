//===- Optimizer.cpp - The -O job on one code object ----------------------===//
#include "OptimizerSearch.h"

using namespace llvm;

namespace asmevo {

uint64_t countInstructions(LiftedModule &LM) {
  uint64_t N = 0;
  for (LiftedFunction &LF : LM.functions()) {
    if (!LF.Simple || !LF.MF) {
      N += LF.NumInstrs;
      continue;
    }
    for (MachineBasicBlock &MBB : *LF.MF)
      for (MachineInstr &MI : MBB)
        N += !MI.isMetaInstruction();
  }
  return N;
}

std::set<std::string> Candidate::changedFunctions() const {
  std::set<std::string> Out;
  for (const auto &[Pass, Fns] : ChangedBy)
    Out.insert(Fns.begin(), Fns.end());
  return Out;
}

std::string UnitOutcome::name() const {
  return join(Kernels.empty() ? Functions : Kernels, ", ");
}

/// \p Step's stats added to \p Into, pass by pass (a pass of several
/// steps is one entry, at its first place).
static void mergeStats(std::vector<PassStat> &Into,
                       const std::vector<PassStat> &Step) {
  for (const PassStat &S : Step) {
    auto It = llvm::find_if(Into, [&](const PassStat &P) {
      return P.Pass == S.Pass;
    });
    if (It == Into.end()) {
      Into.push_back(S);
      continue;
    }
    It->FunctionsChanged += S.FunctionsChanged;
    It->Added += S.Added;
    It->Removed += S.Removed;
    It->Rewritten += S.Rewritten;
    It->IntroducedViolations += S.IntroducedViolations;
  }
}

Expected<Candidate> buildCandidate(const CodeObject &K0,
                                   ArrayRef<std::string> Passes,
                                   const LiftOptions &LO,
                                   const CandidateOptions &Opts) {
  PlanStep Step;
  Step.Passes.assign(Passes.begin(), Passes.end());
  return buildCandidate(K0, ArrayRef<PlanStep>(Step), LO, Opts);
}

Expected<Candidate> buildCandidate(const CodeObject &K0,
                                   ArrayRef<PlanStep> Plan,
                                   const LiftOptions &LO,
                                   const CandidateOptions &Opts) {
  PhaseScope Phase("candidate");
  Candidate C;
  bool AnyPass = false;
  for (const PlanStep &S : Plan) {
    AnyPass |= !S.Passes.empty();
    for (const std::string &P : S.Passes)
      if (!is_contained(C.Passes, P))
        C.Passes.push_back(P);
  }
  auto CO = CodeObject::create(K0.image(), K0.name());
  if (!CO)
    return CO.takeError();
  LiftOptions L = LO;
  L.Finalize = true;
  Expected<std::unique_ptr<LiftedModule>> LM = nullptr;
  {
    PhaseScope P("candidate: lift");
    LM = LiftedModule::lift(std::move(*CO), L);
  }
  if (!LM)
    return LM.takeError();
  if (Opts.Units)
    C.Units = kernelUnits(**LM);
  EditRecorder Recorder;
  // The functions the plan may change: only their cost can differ from
  // K0's, so only theirs is computed (unset: every function's).
  std::optional<std::set<std::string>> Scope;
  if (llvm::all_of(Plan, [](const PlanStep &S) {
        return S.Passes.empty() || S.Functions;
      })) {
    Scope.emplace();
    for (const PlanStep &S : Plan)
      if (!S.Passes.empty())
        Scope->insert(S.Functions->begin(), S.Functions->end());
  }
  for (const PlanStep &S : Plan) {
    if (S.Passes.empty())
      continue;
    PipelineOptions PO = Opts.Print;
    PO.VerifyEach = true;
    // This candidate is written back below: patch-only functions' edits
    // as byte patches.
    PO.PatchOnly = true;
    std::vector<PassStat> Stats;
    PO.Stats = &Stats;
    PO.ChangedFunctions = &C.ChangedBy;
    if (S.Functions)
      PO.OnlyFunctions = &*S.Functions;
    if (Opts.RecordEdits)
      PO.Record = &Recorder;
    if (Error E = runPipeline(**LM, join(S.Passes, ","), PO))
      return std::move(E);
    mergeStats(C.Stats, Stats);
  }
  C.Edits = std::move(Recorder.script());
  for (const PassStat &S : C.Stats)
    C.Changed |= S.FunctionsChanged > 0;
  // A patch keeps every address: removed s_nops come back as s_nop 0
  // (before the count and the static cost, which should see them).
  if (Opts.PatchInPlace && C.Changed)
    padRemovedNops(**LM);
  // Patch-only functions some pass changed: they can only be patched.
  std::set<std::string> PatchOnlyChanged;
  bool OthersChanged = false;
  for (const std::string &Fn : C.changedFunctions()) {
    LiftedFunction *LF = (*LM)->findFunction(Fn);
    if (LF && LF->PatchMF) {
      PatchOnlyChanged.insert(Fn);
      padRemovedNops(**LM, *LF, *LF->PatchMF);
    } else {
      OthersChanged = true;
    }
  }
  C.Instructions = countInstructions(**LM);
  if (Opts.StaticCost) {
    PhaseScope P("candidate: static cost");
    C.Cost = staticCost(**LM, timing::TimingConfig::mi300x(),
                        AnyPass && Scope ? &*Scope : nullptr);
  }
  if (!AnyPass) {
    if (Opts.KeepModule)
      C.Module = std::move(*LM);
    return std::move(C);
  }
  Expected<RebuildResult> R = RebuildResult();
  {
    PhaseScope P("candidate: rebuild");
    R = rebuild(**LM);
  }
  if (!R)
    return R.takeError();
  C.Rebuilt = std::move(*R);
  // The verifier pairs instructions by this map; patching a patch-only
  // function replaces its entries, so it is read again after that.
  auto mapFromRebuild = [&] {
    C.Map.NewToOld.clear();
    for (const AddressMapEntry &E : C.Rebuilt.AddressMap)
      C.Map.NewToOld[E.NewAddr] = E.OrigAddr;
  };
  // The candidate is whatever bytes C.Rebuilt.Linked holds now.
  auto reopen = [&](StringRef What) -> Error {
    auto CO = CodeObject::create(ArrayRef<uint8_t>(C.Rebuilt.Linked),
                                 (K0.name() + " (" + What + ")").str());
    if (!CO)
      return CO.takeError();
    C.CO = std::move(*CO);
    return Error::success();
  };
  mapFromRebuild();
  C.Map.Path = (K0.name() + " (candidate)").str();
  if (Error E = reopen("candidate"))
    return std::move(E);
  if (Opts.PatchInPlace && C.Changed) {
    auto P = patchInPlace(K0, *C.CO, C.Rebuilt, &(*LM)->target());
    if (!P)
      return createStringError("not patchable in place: " +
                               toString(P.takeError()));
    C.Rebuilt.Linked = std::move(P->Bytes);
    C.Patched = true;
    C.PatchedInstructions = P->PatchedInstructions;
    if (Error E = reopen("patched"))
      return std::move(E);
  }
  if (!PatchOnlyChanged.empty()) {
    // Over K0's own bytes when nothing else changed (the rebuild only
    // gave the address map then, and it moved nothing: every function kept
    // its code), else over the candidate's, where a function that is not
    // simple keeps its bytes and address.
    const CodeObject &Base = OthersChanged || C.Patched ? *C.CO : K0;
    if (&Base == &K0)
      for (const AddressMapEntry &E : C.Rebuilt.AddressMap)
        if (E.OrigAddr != E.NewAddr)
          return createStringError(
              "not patchable in place: the rebuild moved 0x%llx although "
              "only functions that are not simple changed",
              (unsigned long long)E.NewAddr);
    auto P = patchOnlyFunctions(**LM, PatchOnlyChanged, Base, C.Rebuilt);
    if (!P)
      return createStringError("not patchable in place: " +
                               toString(P.takeError()));
    C.Rebuilt.Linked = std::move(P->Bytes);
    if (&Base == &K0 || C.Patched) {
      C.Patched = true;
      C.PatchedInstructions += P->PatchedInstructions;
    }
    C.PatchOnly = std::move(P->Functions);
    mapFromRebuild();
    if (Error E = reopen("patched"))
      return std::move(E);
  }
  return std::move(C);
}

using namespace optimize;

char optimize::InPlaceUnbuildable::ID;

Expected<ModuleOutcome> optimizeCodeObject(const CodeObject &K0,
                                           const OptimizeOptions &O) {
  ModuleOutcome Out;
  Out.Name = K0.name().str();
  OptimizeOptions Opts = O;
  // Only the kernels the spec launches can be judged by running them; an
  // edit elsewhere would never execute and the verifier would say unknown.
  if (O.Gate.Spec) {
    for (const emu::SpecLaunch &L : O.Gate.Spec->Launches)
      if (const KernelInfo *K = verify::resolveLaunchedKernel(K0, L.Kernel))
        if (!is_contained(Out.Kernels, K->Name))
          Out.Kernels.push_back(K->Name);
    if (Out.Kernels.empty()) {
      Out.Why = "the launch spec runs no kernel of this code object; left "
                "unchanged";
      Out.K0Instructions = Out.K1Instructions = 0;
      return std::move(Out);
    }
    if (Opts.Lift.Kernels.empty())
      Opts.Lift.Kernels = Out.Kernels;
  } else {
    for (const KernelInfo &K : K0.kernels())
      if (Opts.Lift.Kernels.empty() || is_contained(Opts.Lift.Kernels, K.Name))
        Out.Kernels.push_back(K.Name);
  }
  if (!Out.Kernels.empty())
    if (const KernelInfo *K = K0.findKernel(Out.Kernels.front()))
      Out.K0VGPRs = Out.K1VGPRs = K->KD.allocatedVGPRs();
  // Whatever --jobs says: forked workers building a candidate each were
  // 0.55x the speed of the one shared module on hipBLASLt's 154 kernels
  // (docs/optimize-report.md), and the output is the same. --jobs shares
  // the units of the shared module out instead (Search::searchClaimed).
  bool InPlace = !O.Gate.Spec && !O.PatchInPlace && !O.RecordEdits &&
                 !getenv("ASMEVO_NO_SHARED_MODULE");
  // -print-after= and the reduction's filters speak of one process's
  // passes: they keep to one.
  bool Printing = O.Print.PrintAfterAll || !O.Print.PrintAfter.empty() ||
                  !O.Print.Filters.empty();
  unsigned Processes = InPlace && !Printing
                           ? std::min<size_t>(O.Jobs, Out.Kernels.size())
                           : 1;
  std::optional<Candidate> Base;
  std::vector<UnitState> Units, Fresh;
  ModuleOutcome Start;
  // K0's own figures, and its time, for the report (and for kernels that
  // stay unchanged). With several processes each makes its own (forked
  // before it: the lift is a tenth of the work), the same in all.
  auto Prepare = [&]() -> Error {
    CandidateOptions BaseOpts;
    BaseOpts.StaticCost = !O.Gate.Spec;
    BaseOpts.Units = true;
    BaseOpts.KeepModule = InPlace;
    auto B = buildCandidate(K0, ArrayRef<std::string>(), Opts.Lift, BaseOpts);
    if (!B)
      return B.takeError();
    Base = std::move(*B);
    Out.K0Instructions = Out.K1Instructions = Base->Instructions;
    // Every candidate is gated against this K0: its trace is taken once.
    Opts.Gate.Memo = makeGateMemo();
    if (O.Gate.Spec) {
      auto T = timeOnly(K0, Opts.Gate);
      if (!T)
        return T.takeError();
      Out.Final = std::move(*T);
    }
    for (KernelUnit &U : Base->Units) {
      // A device function no lifted kernel reaches stays as it is: with a
      // spec nothing launched would run an edit of it, and its callers kept
      // as bytes (non-simple kernels) expect of it what no pass can see
      // (the loads in flight across the call and its return).
      if (U.Kernels.empty())
        continue;
      UnitState S;
      S.Functions.insert(U.Functions.begin(), U.Functions.end());
      S.U = std::move(U);
      S.Gate = Opts.Gate;
      Units.push_back(std::move(S));
    }
    if (O.Gate.Spec && Units.size() > 1)
      for (UnitState &S : Units) {
        // Each unit is judged on its own launches, with a trace of its own.
        emu::LaunchSpec Own = *O.Gate.Spec;
        Own.Launches.clear();
        for (const emu::SpecLaunch &L : O.Gate.Spec->Launches)
          if (const KernelInfo *K = verify::resolveLaunchedKernel(K0, L.Kernel))
            if (is_contained(S.U.Kernels, K->Name))
              Own.Launches.push_back(L);
        if (Own.Launches.size() == O.Gate.Spec->Launches.size())
          continue;
        S.OwnSpec = std::move(Own);
        S.Gate.Spec = &*S.OwnSpec;
        S.Gate.Memo = makeGateMemo();
      }
    if (InPlace)
      Fresh = Units;
    Start.Name = Out.Name;
    Start.Kernels = Out.Kernels;
    Start.K0Instructions = Out.K0Instructions;
    Start.K1Instructions = Out.K1Instructions;
    Start.K0VGPRs = Out.K0VGPRs;
    Start.K1VGPRs = Out.K1VGPRs;
    Start.Final = Out.Final;
    return Error::success();
  };
  {
    std::optional<Search> S;
    Error E = Error::success();
    if (Processes > 1) {
      // Named so that a run shows it took this path, whichever process
      // happened to claim the chunks.
      PhaseScope P("search: shared out over processes");
      SharedCounter Counter;
      if (!Counter.valid())
        return createStringError("--jobs: cannot map memory to share with worker "
                                 "processes (--jobs 1 needs none)");
      auto Workers = ForkedWorkers::start(
          Processes, [&](unsigned, ForkedWorkers::SendFn Send) {
            if (Error E = Prepare())
              return Send(fatalAnswer(std::move(E)));
            Search W(K0, Opts, Out, Base->Cost, Units);
            W.Work = std::move(Base->Module);
            if (Error E = W.searchClaimed(Counter, Processes, Send, nullptr))
              Send(fatalAnswer(std::move(E)));
          });
      if (!Workers)
        return Workers.takeError();
      auto Import = [&](unsigned, StringRef Msg) { return S->importChunk(Msg); };
      E = Prepare();
      if (!E) {
        S.emplace(K0, Opts, Out, Base->Cost, Units);
        S->Work = std::move(Base->Module);
        E = S->searchClaimed(Counter, Processes, nullptr,
                             [&] { return (*Workers)->poll(Import); });
      }
      if (!E)
        E = (*Workers)->finish(Import);
      if (!E)
        E = S->finish();
    } else {
      if (Error E = Prepare())
        return std::move(E);
      S.emplace(K0, Opts, Out, Base->Cost, Units);
      S->Work = std::move(Base->Module);
      E = S->run();
    }
    if (!E)
      return std::move(Out);
    if (!InPlace || !E.isA<InPlaceUnbuildable>())
      return std::move(E);
    consumeError(std::move(E));
  }
  // Some candidate judged in the shared module cannot be rebuilt: search
  // again with a lift and a rebuild per candidate, which rejects those.
  Out = std::move(Start);
  Search S(K0, Opts, Out, Base->Cost, Fresh);
  if (Error E = S.run())
    return std::move(E);
  return std::move(Out);
}

} // namespace asmevo
