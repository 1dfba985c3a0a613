//===- TimeCommand.cpp - asmevo-verify time -------------------------------===//
//
// Modelled time of a spec's launches (one code object), or the speedup of
// K1 over K0 with --sensitivity. The work is in lib/Timing.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/Emulator.h"
#include "asmevo/Emulator/LaunchSession.h"
#include "asmevo/Timing/Timeline.h"
#include "asmevo/Timing/Timing.h"
#include "asmevo/Verify/LoadCodeObject.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::timing;

namespace asmevo {
namespace verify_tool {

cl::SubCommand TimeCmd("time", "Modelled time of a spec's launches (a "
                               "cycle model of MI300X, not a measurement)");

static cl::list<std::string> Inputs(cl::Positional,
                                    cl::desc("<K.co> | <K0.co> <K1.co>"),
                                    cl::sub(TimeCmd));
static cl::opt<std::string> SpecPath("spec", cl::desc("Launch spec (YAML)"),
                                     cl::value_desc("file"), cl::sub(TimeCmd));
static cl::opt<std::string>
    ConfigOpt("config", cl::desc("Timing parameters: mi300x or a YAML file"),
              cl::value_desc("mi300x|file"), cl::init("mi300x"),
              cl::sub(TimeCmd));
static cl::opt<bool> PrintConfig(
    "print-config",
    cl::desc("Print every parameter of the configuration with its source"),
    cl::sub(TimeCmd));
static cl::opt<unsigned> Sensitivity(
    "sensitivity",
    cl::desc("K0/K1: also compare under N seeded perturbed parameter sets"),
    cl::init(0), cl::sub(TimeCmd));
static cl::opt<uint64_t> SensSeed("sensitivity-seed",
                                  cl::desc("First seed of the perturbed sets"),
                                  cl::init(1), cl::sub(TimeCmd));
static cl::opt<unsigned> MaxSample(
    "max-sample",
    cl::desc("Most workgroups of the modelled CU to emulate per launch"),
    cl::init(16), cl::sub(TimeCmd));
static cl::list<std::string> Sets("set",
                                  cl::desc("Override a scalar (after the "
                                           "spec's timing: entry)"),
                                  cl::value_desc("NAME=VALUE"),
                                  cl::sub(TimeCmd));
static cl::opt<bool> NoTimingSize(
    "no-timing-size",
    cl::desc("Time the spec's own sizes, not its timing: entry"),
    cl::sub(TimeCmd));
static cl::opt<unsigned> Hotspots(
    "hotspots",
    cl::desc("Also print the N costliest instructions with their stall "
             "reasons beside the disassembly"),
    cl::init(0), cl::value_desc("N"), cl::sub(TimeCmd));
static cl::opt<std::string> TimelinePath(
    "timeline",
    cl::desc("Also write the modelled CU's waves (issue, stalls by reason, "
             "memory in flight) as Chrome trace-event JSON (Perfetto)"),
    cl::value_desc("file"), cl::sub(TimeCmd));
static cl::opt<bool> Json("json", cl::desc("Write the report as JSON"),
                          cl::sub(TimeCmd));

static int fail(const Twine &Msg, int Status = 2) {
  WithColor::error(errs(), "asmevo-verify time") << Msg << "\n";
  return Status;
}

namespace {
/// A code object and its traces (which point into it).
struct Timed {
  std::unique_ptr<CodeObject> CO;
  TracedCodeObject T;
};
} // namespace

static Expected<std::unique_ptr<Timed>> traceOne(StringRef Path,
                                                 const LaunchSpec &Spec,
                                                 const SessionOptions &SO,
                                                 const TimingConfig &C) {
  auto CO = verify::loadRunnableCodeObject(Path);
  if (!CO)
    return CO.takeError();
  auto T = traceCodeObject(**CO, Spec, SO, C, MaxSample);
  if (!T)
    return createStringError("%s: %s", Path.str().c_str(),
                             toString(T.takeError()).c_str());
  auto Out = std::make_unique<Timed>();
  Out->CO = std::move(*CO);
  Out->T = std::move(*T);
  return std::move(Out);
}

int timeCommand() {
  auto C = TimingConfig::load(ConfigOpt);
  if (!C)
    return fail(toString(C.takeError()));
  if (PrintConfig) {
    C->printYAML(outs());
    return 0;
  }
  if (Inputs.empty() || Inputs.size() > 2)
    return fail("expects one code object (time) or two (K0 K1: speedup)");
  if (SpecPath.empty())
    return fail("--spec is required");
  if (Sensitivity && Inputs.size() != 2)
    return fail("--sensitivity compares two code objects (K0 K1)");
  auto Spec = LaunchSpec::load(SpecPath);
  if (!Spec)
    return fail(toString(Spec.takeError()));
  SessionOptions SO;
  if (!NoTimingSize)
    SO.Overrides = Spec->Timing;
  for (const std::string &S : Sets) {
    auto [N, V] = StringRef(S).split('=');
    if (N.empty() || V.empty())
      return fail("--set expects NAME=VALUE, got '" + S + "'");
    SO.Overrides[N.str()] = V.str();
  }
  std::vector<std::unique_ptr<Timed>> Runs;
  for (const std::string &P : Inputs) {
    auto T = traceOne(P, *Spec, SO, *C);
    if (!T)
      return fail(toString(T.takeError()));
    for (const std::string &W : (*T)->T.Run.Warnings)
      WithColor::warning(errs(), "asmevo-verify time") << P << ": " << W;
    Runs.push_back(std::move(*T));
  }
  std::vector<TimingReport> Reports;
  Timeline TL;
  bool WantTL = !TimelinePath.empty();
  for (size_t I = 0; I < Runs.size(); ++I)
    Reports.push_back(simulate(Runs[I]->T.Run.Launches, *C,
                               WantTL ? &TL : nullptr,
                               Runs.size() > 1 ? (I ? "K1" : "K0") : ""));
  if (WantTL) {
    std::error_code EC;
    ToolOutputFile Out(TimelinePath, EC, sys::fs::OF_None);
    if (EC)
      return fail("cannot write " + TimelinePath + ": " + EC.message());
    {
      json::OStream J(Out.os());
      TL.write(J);
    }
    Out.os() << "\n";
    Out.os().flush();
    if (Out.os().has_error())
      return fail("cannot write " + TimelinePath);
    Out.keep();
  }
  bool Modelable = true;
  for (const TimingReport &R : Reports)
    Modelable &= R.Modelable;
  std::optional<Comparison> Cmp;
  if (Runs.size() == 2)
    Cmp = compare(Runs[0]->T.Run.Launches, Runs[1]->T.Run.Launches, *C, Sensitivity,
                  SensSeed);
  if (Json) {
    json::OStream J(outs(), 2);
    J.object([&] {
      J.attribute("source", ModelNote);
      J.attributeArray("kernels", [&] {
        for (size_t I = 0; I < Reports.size(); ++I)
          J.object([&] {
            J.attribute("file", Inputs[I]);
            J.attribute("emulation_cpu_seconds",
                        Runs[I]->T.Run.EmulationSeconds);
            J.attribute("model_cpu_seconds", Reports[I].ModelSeconds);
            J.attributeBegin("report");
            Reports[I].writeJSON(J);
            J.attributeEnd();
          });
      });
      if (Cmp) {
        J.attributeBegin("comparison");
        Cmp->writeJSON(J);
        J.attributeEnd();
      }
    });
    outs() << "\n";
  } else {
    for (size_t I = 0; I < Reports.size(); ++I) {
      if (Reports.size() > 1)
        outs() << (I ? "K1" : "K0") << ": " << Inputs[I] << "\n";
      Reports[I].print(outs());
      if (Hotspots)
        Reports[I].printHotspots(outs(), Hotspots, [&](uint64_t A) {
          return Runs[I]->T.Emu->instructionText(A);
        });
    }
    if (Cmp)
      Cmp->print(outs());
  }
  return Modelable ? 0 : 3;
}

} // namespace verify_tool
} // namespace asmevo
