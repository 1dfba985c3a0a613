//===- HotWindows.cpp - Where a kernel's time goes, as edit windows -------===//
#include "asmevo/Search/HotWindows.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Timing/Timing.h"
#include "asmevo/Transforms/InstrAnchor.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <set>

using namespace llvm;
using namespace asmevo;

namespace {
/// One instruction of a selected function, where an anchor names it.
struct Site {
  LiftedFunction *LF;
  unsigned Block, Index;
  MachineInstr *MI;
  uint64_t Addr;
};
} // namespace

static bool selected(const LiftedFunction &LF, const HotWindowOptions &O) {
  return LF.MF && LF.Simple &&
         (O.Kernels.empty() || is_contained(O.Kernels, LF.Range.Name));
}

/// Instructions of the selected functions in layout order, with their
/// original addresses (an instruction an edit created has none and gets
/// no weight).
static std::vector<Site> sites(LiftedModule &LM, const HotWindowOptions &O) {
  std::vector<Site> Out;
  for (LiftedFunction &LF : LM.functions()) {
    if (!selected(LF, O))
      continue;
    unsigned B = 0;
    for (MachineBasicBlock &MBB : *LF.MF) {
      unsigned I = 0;
      for (MachineInstr *MI : codeInstrs(MBB)) {
        if (std::optional<uint64_t> A = LM.addressOf(*MI))
          Out.push_back({&LF, B, I, MI, *A});
        ++I;
      }
      ++B;
    }
  }
  return Out;
}

Expected<AddressWeights> asmevo::placeSamples(LiftedModule &LM,
                                              const PCProfile &P,
                                              const HotWindowOptions &O,
                                              HotWindowReport &R) {
  LM.finalize();
  std::vector<Site> All = sites(LM, O);
  AddressWeights W;
  R.Samples = P.Samples;
  R.Method = P.Method;
  auto Unplaced = [&](StringRef Why, uint64_t N) {
    if (N)
      R.Unplaced[Why.str()] += N;
  };
  if (P.Form == PCProfile::Format::JSON) {
    std::set<uint64_t> Starts;
    for (const Site &S : All)
      Starts.insert(S.Addr);
    std::set<uint64_t> Ids;
    for (const auto &[PC, N] : P.ByPC) {
      Ids.insert(PC.first);
      uint64_t Off = PC.second;
      if (Starts.count(Off)) {
        W[Off] += N;
        R.Placed += N;
        continue;
      }
      const LiftedFunction *In = nullptr;
      for (const LiftedFunction &LF : LM.functions())
        if (Off >= LF.Range.Addr && Off < LF.Range.Addr + LF.Range.Size)
          In = &LF;
      Unplaced(!In ? "not in a function of this code object"
               : selected(*In, O) ? "not the start of an instruction"
                                  : "in a function not selected or not simple",
               N);
    }
    Unplaced("in no code object (code_object_id 0)", P.NoCodeObject);
    R.Note = "samples placed by code_object_offset";
    if (Ids.size() > 1)
      R.Note += formatv("; the file names {0} code objects and is taken to "
                        "profile this one",
                        Ids.size())
                    .str();
    return W;
  }
  // CSV: only the text is known. Place a sample only where its text occurs
  // once among the selected instructions; anything else would be a guess.
  InstrAnchorer Anchors(LM);
  std::map<std::string, std::vector<uint64_t>> ByText;
  for (const Site &S : All) {
    auto A = Anchors.anchor(*S.MI);
    if (!A)
      return A.takeError();
    ByText[normalizeInstrText(stripAsmComment(A->Text))].push_back(S.Addr);
  }
  for (const auto &[Text, N] : P.ByText) {
    auto It = ByText.find(Text);
    if (It == ByText.end())
      Unplaced("text not in the selected functions", N);
    else if (It->second.size() > 1)
      Unplaced("text not unique in the selected functions", N);
    else {
      W[It->second.front()] += N;
      R.Placed += N;
    }
  }
  R.Note = "CSV samples placed by instruction text, only where the text is "
           "unique";
  R.StallReasons = P.StallReasons;
  return W;
}

Error asmevo::buildHotWindows(LiftedModule &LM, const AddressWeights &W,
                              const HotWindowOptions &O, HotWindowReport &R) {
  LM.finalize();
  std::vector<Site> All = sites(LM, O);
  std::vector<double> Weight(All.size(), 0);
  R.Total = 0;
  for (size_t I = 0; I < All.size(); ++I) {
    auto It = W.find(All[I].Addr);
    if (It != W.end())
      Weight[I] = It->second;
    R.Total += Weight[I];
  }
  std::vector<size_t> Order(All.size());
  for (size_t I = 0; I < Order.size(); ++I)
    Order[I] = I;
  // Ties by layout, so that the report is the same on every run.
  llvm::stable_sort(Order,
                    [&](size_t A, size_t B) { return Weight[A] > Weight[B]; });
  std::vector<bool> Covered(All.size(), false);
  // Sites A and A+1 are neighbours in one block (a window is contiguous).
  auto Adjacent = [&](size_t A) {
    return All[A].LF == All[A + 1].LF && All[A].Block == All[A + 1].Block &&
           All[A + 1].Index == All[A].Index + 1;
  };
  InstrAnchorer Anchors(LM);
  for (size_t Seed : Order) {
    if (R.Windows.size() >= O.Count || Weight[Seed] <= 0)
      break;
    if (Covered[Seed])
      continue;
    size_t Lo = Seed, Hi = Seed;
    double Join = Weight[Seed] * O.JoinShare;
    while (Hi - Lo + 1 < O.MaxWindow) {
      bool CanL = Lo > 0 && !Covered[Lo - 1] && Adjacent(Lo - 1) &&
                  Weight[Lo - 1] >= Join && Weight[Lo - 1] > 0;
      bool CanR = Hi + 1 < All.size() && !Covered[Hi + 1] &&
                  Adjacent(Hi) && Weight[Hi + 1] >= Join &&
                  Weight[Hi + 1] > 0;
      if (!CanL && !CanR)
        break;
      if (CanL && (!CanR || Weight[Lo - 1] >= Weight[Hi + 1]))
        --Lo;
      else
        ++Hi;
    }
    HotWindow HW;
    HW.Function = All[Lo].LF->Range.Name;
    HW.Block = All[Lo].Block;
    HW.Index = All[Lo].Index;
    for (size_t I = Lo; I <= Hi; ++I) {
      Covered[I] = true;
      auto A = Anchors.anchor(*All[I].MI);
      if (!A)
        return A.takeError();
      HW.Instrs.push_back(std::move(*A));
      HW.Addrs.push_back(All[I].Addr);
      HW.Weights.push_back(Weight[I]);
      HW.Weight += Weight[I];
    }
    HW.Share = R.Total > 0 ? HW.Weight / R.Total : 0;
    R.Windows.push_back(std::move(HW));
  }
  llvm::stable_sort(R.Windows, [](const HotWindow &A, const HotWindow &B) {
    return A.Weight > B.Weight;
  });
  return Error::success();
}

Expected<HotWindowReport>
asmevo::hotWindowsFromProfile(LiftedModule &LM, const PCProfile &P,
                              const HotWindowOptions &O) {
  HotWindowReport R;
  R.CodeObject = LM.original().name().str();
  R.Source = "pc-sampling";
  R.Unit = "samples";
  auto W = placeSamples(LM, P, O, R);
  if (!W)
    return W.takeError();
  if (Error E = buildHotWindows(LM, *W, O, R))
    return std::move(E);
  return R;
}

Expected<HotWindowReport>
asmevo::hotWindowsFromModel(LiftedModule &LM, StringRef SpecPath,
                            const HotWindowOptions &O) {
  auto Spec = emu::LaunchSpec::load(SpecPath);
  if (!Spec)
    return Spec.takeError();
  timing::TimingConfig C = timing::TimingConfig::mi300x();
  emu::SessionOptions SO;
  SO.Overrides = Spec->Timing;
  auto T = timing::traceCodeObject(LM.original(), *Spec, SO, C,
                                   /*MaxSample=*/16);
  if (!T)
    return createStringError(LM.original().name() + ": " +
                             toString(T.takeError()));
  timing::TimingReport TR = timing::simulate(T->Run.Launches, C);
  if (!TR.Modelable)
    return createStringError(LM.original().name() +
                             ": the cycle model cannot model this launch");
  AddressWeights W;
  for (const timing::LaunchTiming &L : TR.Launches)
    for (const timing::InstrCost &IC : L.Instrs)
      W[IC.Addr] += IC.Cycles;
  HotWindowReport R;
  R.CodeObject = LM.original().name().str();
  R.Source = "model";
  R.Unit = "wave-cycles";
  R.Note = std::string("per-instruction attribution of the cycle model on "
                       "the sampled CU, at the spec's timing size: ") +
           timing::ModelNote;
  if (Error E = buildHotWindows(LM, W, O, R))
    return std::move(E);
  return R;
}

json::Value asmevo::toJSON(const HotWindowReport &R) {
  json::Array Windows;
  for (const HotWindow &W : R.Windows) {
    json::Array Instrs;
    for (size_t I = 0; I < W.Instrs.size(); ++I)
      Instrs.push_back(json::Object{
          {"index", W.Index + I},
          {"address", formatv("{0:x}", W.Addrs[I]).str()},
          {"text", W.Instrs[I].Text},
          {"bytes", bytesToHex(W.Instrs[I].Bytes)},
          {"weight", W.Weights[I]}});
    Windows.push_back(json::Object{{"function", W.Function},
                                   {"block", W.Block},
                                   {"index", W.Index},
                                   {"weight", W.Weight},
                                   {"share", W.Share},
                                   {"instructions", std::move(Instrs)}});
  }
  json::Object O{{"code_object", R.CodeObject},
                 {"source", R.Source},
                 {"unit", R.Unit},
                 {"note", R.Note},
                 {"total", R.Total},
                 {"windows", std::move(Windows)}};
  if (R.Source == "pc-sampling") {
    json::Object Un;
    uint64_t N = 0;
    for (const auto &[Why, C] : R.Unplaced) {
      Un[Why] = C;
      N += C;
    }
    O["samples"] = R.Samples;
    O["placed"] = R.Placed;
    O["unplaced"] = N;
    O["unplaced_by_reason"] = std::move(Un);
    O["method"] = R.Method;
    if (!R.StallReasons.empty()) {
      json::Object St;
      for (const auto &[Why, C] : R.StallReasons)
        St[Why] = C;
      O["stalled_samples_by_reason"] = std::move(St);
    }
  }
  return O;
}
