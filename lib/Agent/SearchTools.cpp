//===- SearchTools.cpp - apply_edit, hot_windows, lineage -----------------===//
//
// The search's side of the tools: where time goes (hot windows, anchored as
// an edit script needs them), applying an edit script exactly as
// -run-pass=apply-edits does (a stale or hostile edit is a tool error
// naming the edit), and reading an --evolve lineage store.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Agent/ToolSet.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Rewrite/Input.h"
#include "asmevo/Rewrite/Optimizer.h"
#include "asmevo/Search/Evolve.h"
#include "asmevo/Search/HotWindows.h"
#include "asmevo/Search/LineageStore.h"
#include "asmevo/Transforms/ApplyEdits.h"
#include "asmevo/Verify/LoadCodeObject.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

static Expected<json::Object> applyEdit(const json::Object &Args,
                                        ToolContext &Ctx) {
  auto In = Ctx.Dir.input(*Args.getString("path"));
  if (!In)
    return In.takeError();
  auto Out = Ctx.Dir.output(*Args.getString("output"));
  if (!Out)
    return Out.takeError();
  auto K0 = verify::loadRunnableCodeObject(*In);
  if (!K0)
    return K0.takeError();
  std::string Text = formatv("{0}", *Args.get("script")).str();
  // Read first: a malformed script is refused before anything is lifted.
  auto S = parseEditScript(Text, "script");
  if (!S)
    return S.takeError();
  setEditScriptText("script", Text);
  auto Built = buildCandidate(**K0, {"apply-edits"}, LiftOptions());
  setEditScriptText("", "");
  if (!Built)
    return Built.takeError();
  ArrayRef<uint8_t> Bytes =
      Built->Changed ? ArrayRef<uint8_t>(Built->Rebuilt.Linked) : (*K0)->image();
  std::error_code EC;
  raw_fd_ostream OS(*Out, EC);
  if (EC)
    return createStringError(*Out + ": " + EC.message());
  OS.write(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  OS.close();
  if (OS.has_error())
    return createStringError(*Out + ": " + OS.error().message());
  return json::Object{{"output", *Args.getString("output")},
                      {"edits", int64_t(S->Edits.size())},
                      {"changed", Built->Changed},
                      {"bytes", int64_t(Bytes.size())},
                      {"hash", contentHash(Bytes)}};
}

static Expected<json::Object> hotWindows(const json::Object &Args,
                                         ToolContext &Ctx) {
  auto Path = Ctx.Dir.input(*Args.getString("path"));
  if (!Path)
    return Path.takeError();
  std::optional<std::string> Spec, ProfilePath;
  if (auto S = Args.getString("spec")) {
    auto P = Ctx.Dir.input(*S);
    if (!P)
      return P.takeError();
    Spec = *P;
  }
  if (auto S = Args.getString("profile")) {
    auto P = Ctx.Dir.input(*S);
    if (!P)
      return P.takeError();
    ProfilePath = *P;
  }
  if (!Spec == !ProfilePath)
    return createStringError("give exactly one of 'spec' (the cycle model) "
                             "and 'profile' (rocprofv3 PC sampling)");
  LiftOptions LO;
  HotWindowOptions O;
  if (auto K = Args.getString("kernel")) {
    LO.Kernels.push_back(K->str());
    O.Kernels.push_back(K->str());
  }
  if (auto N = Args.getInteger("count"))
    O.Count = *N;
  if (auto N = Args.getInteger("max_window"))
    O.MaxWindow = *N;
  auto In = loadRewriteInput(*Path, LO);
  if (!In)
    return In.takeError();
  std::optional<PCProfile> Profile;
  if (ProfilePath) {
    auto P = readPCProfile(*ProfilePath);
    if (!P)
      return P.takeError();
    Profile = std::move(*P);
  }
  json::Array Objects;
  for (auto &LM : In->Modules) {
    auto R = Profile ? hotWindowsFromProfile(*LM, *Profile, O)
                     : hotWindowsFromModel(*LM, *Spec, O);
    if (!R)
      return R.takeError();
    Objects.push_back(toJSON(*R));
  }
  return json::Object{{"code_objects", std::move(Objects)}};
}

static json::Value candidateJSON(const CandidateRecord &C) {
  auto OrNull = [](const std::string &S) {
    return S.empty() ? json::Value(nullptr) : json::Value(S);
  };
  return json::Object{
      {"id", C.Id},
      {"parent", C.Parent < 0 ? json::Value(nullptr) : json::Value(C.Parent)},
      {"strategy", C.Strategy},
      {"passes", C.Passes},
      {"candidate_hash", C.CandidateHash},
      {"static_check", C.StaticCheck},
      {"verdict", OrNull(C.Verdict)},
      {"receipt", C.Receipt},
      {"speedup", C.Speedups.empty() ? json::Value(nullptr)
                                     : json::Value(C.Speedups.front())},
      {"time_source", OrNull(C.TimeSource)},
      {"accepted", C.Accepted}};
}

static Expected<json::Object> lineage(const json::Object &Args,
                                      ToolContext &Ctx) {
  auto Path = Ctx.Dir.input(*Args.getString("db"));
  if (!Path)
    return Path.takeError();
  auto S = LineageStore::open(*Path);
  if (!S)
    return S.takeError();
  auto Runs = (*S)->runs();
  if (!Runs)
    return Runs.takeError();
  std::optional<StringRef> Only = Args.getString("run");
  json::Array Out;
  for (const RunRecord &R : *Runs) {
    if (Only && R.RunId != *Only)
      continue;
    auto Cs = (*S)->candidates(R.RunId);
    if (!Cs)
      return Cs.takeError();
    json::Array Cands;
    for (const CandidateRecord &C : *Cs)
      Cands.push_back(candidateJSON(C));
    Out.push_back(json::Object{{"run_id", R.RunId},
                               {"k0_name", R.K0Name},
                               {"k0_hash", R.K0Hash},
                               {"seed", int64_t(R.Seed)},
                               {"candidates", std::move(Cands)}});
  }
  if (Only && Out.empty())
    return createStringError("no run '" + Only->str() + "' in the store");
  return json::Object{{"runs", std::move(Out)}};
}

void asmevo::addSearchTools(std::vector<AgentTool> &Tools) {
  using namespace schema;
  Tools.push_back(
      {"apply_edit",
       "Apply an edit script",
       "Apply an edit script (docs/edit-script.md) to a code object and "
       "write the rebuilt object: every edit's anchor (block, index, text "
       "and bytes) is checked first, and a stale, malformed or forbidden "
       "edit fails naming the edit. Nothing is verified or timed: use "
       "verify and time on the output.",
       object({{"path", string("The code object to edit")},
               {"script", anyObject("The edit script")},
               {"output", string("Where to write the edited code object")}},
              {"path", "script", "output"}),
       object({{"output", string("The file written")},
               {"edits", integer("Edits in the script")},
               {"changed", boolean("Whether any instruction changed")},
               {"bytes", integer("Size of the output")},
               {"hash", string("xxh3 of the output, as the lineage store "
                               "records candidates")}},
              {"output", "edits", "changed", "bytes", "hash"}, false),
       applyEdit});
  Tools.push_back(
      {"hot_windows",
       "Find the hot instruction windows",
       "The instruction windows where the time goes, anchored as an edit "
       "script needs them: from the cycle model on a launch spec's "
       "launches ('spec'), or from a rocprofv3 PC-sampling file "
       "('profile'; JSON or CSV). Same output as asmevo-opt --hot-windows.",
       object({{"path", string("The code object")},
               {"spec", string("Launch spec (YAML): the cycle model")},
               {"profile", string("rocprofv3 PC-sampling output")},
               {"kernel", string("Only this kernel")},
               {"count", integer("Windows per code object (default 8)", 1,
                                 256)},
               {"max_window",
                integer("Longest window, in instructions (default 16)", 1,
                        64)}},
              {"path"}),
       object({{"code_objects", json::Object{{"type", "array"}}}},
              {"code_objects"}, false),
       hotWindows});
  Tools.push_back(
      {"lineage",
       "Read an --evolve lineage store",
       "Every run of a lineage store (docs/lineage-store.md) and its "
       "candidates: parent, strategy, passes, static check, verdict, "
       "receipt, speedup over K0 with its source, accepted.",
       object({{"db", string("The SQLite lineage store")},
               {"run", string("Only this run id")}},
              {"db"}),
       object({{"runs", json::Object{{"type", "array"}}}}, {"runs"}, false),
       lineage});
}
