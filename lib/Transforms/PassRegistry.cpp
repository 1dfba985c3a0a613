//===- PassRegistry.cpp - Passes by name, the pipeline runner -------------===//
#include "asmevo/Transforms/Pass.h"
#include "BlockLayout.h"
#include "InsertNops.h"
#include "RelaxWaitcnt.h"
#include "ScheduleWindow.h"
#include "SetPrio.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/IR/PrintPasses.h"
#include "llvm/Support/raw_ostream.h"

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
      {"block-layout",
       "fall-through straightening (a block laid out after its only "
       "predecessor, the s_branch removed) and branches to the next block "
       "removed",
       [] { return std::make_unique<BlockLayoutPass>(); }},
      {"setprio",
       "s_setprio 1 ... s_setprio 0 around the memory issue of innermost "
       "loops with many MFMAs",
       [] { return std::make_unique<SetPrioPass>(); }},
      {"schedule-window",
       "list scheduling within each block (memory issue hoisted, MFMA "
       "interleaved; waits renumbered, wait states inserted), kept only "
       "when the static one-wave cost is lower",
       [] { return std::make_unique<ScheduleWindowPass>(); }},
  };
  return Passes;
}

const PassEntry *asmevo::findPass(StringRef Name) {
  for (const PassEntry &P : registeredPasses())
    if (P.Name == Name)
      return &P;
  return nullptr;
}

Error asmevo::runPipeline(LiftedModule &LM, StringRef Pipeline,
                          const PipelineOptions &Opts) {
  SmallVector<StringRef, 4> Names;
  Pipeline.split(Names, ',', -1, false);
  std::vector<std::unique_ptr<Pass>> Passes;
  for (StringRef N : Names) {
    const PassEntry *PI = findPass(N.trim());
    if (!PI) {
      std::string Known;
      for (const PassEntry &P : registeredPasses())
        Known += " " + P.Name;
      return createStringError("unknown pass '" + N.trim() +
                               "'; registered passes:" + Known);
    }
    Passes.push_back(PI->Create());
  }
  // Passes edit only functions the MachineVerifier accepts.
  LM.finalize();
  for (auto &P : Passes) {
    for (LiftedFunction &LF : LM.functions()) {
      if (!LF.Simple || !LF.MF)
        continue;
      auto Changed = P->run(LM, LF);
      if (!Changed)
        return createStringError(LM.original().name() + ": pass '" +
                                 P->name() + "' on '" + LF.Range.Name +
                                 "': " + toString(Changed.takeError()));
    }
    if (Opts.VerifyEach)
      if (Error E = LM.verify(("After " + P->name()).str()))
        return E;
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
