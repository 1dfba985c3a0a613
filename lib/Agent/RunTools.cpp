//===- RunTools.cpp - verify, time ----------------------------------------===//
//
// The two numbers an agent must never make up: whether a candidate behaves
// like K0 (asmevo-verify check) and how fast it is (asmevo-verify time).
// Both come from the same library calls as the command-line tools; every
// time carries its source ("model (not measured)" without a GPU).
//
//===----------------------------------------------------------------------===//
#include "asmevo/Agent/ToolSet.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Timing/Model.h"
#include "asmevo/Timing/Timing.h"
#include "asmevo/Verify/LoadCodeObject.h"
#include "asmevo/Verify/Verifier.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

static Expected<std::unique_ptr<CodeObject>> loadCO(const json::Object &Args,
                                                    StringRef Key,
                                                    ToolContext &Ctx) {
  auto P = Ctx.Dir.input(*Args.getString(Key));
  if (!P)
    return P.takeError();
  return verify::loadRunnableCodeObject(*P);
}

static Expected<emu::LaunchSpec> loadSpec(const json::Object &Args,
                                          ToolContext &Ctx) {
  auto P = Ctx.Dir.input(*Args.getString("spec"));
  if (!P)
    return P.takeError();
  return emu::LaunchSpec::load(*P);
}

static Expected<json::Object> verifyTool(const json::Object &Args,
                                         ToolContext &Ctx) {
  auto K0 = loadCO(Args, "k0", Ctx);
  if (!K0)
    return K0.takeError();
  auto K1 = loadCO(Args, "k1", Ctx);
  if (!K1)
    return K1.takeError();
  auto Spec = loadSpec(Args, Ctx);
  if (!Spec)
    return Spec.takeError();
  verify::VerifyOptions O;
  if (auto S = Args.getInteger("seeds"))
    O.Seeds = *S;
  if (auto S = Args.getInteger("random_sizes"))
    O.RandomSizes = *S;
  auto Rep = verify::verify(**K0, **K1, *Spec, O);
  if (!Rep)
    return Rep.takeError();
  json::Value Receipt = Rep->toJSON();
  return json::Object{{"verdict", verify::verdictName(Rep->V)},
                      {"reason", Rep->Reason},
                      {"receipt", std::move(Receipt)}};
}

/// What a report's writeJSON streams, as a value to nest in a result.
template <typename T> static json::Value asJSON(const T &R) {
  std::string S;
  raw_string_ostream OS(S);
  json::OStream J(OS);
  R.writeJSON(J);
  return cantFail(json::parse(S));
}

static Expected<json::Object> timeTool(const json::Object &Args,
                                       ToolContext &Ctx) {
  auto Spec = loadSpec(Args, Ctx);
  if (!Spec)
    return Spec.takeError();
  auto C = timing::TimingConfig::load("mi300x");
  if (!C)
    return C.takeError();
  emu::SessionOptions SO;
  SO.Overrides = Spec->Timing;
  std::vector<std::string> Keys{"path"};
  if (Args.getString("k0"))
    Keys.insert(Keys.begin(), "k0");
  std::vector<std::unique_ptr<CodeObject>> COs;
  std::vector<timing::TracedCodeObject> Traces;
  for (const std::string &K : Keys) {
    auto CO = loadCO(Args, K, Ctx);
    if (!CO)
      return CO.takeError();
    auto T = timing::traceCodeObject(**CO, *Spec, SO, *C, /*MaxSample=*/16);
    if (!T)
      return T.takeError();
    COs.push_back(std::move(*CO));
    Traces.push_back(std::move(*T));
  }
  json::Object Out{{"source", timing::ModelNote}};
  Out["report"] = asJSON(timing::simulate(Traces.back().Run.Launches, *C));
  if (Traces.size() == 2)
    Out["comparison"] =
        asJSON(timing::compare(Traces[0].Run.Launches, Traces[1].Run.Launches,
                               *C, /*N=*/8, /*Seed=*/1));
  return Out;
}

void asmevo::addRunTools(std::vector<AgentTool> &Tools) {
  using namespace schema;
  Tools.push_back(
      {"verify",
       "Verify a candidate against K0",
       "Run K0 and K1 under identical launches of a launch spec "
       "(docs/launch-spec.md) in the emulator and compare every output "
       "buffer: equivalent, different, violation or unknown, with the "
       "receipt of docs/verify-receipt.md. Only 'equivalent' means the "
       "candidate may be kept.",
       object({{"k0", string("The original code object")},
               {"k1", string("The candidate code object")},
               {"spec", string("Launch spec (YAML)")},
               {"seeds", integer("Input seeds per size (default 3)", 1, 64)},
               {"random_sizes",
                integer("Extra runs with drawn sizes (default 8)", 0, 64)}},
              {"k0", "k1", "spec"}),
       object({{"verdict", json::Object{{"type", "string"},
                                        {"enum", json::Array{"equivalent",
                                                             "different",
                                                             "violation",
                                                             "unknown"}}}},
               {"reason", string("Why, when not equivalent")},
               {"receipt", anyObject("docs/verify-receipt.md")}},
              {"verdict", "receipt"}, false),
       verifyTool});
  Tools.push_back(
      {"time",
       "Time a code object",
       "Time the spec's launches with the MI300X cycle model (no GPU: the "
       "result says 'model (not measured)'); with k0, also the speedup of "
       "path over k0 under perturbed model parameters (robust only if "
       "faster under every set).",
       object({{"path", string("The code object to time")},
               {"spec", string("Launch spec (YAML)")},
               {"k0", string("A baseline to compare with")}},
              {"path", "spec"}),
       object({{"source", string("Where the time comes from")},
               {"report", anyObject("docs/timing-model.md")},
               {"comparison", anyObject("K0 vs path, when k0 is given")}},
              {"source", "report"}, false),
       timeTool});
}
