//===- asmevo-opt.cpp - The AsmEvo driver ---------------------------------===//
//
// asmevo-opt IN -o OUT        rebuild (with passes) a code object
// asmevo-opt IN --emit=mir    print the lifted MachineIR
// asmevo-opt IN --info        what was recovered, as YAML
// asmevo-opt IN --roundtrip-check
//
//===----------------------------------------------------------------------===//
#include "EditsDriver.h"
#include "EvolveDriver.h"
#include "MCP.h"
#include "SearchDriver.h"
#include "asmevo/Rewrite/Analyze.h"
#include "asmevo/Rewrite/BlockThroughput.h"
#include "asmevo/Rewrite/Info.h"
#include "asmevo/Analysis/AnalysisCache.h"
#include "asmevo/CodeObject/BundleWriter.h"
#include "asmevo/CodeObject/HostBinary.h"
#include "asmevo/CodeObject/InputFile.h"
#include "asmevo/CodeObject/OffloadBundle.h"
#include "asmevo/Emit/AsmText.h"
#include "asmevo/Emit/Rebuild.h"
#include "asmevo/Emit/RoundTrip.h"
#include "asmevo/Lift/LiftedModule.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Rewrite/Input.h"
#include "asmevo/Rewrite/Optimizer.h"
#include "asmevo/Rewrite/Reduce.h"
#include "asmevo/Rewrite/Report.h"
#include "asmevo/Support/PhaseTimer.h"
#include "asmevo/Transforms/Pass.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

// Not static: the option files beside this one (EditsDriver.cpp) add to it.
cl::OptionCategory Cat("asmevo-opt options");
static cl::opt<std::string> InputPath(cl::Positional, cl::desc("<input>"),
                                      cl::cat(Cat));
static cl::opt<std::string> OutputPath("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::cat(Cat));
enum class EmitKind { Obj, Reloc, MIR, Asm };
static cl::opt<EmitKind> Emit(
    "emit", cl::desc("What to write"), cl::init(EmitKind::Obj),
    cl::values(clEnumValN(EmitKind::Obj, "obj", "a linked code object"),
               clEnumValN(EmitKind::Reloc, "reloc",
                          "the relocatable object handed to lld"),
               clEnumValN(EmitKind::MIR, "mir", "MachineIR text"),
               clEnumValN(EmitKind::Asm, "asm", "assembler text")),
    cl::cat(Cat));
static cl::opt<bool> Info("info", cl::desc("Print what was recovered (YAML)"),
                          cl::cat(Cat));
enum class AnalyzeKind { None, Text, JSON };
static cl::opt<AnalyzeKind> Analyze(
    "analyze", cl::desc("Print loops, registers, occupancy, waitcnt state "
                        "and hazards per function"),
    cl::ValueOptional, cl::init(AnalyzeKind::None),
    cl::values(clEnumValN(AnalyzeKind::Text, "", "YAML-style text"),
               clEnumValN(AnalyzeKind::JSON, "json",
                          "JSON (docs/analysis-json.md)")),
    cl::cat(Cat));
static cl::opt<AnalyzeKind> BlockThroughputOpt(
    "block-throughput",
    cl::desc("Print each block's static cycles per iteration from the "
             "cycle model (a model; compared with llvm-mca by "
             "test/Timing/llvm-mca.test)"),
    cl::ValueOptional, cl::init(AnalyzeKind::None),
    cl::values(clEnumValN(AnalyzeKind::Text, "", "one line per block"),
               clEnumValN(AnalyzeKind::JSON, "json",
                          "JSON (docs/timing-model.md)")),
    cl::cat(Cat));
static cl::opt<bool>
    RoundTripCheck("roundtrip-check",
                   cl::desc("Rebuild without passes and report per function "
                            "whether the result is identical"),
                   cl::cat(Cat));
static cl::list<std::string>
    RoundTripPaths("roundtrip-path", cl::CommaSeparated,
                   cl::desc("Paths for --roundtrip-check: mem,mir"),
                   cl::cat(Cat));
static cl::list<std::string> Kernels("kernels", cl::CommaSeparated,
                                     cl::desc("Only lift these kernels"),
                                     cl::cat(Cat));
static cl::opt<std::string> RunPass("run-pass", cl::desc("Run one pass"),
                                    cl::cat(Cat));
static cl::opt<std::string> Passes("passes",
                                   cl::desc("Comma-separated pass pipeline"),
                                   cl::cat(Cat));
static cl::opt<bool> VerifyEach("verify-each",
                                cl::desc("Run the MachineVerifier after "
                                         "lifting and after every pass"),
                                cl::cat(Cat));
static cl::opt<std::string>
    AddressMapPath("address-map",
                   cl::desc("Write new->original instruction addresses"),
                   cl::value_desc("file"), cl::cat(Cat));
static cl::opt<bool> ListPasses("list-passes",
                                cl::desc("List the registered passes"),
                                cl::cat(Cat));

static cl::opt<bool> O1("O1", cl::desc("Optimize: wait counts and s_nops "
                                       "only (behind the gate)"),
                        cl::cat(Cat));
static cl::opt<bool> O2("O2", cl::desc("Optimize: every rule-based pass "
                                       "(behind the gate)"),
                        cl::cat(Cat));
static cl::opt<std::string>
    SpecPath("spec",
             cl::desc("Launch spec: candidates are accepted only when "
                      "asmevo-verify finds them equivalent and the timing "
                      "robustly faster"),
             cl::value_desc("file"), cl::cat(Cat));
static cl::opt<bool> TrustStatic(
    "trust-static",
    cl::desc("Without a launch spec, accept candidates that pass the static "
             "checks (nothing is executed or timed: see README)"),
    cl::cat(Cat));
static cl::opt<std::string>
    ReportPath("report", cl::desc("Write the run's report as JSON "
                                  "(docs/optimize-report.md)"),
               cl::value_desc("file"), cl::cat(Cat));
static cl::opt<bool> PassStats("pass-stats",
                               cl::desc("Print what each pass changed"),
                               cl::cat(Cat));
static cl::opt<bool> NoSubsets(
    "no-subsets",
    cl::desc("When the whole pipeline is rejected, do not try subsets"),
    cl::cat(Cat));
static cl::opt<unsigned> Sensitivity(
    "sensitivity",
    cl::desc("Perturbed timing-parameter sets a candidate must be faster "
             "under"),
    cl::init(8), cl::cat(Cat));
static cl::opt<std::string>
    TimingConfig("timing-config",
                 cl::desc("Cycle-model parameters: mi300x or a YAML file"),
                 cl::init("mi300x"), cl::cat(Cat));
static cl::opt<bool> Reduce(
    "reduce",
    cl::desc("Diagnose a candidate the verifier rejects: reduce it to the "
             "fewest passes and rewrites that still fail (writes no output)"),
    cl::cat(Cat));
static cl::opt<bool> PatchInPlaceOpt(
    "patch-in-place",
    cl::desc("Write accepted edits as byte patches into the original object "
             "(only edits that move no instruction)"),
    cl::cat(Cat));
static cl::opt<bool> AllowCompress(
    "allow-compress",
    cl::desc("In a HIP host binary, write an uncompressed bundle that no "
             "longer fits its space compressed (CCOB version 3; needs a HIP "
             "runtime that reads it) instead of failing"),
    cl::cat(Cat));
static cl::opt<bool> Quiet("quiet", cl::desc("Do not print the report"),
                           cl::cat(Cat));
static cl::opt<bool> NoAnalysisCache(
    "no-analysis-cache",
    cl::desc("Compute every hazard, waitcnt and LDS analysis afresh instead "
             "of reusing the answer for an identical input (for comparing: "
             "the answers are the same)"),
    cl::Hidden, cl::cat(Cat));
static cl::opt<bool> TimePhases(
    "time-phases",
    cl::desc("Print the wall time of each phase (lift, each pass, the "
             "static checks, rebuild, gate) and the analysis cache's hits"),
    cl::cat(Cat));

static int fail(const Twine &Msg) {
  WithColor::error(errs(), "asmevo-opt") << Msg << "\n";
  return 1;
}

static void printReport(raw_ostream &OS, StringRef PathName,
                        const RoundTripReport &R) {
  OS << "  " << PathName << ":\n"
     << "    text: " << (R.TextIdentical ? "identical" : "different") << "\n"
     << "    descriptors: "
     << (R.DescriptorsIdentical ? "identical" : "different") << "\n"
     << "    metadata_note: " << (R.NoteIdentical ? "identical" : "different")
     << "\n"
     << "    section_addresses: "
     << (R.SectionAddressesIdentical ? "identical" : "different") << "\n"
     << "    symbol_values: "
     << (R.SymbolValuesIdentical ? "identical" : "different") << "\n"
     << "    file: " << (R.FileIdentical ? "identical" : "different") << "\n";
  OS << "    functions:\n";
  for (const FunctionDiff &F : R.Functions) {
    OS << "      - { name: '" << F.Name << "', instructions: "
       << F.Instructions
       << ", identical: " << (F.Identical ? "true" : "false");
    if (!F.Identical)
      OS << ", why: '" << F.Why << "'";
    OS << " }\n";
  }
  if (!R.Differences.empty()) {
    OS << "    differences:\n";
    for (const std::string &D : R.Differences)
      OS << "      - '" << D << "'\n";
  }
}

static Expected<bool> roundTrip(LiftedModule &LM, raw_ostream &OS,
                                std::vector<std::string> Paths) {
  std::vector<uint64_t> Counts;
  for (const CodeRange &CR : LM.original().codeRanges()) {
    uint64_t N = 0;
    for (const LiftedFunction &LF : LM.functions())
      if (LF.Range.Addr == CR.Addr)
        N = LF.NumInstrs;
    Counts.push_back(N);
  }
  if (Paths.empty())
    Paths = {"mem", "mir", "asm"};
  OS << "- file: '" << LM.original().name() << "'\n";
  LM.finalize(); // Report verifier-rejected functions too.
  unsigned NonSimple = 0;
  for (const LiftedFunction &LF : LM.functions())
    if (!LF.Simple) {
      if (!NonSimple++)
        OS << "  non_simple:\n";
      OS << "    - { name: '" << LF.Range.Name << "', reason: '" << LF.Reason
         << "' }\n";
    }
  bool AllOk = true;
  for (const std::string &P : Paths) {
    std::unique_ptr<LiftedModule> Reparsed;
    const LiftedModule *Src = &LM;
    if (P == "asm") {
      auto Text = emitAssembly(LM);
      if (!Text)
        return Text.takeError();
      std::string SName = (LM.original().name() + ".s").str();
      auto Linked = assembleAndLink(*Text, SName);
      if (!Linked)
        return Linked.takeError();
      auto CO = CodeObject::create(ArrayRef<uint8_t>(*Linked), SName);
      if (!CO)
        return CO.takeError();
      auto RP = LiftedModule::lift(std::move(*CO));
      if (!RP)
        return RP.takeError();
      Reparsed = std::move(*RP);
      Src = Reparsed.get();
    } else if (P == "mir") {
      std::string Text;
      raw_string_ostream TOS(Text);
      if (Error E = LM.printMIR(TOS))
        return std::move(E);
      auto RP = LiftedModule::parseMIR(Text, LM.original().name());
      if (!RP)
        return RP.takeError();
      Reparsed = std::move(*RP);
      Src = Reparsed.get();
    } else if (P != "mem") {
      return createStringError("unknown round-trip path '" + P + "'");
    }
    auto R = rebuild(*Src);
    if (!R)
      return R.takeError();
    auto New = CodeObject::create(ArrayRef<uint8_t>(R->Linked), "<rebuilt>");
    if (!New)
      return New.takeError();
    RoundTripReport Rep = compareCodeObjects(LM.original(), **New, Counts);
    bool SameLinker = linkedBySameLLD(LM.original(), **New);
    bool Ok = Rep.contentIdentical() && (Rep.FileIdentical || !SameLinker);
    AllOk &= Ok;
    printReport(OS, P, Rep);
    OS << "    same_linker: " << (SameLinker ? "true" : "false") << "\n";
  }
  return AllOk;
}

static StringRef asBytes(ArrayRef<uint8_t> B) {
  return StringRef(reinterpret_cast<const char *>(B.data()), B.size());
}

static void printPassStats(raw_ostream &OS, StringRef Name,
                           ArrayRef<PassStat> Stats) {
  OS << "pass stats for " << Name << ":\n";
  for (const PassStat &S : Stats) {
    OS << formatv("  {0,-18} functions changed {1}, instructions added {2}, "
                  "removed {3}, rewritten {4}, introduced violations {5}\n",
                  S.Pass, S.FunctionsChanged, S.Added, S.Removed,
                  S.Rewritten, S.IntroducedViolations);
    for (const std::string &N : S.Notes)
      OS << "    " << N << "\n";
  }
}

namespace {
/// Option values taken before lld can reset them (see main).
struct DriverOptions {
  std::string In, Out, AddrMap, Spec, Report, Pipeline;
  EmitKind EmitK = EmitKind::Obj;
  bool Gated = false, TrustStatic = false, PassStats = false,
       Subsets = true, Quiet = false, VerifyEach = false, Reduce = false,
       PatchInPlace = false, AllowCompress = false;
  unsigned Sensitivity = 8;
  std::string TimingConfig;
  std::vector<std::string> Kernels;
};
} // namespace

/// -O1/-O2/--spec: every code object through the optimizer and its gate;
/// what the gate does not accept keeps its original bytes.
static int optimize(RewriteInput &In, const DriverOptions &D) {
  auto Passes = expandPipeline(D.Pipeline);
  if (!Passes)
    return fail(toString(Passes.takeError()));
  std::optional<emu::LaunchSpec> Spec;
  if (!D.Spec.empty()) {
    auto S = emu::LaunchSpec::load(D.Spec);
    if (!S)
      return fail(toString(S.takeError()));
    Spec = std::move(*S);
  }
  if (D.EmitK != EmitKind::Obj)
    return fail("-O1/-O2/--spec write code objects (--emit=obj)");
  OptimizeOptions O;
  O.Passes = *Passes;
  O.Lift.Kernels = D.Kernels;
  O.Gate.Spec = Spec ? &*Spec : nullptr;
  O.Gate.TrustStatic = D.TrustStatic;
  O.Gate.Sensitivity = D.Sensitivity;
  O.Gate.TimingConfig = D.TimingConfig;
  O.TrySubsets = D.Subsets;
  O.PatchInPlace = D.PatchInPlace;
  O.Print.PrintStream = &errs();
  O.RecordEdits = editRecorder() != nullptr;
  O.Jobs = requestedJobs();
  if (D.Reduce) {
    if (!Spec)
      return fail("--reduce needs --spec: only runs show a failure");
    for (auto &LM : In.Modules) {
      auto RR = reduceFailure(LM->original(), O);
      if (!RR)
        return fail(toString(RR.takeError()));
      outs() << LM->original().name() << ":\n";
      printReduceResult(outs(), *RR);
    }
    return 0;
  }
  RunReport R;
  R.Input = D.In;
  R.Output = D.Out;
  R.Spec = D.Spec;
  R.Pipeline = *Passes;
  R.TrustStatic = D.TrustStatic && !Spec;
  R.PassThrough = In.PassThrough;
  std::vector<std::optional<std::vector<uint8_t>>> NewObjects;
  for (auto &LM : In.Modules) {
    if (!D.Quiet && In.Modules.size() > 1)
      errs() << "asmevo-opt: optimizing " << LM->original().name() << " ("
             << NewObjects.size() + 1 << " of " << In.Modules.size()
             << ")\n";
    auto M = optimizeCodeObject(LM->original(), O);
    if (!M)
      return fail(toString(M.takeError()));
    NewObjects.push_back(M->Bytes);
    appendRecordedEdits(M->Edits);
    R.Modules.push_back(std::move(*M));
  }
  if (Error E = writeRecordedEdits())
    return fail(toString(std::move(E)));
  std::string OutBytes;
  if (In.isContainer()) {
    std::vector<std::string> Warnings;
    auto Bytes = writeContainer(In, NewObjects, Warnings, D.AllowCompress);
    if (!Bytes)
      return fail(toString(Bytes.takeError()));
    for (const std::string &W : Warnings)
      WithColor::warning(errs(), "asmevo-opt") << W << "\n";
    OutBytes = asBytes(*Bytes).str();
  } else {
    if (In.Modules.size() != 1)
      return fail(In.Path + ": expected one code object");
    OutBytes = NewObjects[0] ? asBytes(*NewObjects[0]).str()
                             : asBytes(In.Modules[0]->original().image()).str();
  }
  if (!D.Quiet)
    printRunReport(errs(), R);
  if (D.PassStats)
    for (const ModuleOutcome &M : R.Modules)
      printPassStats(errs(), M.Name, M.Stats);
  if (!D.Report.empty()) {
    std::string J;
    raw_string_ostream JOS(J);
    JOS << formatv("{0:2}", runReportJSON(R)) << "\n";
    if (Error E = writeOutputFile(D.Report, J))
      return fail(toString(std::move(E)));
  }
  if (!D.AddrMap.empty()) {
    if (In.Modules.size() != 1)
      return fail("--address-map takes an input with one code object");
    std::string Map;
    raw_string_ostream MOS(Map);
    if (R.Modules[0].Rebuilt)
      writeAddressMap(MOS, *R.Modules[0].Rebuilt);
    else
      MOS << "# unchanged: every address maps to itself\n";
    if (Error E = writeOutputFile(D.AddrMap, Map))
      return fail(toString(std::move(E)));
  }
  std::string Out = D.Out.empty() ? "-" : D.Out;
  if (Out == "-" && outs().is_displayed())
    return fail("refusing to write a code object to a terminal; use -o");
  if (Error E = writeOutputFile(Out, OutBytes,
                                In.Kind == InputKind::HostBinary
                                    ? StringRef(In.Path)
                                    : StringRef()))
    return fail(toString(std::move(E)));
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  // -print-after-all and -print-after=NAME are LLVM's own options (they
  // live in libLLVM); keep them visible next to ours.
  cl::HideUnrelatedOptions(Cat);
  for (StringRef Name : {"print-after-all", "print-after"})
    if (auto *O = cl::getRegisteredOptions().lookup(Name))
      O->setHiddenFlag(cl::NotHidden);
  cl::ParseCommandLineOptions(argc, argv, "AsmEvo post-link optimizer\n");
  if (MCPCommand)
    return runMCPCommand();
  if (LineageCommand)
    return runLineageCommand();
  if (ListPasses) {
    for (bool Test : {false, true}) {
      if (Test)
        outs() << "test-only passes (never in a -O pipeline):\n";
      for (const PassEntry &P : registeredPasses())
        if (P.TestOnly == Test) {
          outs() << P.Name << " - " << P.Description << "\n";
          for (const PassParamInfo &I : P.Params)
            outs() << formatv("    <{0}=N> {1} ({2}-{3})\n", I.Name,
                              I.Description, I.Min, I.Max);
        }
    }
    outs() << "parameters every pass takes (name<k=v;...>):\n";
    for (const PassParamInfo &I : commonPassParams())
      outs() << formatv("    <{0}=N> {1} ({2}-{3})\n", I.Name, I.Description,
                        I.Min, I.Max);
    outs() << "-O1: " << join(optimizationPipeline(1), ",") << "\n";
    outs() << "-O2: " << join(optimizationPipeline(2), ",") << "\n";
    return 0;
  }
  if (InputPath.empty())
    return fail("no input file (see --help)");
  // Printed when main returns, whichever way it does.
  struct PhaseReport {
    std::chrono::steady_clock::time_point Start =
        std::chrono::steady_clock::now();
    ~PhaseReport() {
      if (PhaseTimer::enabled())
        PhaseTimer::print(errs(), std::chrono::duration<double>(
                                      std::chrono::steady_clock::now() - Start)
                                      .count());
    }
  } PrintPhases;
  PhaseTimer::enable(TimePhases);
  setAnalysisCacheEnabled(!NoAnalysisCache);
  if (O1 && O2)
    return fail("-O1 and -O2 are exclusive");
  // lld resets every cl::opt when it links in-process (it re-parses its
  // own -mllvm options), so take the values now.
  DriverOptions D;
  D.In = InputPath;
  D.Out = OutputPath;
  D.AddrMap = AddressMapPath;
  D.Spec = SpecPath;
  D.Report = ReportPath;
  D.EmitK = Emit;
  D.TrustStatic = TrustStatic;
  D.PassStats = PassStats;
  D.Subsets = !NoSubsets;
  D.Quiet = Quiet;
  D.Reduce = Reduce;
  D.PatchInPlace = PatchInPlaceOpt;
  D.AllowCompress = AllowCompress;
  D.VerifyEach = VerifyEach;
  D.Sensitivity = Sensitivity;
  D.TimingConfig = TimingConfig;
  D.Kernels.assign(Kernels.begin(), Kernels.end());
  D.Pipeline = O1 ? "O1" : O2 ? "O2" : "";
  for (const std::string &P : {Passes.getValue(), RunPass.getValue()})
    if (!P.empty())
      D.Pipeline = D.Pipeline.empty() ? P : D.Pipeline + "," + P;
  D.Gated = O1 || O2 || !D.Spec.empty() || D.Reduce || D.PatchInPlace ||
            evolveRequested();
  const std::vector<std::string> RTPaths(RoundTripPaths.begin(),
                                         RoundTripPaths.end());
  LiftOptions LO;
  LO.Kernels = D.Kernels;
  // A rebuild without passes emits every function from its bytes; what
  // reads or edits MachineIR finalizes (live-ins, verifier gate) itself.
  LO.Finalize = Info || VerifyEach;
  if (D.Gated)
    LO.Finalize = false;
  auto Loaded = loadRewriteInput(D.In, LO);
  if (!Loaded)
    return fail(toString(Loaded.takeError()));
  RewriteInput &In = *Loaded;
  auto *LMs = &In.Modules;

  if (evolveRequested()) {
    EvolveDriverOptions ED;
    ED.Spec = D.Spec;
    ED.Out = D.Out;
    ED.TimingConfig = D.TimingConfig;
    ED.Kernels = D.Kernels;
    ED.Pipeline = D.Pipeline;
    ED.Sensitivity = D.Sensitivity;
    ED.Quiet = D.Quiet;
    return runEvolveCommand(*LMs, ED);
  }
  if (searchCommandRequested()) {
    if (Error E = runSearchCommand(outs(), *LMs, D.Spec, D.Kernels))
      return fail(toString(std::move(E)));
    return 0;
  }
  if (D.Gated && !Info && Analyze == AnalyzeKind::None &&
      BlockThroughputOpt == AnalyzeKind::None && !RoundTripCheck)
    return optimize(In, D);
  if (Info) {
    for (auto &LM : *LMs)
      printInfo(outs(), *LM);
    return 0;
  }
  if (Analyze != AnalyzeKind::None) {
    for (auto &LM : *LMs)
      if (Error E = printAnalysis(outs(), *LM, Analyze == AnalyzeKind::JSON))
        return fail(toString(std::move(E)));
    return 0;
  }
  if (BlockThroughputOpt != AnalyzeKind::None) {
    for (auto &LM : *LMs)
      if (Error E = printBlockThroughput(
              outs(), *LM, BlockThroughputOpt == AnalyzeKind::JSON))
        return fail(toString(std::move(E)));
    return 0;
  }
  if (VerifyEach)
    for (auto &LM : *LMs)
      if (Error E = LM->verify("After lifting"))
        return fail(toString(std::move(E)));
  if (RoundTripCheck) {
    bool AllOk = true;
    for (auto &LM : *LMs) {
      auto Ok = roundTrip(*LM, outs(), RTPaths);
      if (!Ok)
        return fail(toString(Ok.takeError()));
      AllOk &= *Ok;
    }
    return AllOk ? 0 : 2;
  }

  // Passes without the gate: what lit tests and pass developers run.
  PipelineOptions PO;
  PO.VerifyEach = D.VerifyEach;
  PO.PrintStream = &errs();
  PO.Record = editRecorder();
  std::vector<PassStat> Stats;
  PO.Stats = &Stats;
  // Per module: did a pass change it? In a container, one no pass changed
  // keeps its original bytes (no identity relink).
  std::vector<bool> Edited(LMs->size(), false);
  for (unsigned I = 0; I < LMs->size(); ++I)
    if (!D.Pipeline.empty()) {
      LiftedModule &LM = *(*LMs)[I];
      Stats.clear();
      if (Error E = runPipeline(LM, D.Pipeline, PO))
        return fail(toString(std::move(E)));
      Edited[I] = llvm::any_of(
          Stats, [](const PassStat &S) { return S.FunctionsChanged > 0; });
      if (D.PassStats)
        printPassStats(errs(), LM.original().name(), Stats);
    }
  if (Error E = writeRecordedEdits())
    return fail(toString(std::move(E)));

  std::string Out = D.Out.empty() ? "-" : D.Out;
  if (D.EmitK == EmitKind::Obj && In.isContainer()) {
    std::vector<std::optional<std::vector<uint8_t>>> NewObjects(LMs->size());
    for (unsigned I = 0; I < LMs->size(); ++I) {
      if (!Edited[I])
        continue;
      auto R = rebuild(*(*LMs)[I]);
      if (!R)
        return fail(toString(R.takeError()));
      NewObjects[I] = std::move(R->Linked);
    }
    for (const PassThroughObject &P : In.PassThrough)
      errs() << "asmevo-opt: " << P.Name << ": passed through unchanged ("
             << P.Reason << ")\n";
    std::vector<std::string> Warnings;
    auto Bytes = writeContainer(In, NewObjects, Warnings, D.AllowCompress);
    if (!Bytes)
      return fail(toString(Bytes.takeError()));
    for (const std::string &W : Warnings)
      WithColor::warning(errs(), "asmevo-opt") << W << "\n";
    if (Out == "-" && outs().is_displayed())
      return fail("refusing to write a binary to a terminal; use -o");
    if (Error E = writeOutputFile(Out, asBytes(*Bytes),
                                  In.Kind == InputKind::HostBinary
                                      ? StringRef(In.Path)
                                      : StringRef()))
      return fail(toString(std::move(E)));
    return 0;
  }
  if (LMs->size() != 1)
    return fail(D.In + ": holds " + Twine(LMs->size()) +
                " code objects; --emit=mir/asm/reloc take one (select it "
                "with clang-offload-bundler --unbundle)");
  LiftedModule &LM = *LMs->front();
  std::string OutBytes;
  raw_string_ostream OS(OutBytes);
  RebuildResult R;
  switch (D.EmitK) {
  case EmitKind::MIR:
    if (Error E = LM.printMIR(OS))
      return fail(toString(std::move(E)));
    break;
  case EmitKind::Asm: {
    auto Text = emitAssembly(LM);
    if (!Text)
      return fail(toString(Text.takeError()));
    OS << *Text;
    break;
  }
  case EmitKind::Reloc:
    if (Error E = emitRelocatable(LM, R))
      return fail(toString(std::move(E)));
    OS.write(reinterpret_cast<const char *>(R.Relocatable.data()),
             R.Relocatable.size());
    break;
  case EmitKind::Obj: {
    auto RR = rebuild(LM);
    if (!RR)
      return fail(toString(RR.takeError()));
    R = std::move(*RR);
    for (const std::string &W : R.Warnings)
      WithColor::warning(errs(), "asmevo-opt") << LM.original().name() << ": "
                                               << W << "\n";
    OS.write(reinterpret_cast<const char *>(R.Linked.data()), R.Linked.size());
    break;
  }
  }
  if ((D.EmitK == EmitKind::Obj || D.EmitK == EmitKind::Reloc) && Out == "-" &&
      outs().is_displayed())
    return fail("refusing to write a code object to a terminal; use -o");
  if (!D.AddrMap.empty()) {
    if (D.EmitK != EmitKind::Obj)
      return fail("--address-map needs --emit=obj");
    std::string Map;
    raw_string_ostream MOS(Map);
    writeAddressMap(MOS, R);
    if (Error E = writeOutputFile(D.AddrMap, Map))
      return fail(toString(std::move(E)));
  }
  if (Error E = writeOutputFile(Out, OutBytes))
    return fail(toString(std::move(E)));
  return 0;
}
