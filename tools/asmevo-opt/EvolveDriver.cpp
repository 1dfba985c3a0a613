//===- EvolveDriver.cpp - asmevo-opt --evolve, asmevo-opt lineage ---------===//
//
// Options are taken by callback when the command line is parsed (lld resets
// every cl::opt when it links in-process).
//
//===----------------------------------------------------------------------===//
#include "EvolveDriver.h"
#include "AgentSource.h"
#include "EditsDriver.h"
#include "asmevo/Search/HotWindows.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Rewrite/Input.h"
#include "asmevo/Search/Evolve.h"
#include "asmevo/Transforms/Pass.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace asmevo;

extern cl::OptionCategory Cat;

static bool Evolve = false, Resume = false, NoSweep = false;
static uint64_t Seed = 1;
static unsigned Candidates = 8;
static double TimeBudget = 0;
static std::string LineagePath;
static unsigned Jobs = 1, CPULimit = 0, MemoryLimit = 0;
static std::string AgentCommand;
static double AgentTimeout = 120;

static cl::opt<bool> EvolveOpt(
    "evolve",
    cl::desc("Search pass lists behind the gate (docs/evolve.md); needs "
             "--spec"),
    cl::cat(Cat), cl::cb<void, bool>([](bool V) { Evolve = V; }));
static cl::opt<uint64_t>
    SeedOpt("seed", cl::desc("--evolve: the seed (default 1)"), cl::init(1),
            cl::cat(Cat), cl::cb<void, uint64_t>([](uint64_t V) { Seed = V; }));
static cl::opt<unsigned> CandidatesOpt(
    "candidates", cl::desc("--evolve: candidates to evaluate (default 8)"),
    cl::init(8), cl::cat(Cat),
    cl::cb<void, unsigned>([](unsigned V) { Candidates = V; }));
static cl::opt<double> TimeBudgetOpt(
    "time-budget",
    cl::desc("--evolve: stop starting candidates after this many seconds "
             "(the result then depends on the machine's speed)"),
    cl::init(0), cl::cat(Cat),
    cl::cb<void, double>([](double V) { TimeBudget = V; }));
static cl::opt<std::string> LineageOpt(
    "lineage", cl::desc("--evolve: record every candidate in this SQLite file"),
    cl::value_desc("db"), cl::cat(Cat),
    cl::cb<void, std::string>([](std::string V) { LineagePath = V; }));
static cl::opt<bool> NoSweepOpt(
    "no-sweep",
    cl::desc("--evolve: random mutations only (no parameter sweeps; "
             "docs/evolve.md)"),
    cl::cat(Cat), cl::cb<void, bool>([](bool V) { NoSweep = V; }));
static cl::opt<bool> ResumeOpt(
    "resume",
    cl::desc("--evolve: reuse the candidates --lineage holds for this kernel "
             "and seed"),
    cl::cat(Cat), cl::cb<void, bool>([](bool V) { Resume = V; }));

static cl::opt<unsigned> JobsOpt(
    "jobs",
    cl::desc("worker processes: --evolve evaluates this many candidates at "
             "once, -O1/-O2 share the kernels out (the result is the same "
             "for any value)"),
    cl::init(1), cl::cat(Cat),
    cl::cb<void, unsigned>([](unsigned V) { Jobs = V; }));
static cl::opt<unsigned> CPULimitOpt(
    "candidate-cpu-limit",
    cl::desc("--evolve: CPU seconds a candidate's worker may use "
             "(RLIMIT_CPU); over it, the candidate is rejected"),
    cl::value_desc("sec"), cl::init(0), cl::cat(Cat),
    cl::cb<void, unsigned>([](unsigned V) { CPULimit = V; }));
static cl::opt<unsigned> MemoryLimitOpt(
    "candidate-memory-limit",
    cl::desc("--evolve: address space of a candidate's worker in MB "
             "(RLIMIT_AS; the worker starts as a copy of asmevo-opt); over "
             "it, the candidate is rejected"),
    cl::value_desc("mb"), cl::init(0), cl::cat(Cat),
    cl::cb<void, unsigned>([](unsigned V) { MemoryLimit = V; }));

static cl::opt<std::string> AgentOpt(
    "agent",
    cl::desc("--evolve: also judge the edit scripts this command proposes "
             "(JSON lines on its stdio, docs/agent-protocol.md)"),
    cl::value_desc("cmd"), cl::cat(Cat),
    cl::cb<void, std::string>([](std::string V) { AgentCommand = V; }));
static cl::opt<double> AgentTimeoutOpt(
    "agent-timeout",
    cl::desc("--agent: seconds to wait for each answer (default 120)"),
    cl::init(120), cl::cat(Cat),
    cl::cb<void, double>([](double V) { AgentTimeout = V; }));

cl::SubCommand asmevo::LineageCommand(
    "lineage", "Print the runs of a lineage store: candidates and tree");
static cl::opt<std::string> DBPath(cl::Positional, cl::desc("<db>"),
                                   cl::Required, cl::sub(LineageCommand));
static cl::opt<std::string> RunOpt("run", cl::desc("Only this run id"),
                                   cl::sub(LineageCommand));

bool asmevo::evolveRequested() { return Evolve; }
unsigned asmevo::requestedJobs() { return std::max(Jobs, 1u); }

static int fail(const Twine &Msg) {
  WithColor::error(errs(), "asmevo-opt") << Msg << "\n";
  return 1;
}

int asmevo::runLineageCommand() {
  if (!sys::fs::exists(DBPath))
    return fail(DBPath + ": no such lineage store");
  auto S = LineageStore::open(DBPath);
  if (!S)
    return fail(toString(S.takeError()));
  if (Error E = printLineage(outs(), **S, RunOpt))
    return fail(toString(std::move(E)));
  return 0;
}

int asmevo::runEvolveCommand(std::vector<std::unique_ptr<LiftedModule>> &LMs,
                             const EvolveDriverOptions &D) {
  if (D.Spec.empty())
    return fail("--evolve needs --spec: candidates are judged by running them");
  if (LMs.size() != 1)
    return fail("--evolve takes one code object (this input holds " +
                Twine(LMs.size()) + ")");
  if (Candidates == 0)
    return fail("--candidates must be > 0");
  if (Jobs == 0)
    return fail("--jobs must be > 0");
  if (Resume && LineagePath.empty())
    return fail("--resume needs --lineage");
  auto Spec = emu::LaunchSpec::load(D.Spec);
  if (!Spec)
    return fail(toString(Spec.takeError()));
  std::unique_ptr<LineageStore> Store;
  if (!LineagePath.empty()) {
    auto S = LineageStore::open(LineagePath);
    if (!S)
      return fail(toString(S.takeError()));
    Store = std::move(*S);
  }
  EvolveOptions O;
  O.Seed = Seed;
  O.Candidates = Candidates;
  O.TimeBudget = TimeBudget;
  O.Sweep = !NoSweep;
  O.Pipeline = optimizationPipeline(2);
  if (!D.Pipeline.empty()) {
    auto P = expandPipeline(D.Pipeline);
    if (!P)
      return fail(toString(P.takeError()));
    O.Pipeline = std::move(*P);
  }
  O.Lift.Kernels = D.Kernels;
  const CodeObject &K0 = LMs.front()->original();
  if (O.Lift.Kernels.empty())
    for (const emu::SpecLaunch &L : Spec->Launches)
      if (const KernelInfo *K = verify::resolveLaunchedKernel(K0, L.Kernel))
        if (!is_contained(O.Lift.Kernels, K->Name))
          O.Lift.Kernels.push_back(K->Name);
  if (O.Lift.Kernels.empty())
    return fail(K0.name() + ": the launch spec runs no kernel of it");
  O.Gate.Spec = &*Spec;
  O.Gate.Sensitivity = D.Sensitivity;
  O.Gate.TimingConfig = D.TimingConfig;
  O.Gate.Memo = makeGateMemo();
  O.Store = Store.get();
  O.Resume = Resume;
  O.Jobs = Jobs;
  O.Limits.CPUSeconds = CPULimit;
  O.Limits.MemoryMB = MemoryLimit;
  O.Progress = D.Quiet ? nullptr : &errs();
  // #0 is what -O2 keeps (its own search, not counted as candidates), so
  // that the run starts where -O2 ends; a given -passes= list is #0 itself.
  if (D.Pipeline.empty() || D.Pipeline == "O2") {
    unsigned Attempts = 0;
    auto First = o2KeptPasses(K0, O, Attempts);
    if (!First)
      return fail(toString(First.takeError()));
    O.First = std::move(*First);
    if (O.Progress)
      *O.Progress << "evolve: #0 is -O2's outcome ("
                  << (O.First.empty() ? std::string("nothing kept: the -O2 list")
                                      : join(O.First, ","))
                  << "; -O2's search judged " << Attempts
                  << " attempts, not counted as candidates)\n";
  }
  std::unique_ptr<AgentSource> Agent;
  if (!AgentCommand.empty()) {
    if (Resume)
      return fail("--agent cannot be resumed yet: its answers are not "
                  "replayed from the lineage store");
    HotWindowOptions HO;
    auto HW = hotWindowsFromModel(*LMs.front(), D.Spec, HO);
    if (!HW)
      return fail(toString(HW.takeError()));
    json::Value HWJ = toJSON(*HW);
    if (const json::Array *W = HWJ.getAsObject()->getArray("windows"))
      O.AgentWindows = json::Array(*W);
    json::Object Budget{{"candidates", Candidates}};
    if (TimeBudget > 0)
      Budget["seconds"] = TimeBudget;
    json::Value Hello = json::Object{
        {"type", "hello"},
        {"protocol", "asmevo-agent"},
        {"version", 1},
        {"target", K0.target().Processor},
        {"kernels", json::Array(O.Lift.Kernels)},
        {"edit_script",
         json::Object{{"format", "asmevo-edit-script"},
                      {"version", EditScriptLimits::Version},
                      {"limits",
                       json::Object{{"edits", EditScriptLimits::MaxEdits},
                                    {"window", EditScriptLimits::MaxWindow},
                                    {"asm", EditScriptLimits::MaxAsmLines}}}}},
        {"budget", std::move(Budget)},
        {"timing_source", "model (not measured)"}};
    auto A = AgentSource::start(AgentCommand, Hello, AgentTimeout);
    if (!A)
      return fail(toString(A.takeError()));
    Agent = std::move(*A);
    O.Agent = Agent.get();
  }
  auto R = evolve(K0, O);
  if (Agent && R)
    Agent->finish(*R);
  if (!R)
    return fail(toString(R.takeError()));
  if (!D.Quiet)
    printEvolveReport(outs(), *R);
  if (editRecorder()) {
    appendRecordedEdits(R->Edits);
    if (Error E = writeRecordedEdits())
      return fail(toString(std::move(E)));
  }
  std::string Out = D.Out.empty() ? "-" : D.Out;
  if (Out == "-")
    return fail("--evolve writes a code object: give -o");
  ArrayRef<uint8_t> Bytes = R->Bytes ? ArrayRef<uint8_t>(*R->Bytes)
                                     : K0.image();
  if (Error E = writeOutputFile(
          Out, StringRef(reinterpret_cast<const char *>(Bytes.data()),
                         Bytes.size())))
    return fail(toString(std::move(E)));
  return 0;
}
