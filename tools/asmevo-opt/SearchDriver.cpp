//===- SearchDriver.cpp - asmevo-opt --hot-windows, --list-anchors --------===//
//
// Options are taken by callback when the command line is parsed (lld resets
// every cl::opt when it links in-process).
//
//===----------------------------------------------------------------------===//
#include "SearchDriver.h"
#include "asmevo/Search/HotWindows.h"
#include "asmevo/Transforms/InstrAnchor.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

extern cl::OptionCategory Cat;

static bool HotWindows = false, ListAnchors = false;
static std::string ProfilePath;
static unsigned WindowCount = 8, MaxWindow = 16;

static cl::opt<bool> HotWindowsOpt(
    "hot-windows",
    cl::desc("Print the hottest instruction windows (JSON, with edit-script "
             "anchors): from --profile (rocprofv3 PC sampling) or from the "
             "cycle model on --spec's launches"),
    cl::cat(Cat), cl::cb<void, bool>([](bool V) { HotWindows = V; }));
static cl::opt<std::string> ProfileOpt(
    "profile",
    cl::desc("rocprofv3 PC-sampling output (JSON or CSV) for --hot-windows"),
    cl::value_desc("file"), cl::cat(Cat),
    cl::cb<void, std::string>([](std::string V) { ProfilePath = V; }));
static cl::opt<unsigned> WindowCountOpt(
    "hot-window-count", cl::desc("Windows per code object (default 8)"),
    cl::init(8), cl::cat(Cat),
    cl::cb<void, unsigned>([](unsigned V) { WindowCount = V; }));
static cl::opt<unsigned> MaxWindowOpt(
    "hot-window-max", cl::desc("Longest window, in instructions (default 16)"),
    cl::init(16), cl::cat(Cat),
    cl::cb<void, unsigned>([](unsigned V) { MaxWindow = V; }));
static cl::opt<bool> ListAnchorsOpt(
    "list-anchors",
    cl::desc("Print every instruction's edit-script anchor (function, block, "
             "index, text, bytes), one JSON object per line"),
    cl::cat(Cat), cl::cb<void, bool>([](bool V) { ListAnchors = V; }));

bool asmevo::searchCommandRequested() { return HotWindows || ListAnchors; }

static Error listAnchors(raw_ostream &OS, LiftedModule &LM,
                         const std::vector<std::string> &Kernels) {
  LM.finalize();
  InstrAnchorer Anchors(LM);
  for (LiftedFunction &LF : LM.functions()) {
    if (!LF.MF || !LF.Simple ||
        (!Kernels.empty() && !is_contained(Kernels, LF.Range.Name)))
      continue;
    unsigned B = 0;
    for (MachineBasicBlock &MBB : *LF.MF) {
      unsigned I = 0;
      for (MachineInstr *MI : codeInstrs(MBB)) {
        auto A = Anchors.anchor(*MI);
        if (!A)
          return createStringError(LM.original().name() + ": function '" +
                                   LF.Range.Name + "': " +
                                   toString(A.takeError()));
        json::Object O{{"function", LF.Range.Name},
                       {"block", B},
                       {"index", I},
                       {"text", A->Text},
                       {"bytes", bytesToHex(A->Bytes)}};
        if (std::optional<uint64_t> Addr = LM.addressOf(*MI))
          O["address"] = formatv("{0:x}", *Addr).str();
        OS << json::Value(std::move(O)) << "\n";
        ++I;
      }
      ++B;
    }
  }
  return Error::success();
}

Error asmevo::runSearchCommand(raw_ostream &OS,
                               std::vector<std::unique_ptr<LiftedModule>> &LMs,
                               StringRef SpecPath,
                               const std::vector<std::string> &Kernels) {
  if (ListAnchors) {
    for (auto &LM : LMs)
      if (Error E = listAnchors(OS, *LM, Kernels))
        return E;
    return Error::success();
  }
  if (ProfilePath.empty() && SpecPath.empty())
    return createStringError("--hot-windows needs --profile=FILE (samples "
                             "from a GPU) or --spec=FILE (the cycle model on "
                             "the spec's launches)");
  std::optional<PCProfile> Profile;
  if (!ProfilePath.empty()) {
    auto P = readPCProfile(ProfilePath);
    if (!P)
      return P.takeError();
    Profile = std::move(*P);
  }
  HotWindowOptions O;
  O.Count = WindowCount;
  O.MaxWindow = std::max(1u, MaxWindow);
  O.Kernels = Kernels;
  json::Array Objects;
  for (auto &LM : LMs) {
    auto R = Profile ? hotWindowsFromProfile(*LM, *Profile, O)
                     : hotWindowsFromModel(*LM, SpecPath, O);
    if (!R)
      return R.takeError();
    Objects.push_back(toJSON(*R));
  }
  OS << formatv("{0:2}", json::Value(json::Object{
                             {"format", "asmevo-hot-windows"},
                             {"version", 1},
                             {"code_objects", std::move(Objects)}}))
     << "\n";
  return Error::success();
}
