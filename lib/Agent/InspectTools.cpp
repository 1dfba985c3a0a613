//===- InspectTools.cpp - recover, analyze, diff --------------------------===//
//
// Tools that read code objects and change nothing. Their text is what
// asmevo-opt --info / --analyze=json print, so that an agent and a user
// read the same report (docs/analysis-json.md).
//
//===----------------------------------------------------------------------===//
#include "asmevo/Agent/ToolSet.h"
#include "asmevo/Emulator/Emulator.h"
#include "asmevo/Rewrite/Analyze.h"
#include "asmevo/Rewrite/Info.h"
#include "asmevo/Rewrite/Input.h"
#include "asmevo/Verify/EditSet.h"
#include "asmevo/Verify/LoadCodeObject.h"
#include "asmevo/Verify/ObjectDiff.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

static StringRef kindName(InputKind K) {
  switch (K) {
  case InputKind::CodeObject:
    return "code-object";
  case InputKind::OffloadBundle:
    return "offload-bundle";
  case InputKind::HostBinary:
    return "host-binary";
  case InputKind::MIR:
    return "mir";
  case InputKind::Assembly:
    return "assembly";
  case InputKind::Unknown:
    break;
  }
  return "unknown";
}

static Expected<RewriteInput> loadInput(const json::Object &Args,
                                        ToolContext &Ctx) {
  auto Path = Ctx.Dir.input(*Args.getString("path"));
  if (!Path)
    return Path.takeError();
  LiftOptions LO;
  if (auto K = Args.getString("kernel"))
    LO.Kernels.push_back(K->str());
  return loadRewriteInput(*Path, LO);
}

static Expected<json::Object> recover(const json::Object &Args,
                                      ToolContext &Ctx) {
  auto In = loadInput(Args, Ctx);
  if (!In)
    return In.takeError();
  json::Array Objects;
  std::string Info;
  raw_string_ostream OS(Info);
  for (const auto &LM : In->Modules) {
    json::Array Funcs;
    for (const LiftedFunction &F : LM->functions()) {
      json::Object FO{{"name", F.Range.Name},
                      {"kernel", F.Range.IsKernel},
                      {"address", F.Range.Addr},
                      {"bytes", F.Range.Size},
                      {"instructions", F.NumInstrs},
                      {"rebuildable", F.Simple}};
      if (!F.Simple)
        FO["why_not"] = F.Reason;
      Funcs.push_back(std::move(FO));
    }
    Objects.push_back(json::Object{
        {"target", LM->original().target().targetID()},
        {"functions", std::move(Funcs)}});
    printInfo(OS, *LM);
  }
  return json::Object{{"kind", kindName(In->Kind)},
                      {"objects", std::move(Objects)},
                      {"info", std::move(Info)}};
}

static Expected<json::Object> analyze(const json::Object &Args,
                                      ToolContext &Ctx) {
  auto In = loadInput(Args, Ctx);
  if (!In)
    return In.takeError();
  json::Array Objects;
  for (const auto &LM : In->Modules) {
    std::string Text;
    raw_string_ostream OS(Text);
    if (Error E = printAnalysis(OS, *LM, /*JSON=*/true))
      return std::move(E);
    auto V = json::parse(Text);
    if (!V)
      return V.takeError();
    Objects.push_back(std::move(*V));
  }
  return json::Object{{"objects", std::move(Objects)}};
}

static Expected<json::Object> diff(const json::Object &Args,
                                   ToolContext &Ctx) {
  std::unique_ptr<CodeObject> CO[2];
  std::unique_ptr<emu::Emulator> Emu[2];
  for (int I = 0; I < 2; ++I) {
    auto P = Ctx.Dir.input(*Args.getString(I ? "k1" : "k0"));
    if (!P)
      return P.takeError();
    auto C = verify::loadRunnableCodeObject(*P);
    if (!C)
      return C.takeError();
    CO[I] = std::move(*C);
    auto E = emu::Emulator::create(*CO[I]);
    if (!E)
      return E.takeError();
    Emu[I] = std::move(*E);
  }
  auto Edits = verify::findEdits(*Emu[0], *Emu[1], nullptr);
  if (!Edits)
    return Edits.takeError();
  std::set<std::string> Launched;
  for (const KernelInfo &K : CO[0]->kernels())
    Launched.insert(K.Name);
  json::Array Fields;
  for (const verify::ObjectDifference &D :
       verify::diffObjects(*CO[0], *CO[1], Launched, {}))
    Fields.push_back(D.describe());
  json::Array EV;
  for (const verify::EditedInstruction &E : Edits->Edits) {
    static const char *Kinds[] = {"changed", "added", "removed"};
    json::Object O{{"kind", Kinds[E.K]},
                   {"class", verify::editClassName(E.Class)}};
    if (E.K != verify::EditedInstruction::Removed) {
      O["k1_address"] = int64_t(E.K1Addr);
      O["k1"] = E.K1Text;
    }
    if (E.K0Addr) {
      O["k0_address"] = int64_t(*E.K0Addr);
      O["k0"] = E.K0Text;
    }
    EV.push_back(std::move(O));
  }
  return json::Object{{"pairing", Edits->Method},
                      {"edits", std::move(EV)},
                      {"object_differences", std::move(Fields)}};
}

void asmevo::addInspectTools(std::vector<AgentTool> &Tools) {
  using namespace schema;
  auto PathArgs = [] {
    return object({{"path", string("A code object, offload bundle or HIP "
                                   "binary, inside the work directory")},
                   {"kernel", string("Only this kernel (and what it calls)")}},
                  {"path"});
  };
  Tools.push_back(
      {"recover",
       "Recover a code object",
       "Lift a code object to MachineIR: its targets, functions, which can "
       "be rebuilt and why not, descriptors and metadata (the text of "
       "asmevo-opt --info).",
       PathArgs(),
       object({{"kind", string("What the file is")},
               {"objects", json::Object{{"type", "array"}}},
               {"info", string("asmevo-opt --info")}},
              {"kind", "objects", "info"}, false),
       recover});
  Tools.push_back(
      {"analyze",
       "Analyze a code object",
       "Per function: blocks, loops, register use and occupancy, waitcnt "
       "state, violations and slack, hazards (docs/analysis-json.md).",
       PathArgs(),
       object({{"objects", json::Object{{"type", "array"}}}}, {"objects"},
              false),
       analyze});
  Tools.push_back(
      {"diff",
       "Diff two code objects",
       "The instructions K1 changed against K0, each with its edit class, "
       "and every descriptor or metadata field that differs.",
       object({{"k0", string("The original code object")},
               {"k1", string("The candidate code object")}},
              {"k0", "k1"}),
       object({{"pairing", string("How K1's instructions were paired with "
                                  "K0's")},
               {"edits", json::Object{{"type", "array"}}},
               {"object_differences",
                stringArray("Descriptor and metadata differences")}},
              {"pairing", "edits", "object_differences"}, false),
       diff});
}
