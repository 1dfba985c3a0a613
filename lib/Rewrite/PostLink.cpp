//===- PostLink.cpp - The post-link step over a whole binary --------------===//
#include "asmevo/Rewrite/PostLink.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Rewrite/Optimizer.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/FormatVariadic.h"
#include <map>
#include <set>

using namespace llvm;

namespace asmevo {

static std::string shortTargetID(const TargetInfo &T) {
  std::string S = T.targetID();
  StringRef R(S);
  R.consume_front("amdgcn-amd-amdhsa--");
  return R.str();
}

/// Kernel names of a code object we cannot read as ours: the `.kd`
/// symbols, which every AMDHSA code object has, whatever its target.
static std::vector<std::string> kernelSymbols(ArrayRef<uint8_t> Bytes) {
  std::vector<std::string> Out;
  auto Obj = object::ObjectFile::createObjectFile(MemoryBufferRef(
      StringRef(reinterpret_cast<const char *>(Bytes.data()), Bytes.size()),
      "code object"));
  if (!Obj) {
    consumeError(Obj.takeError());
    return Out;
  }
  for (const object::SymbolRef &S : (*Obj)->symbols()) {
    auto N = S.getName();
    if (!N) {
      consumeError(N.takeError());
      continue;
    }
    if (N->ends_with(".kd"))
      Out.push_back(N->drop_back(3).str());
  }
  llvm::sort(Out);
  Out.erase(std::unique(Out.begin(), Out.end()), Out.end());
  return Out;
}

Expected<std::vector<ListedObject>>
listBinary(const RewriteInput &In, const SpecManifest *Specs) {
  // File order: modules and pass-through objects by their entry index.
  std::vector<std::pair<unsigned, ListedObject>> All;
  for (unsigned I = 0; I < In.Modules.size(); ++I) {
    const CodeObject &CO = In.Modules[I]->original();
    ListedObject L;
    L.Name = CO.name().str();
    L.TargetID = shortTargetID(CO.target());
    L.Optimizable = true;
    for (const KernelInfo &K : CO.kernels())
      L.Kernels.push_back(
          {K.Name, Specs ? Specs->find(K.Name, CO.target()) : nullptr});
    All.push_back({In.ModuleEntries[I], std::move(L)});
  }
  for (const PassThroughObject &P : In.PassThrough) {
    ListedObject L;
    L.Name = P.Name;
    L.TargetID = P.TargetID;
    L.Reason = P.Reason;
    for (std::string &K : kernelSymbols(P.Bytes))
      L.Kernels.push_back({std::move(K), nullptr});
    All.push_back({P.EntryIndex, std::move(L)});
  }
  llvm::stable_sort(All, [](auto &A, auto &B) { return A.first < B.first; });
  std::vector<ListedObject> Out;
  for (auto &[I, L] : All)
    Out.push_back(std::move(L));
  return Out;
}

void printListing(raw_ostream &OS, ArrayRef<ListedObject> L,
                  bool StaticForAll) {
  for (const ListedObject &O : L) {
    OS << O.Name << "\n  target: " << O.TargetID;
    if (!O.Optimizable)
      OS << " (not optimized by AsmEvo: passed through unchanged)";
    OS << "\n  kernels: " << O.Kernels.size() << "\n";
    for (const ListedObject::Kernel &K : O.Kernels) {
      OS << "    " << K.Name << ": ";
      if (!O.Optimizable)
        OS << "unchanged (target not optimized)";
      else if (K.Rule && !K.Rule->SpecPath.empty())
        OS << "spec " << K.Rule->SpecPath << " (" << K.Rule->Where << ")";
      else if (K.Rule)
        OS << "static gate (" << K.Rule->Where << ")";
      else if (StaticForAll)
        OS << "static gate (--trust-static, no --specs)";
      else
        OS << "no spec: unchanged";
      OS << "\n";
    }
  }
}

namespace {
/// What one code object's kernels get: a spec, or the static gate.
struct Job {
  std::string SpecPath; ///< Empty: the static gate.
  std::vector<std::string> Kernels;
};
} // namespace

/// Errors for rules that would silently do nothing.
static Error checkRules(const RewriteInput &In, const SpecManifest &M,
                        bool TrustStatic) {
  std::set<std::string> Processors, PassedProcessors;
  for (const auto &LM : In.Modules)
    Processors.insert(LM->original().target().Processor);
  for (const PassThroughObject &P : In.PassThrough)
    PassedProcessors.insert(StringRef(P.TargetID).split(':').first.str());
  for (const SpecRule &R : M.Rules) {
    if (R.SpecPath.empty() && !TrustStatic)
      return createStringError(R.Where + ": no 'spec:' for kernel '" +
                               R.KernelGlob +
                               "': give a launch spec, or pass "
                               "--trust-static for the static gate");
    if (!R.Target.empty()) {
      StringRef Proc = StringRef(R.Target).split(':').first;
      if (!Processors.count(Proc.str())) {
        std::vector<std::string> Have(Processors.begin(), Processors.end());
        Have.insert(Have.end(), PassedProcessors.begin(),
                    PassedProcessors.end());
        return createStringError(
            R.Where + ": target '" + R.Target + "' is not in " + In.Path +
            (PassedProcessors.count(Proc.str())
                 ? " as a target AsmEvo optimizes (it passes through "
                   "unchanged)"
                 : "") +
            " (its targets: " + join(Have, ", ") + ")");
      }
    }
    bool Matched = false;
    for (const auto &LM : In.Modules)
      for (const KernelInfo &K : LM->original().kernels())
        Matched |= R.matchesTarget(LM->original().target()) &&
                   R.matchesKernel(K.Name);
    if (!Matched)
      return createStringError(R.Where + ": kernel '" + R.KernelGlob + "'" +
                               (R.Target.empty() ? "" : " for " + R.Target) +
                               " matches no kernel of " + In.Path +
                               " (asmevo-link --list shows them)");
  }
  return Error::success();
}

/// Jobs for one code object, in a fixed order (rules in manifest order,
/// kernels in object order), so that the result never depends on timing.
static std::vector<Job> planJobs(const CodeObject &CO, const SpecManifest *M,
                                 bool TrustStatic) {
  std::vector<Job> Jobs;
  std::map<const SpecRule *, std::vector<std::string>> ByRule;
  std::vector<std::string> Static;
  for (const KernelInfo &K : CO.kernels()) {
    const SpecRule *R = M ? M->find(K.Name, CO.target()) : nullptr;
    if (R && !R->SpecPath.empty())
      ByRule[R].push_back(K.Name);
    else if (R || (!M && TrustStatic))
      Static.push_back(K.Name);
  }
  if (M)
    for (const SpecRule &R : M->Rules)
      if (auto It = ByRule.find(&R); It != ByRule.end())
        for (const std::string &K : It->second)
          Jobs.push_back({R.SpecPath, {K}});
  if (!Static.empty())
    Jobs.push_back({"", Static});
  return Jobs;
}

Expected<PostLinkResult> optimizeBinary(const RewriteInput &In,
                                        const PostLinkOptions &O) {
  const SpecManifest *M = O.Specs ? &*O.Specs : nullptr;
  if (M)
    if (Error E = checkRules(In, *M, O.TrustStatic))
      return std::move(E);
  PostLinkResult Res;
  RunReport &R = Res.Report;
  R.Tool = "asmevo-link";
  R.Input = In.Path;
  R.Pipeline = O.Passes;
  R.Spec = M ? M->Path : "";
  R.TrustStatic = O.TrustStatic;
  R.PassThrough = In.PassThrough;
  std::map<std::string, emu::LaunchSpec> Specs;
  std::vector<std::optional<std::vector<uint8_t>>> NewObjects(
      In.Modules.size());
  for (unsigned I = 0; I < In.Modules.size(); ++I) {
    const CodeObject &Orig = In.Modules[I]->original();
    std::unique_ptr<CodeObject> Current;
    std::vector<Job> Jobs = planJobs(Orig, M, O.TrustStatic);
    if (Jobs.empty()) {
      ModuleOutcome Out;
      Out.Name = Orig.name().str();
      Out.Why = M ? "no rule of the spec manifest covers a kernel of this "
                    "code object; left unchanged"
                  : "no --specs (and no --trust-static): left unchanged";
      R.Modules.push_back(std::move(Out));
    }
    for (const Job &J : Jobs) {
      OptimizeOptions OO;
      OO.Passes = O.Passes;
      OO.Lift.Kernels = J.Kernels;
      OO.Gate.TrustStatic = J.SpecPath.empty();
      OO.Gate.Sensitivity = O.Sensitivity;
      OO.Gate.TimingConfig = O.TimingConfig;
      OO.Jobs = O.Jobs;
      std::optional<emu::LaunchSpec> Spec;
      if (!J.SpecPath.empty()) {
        auto It = Specs.find(J.SpecPath);
        if (It == Specs.end()) {
          auto S = emu::LaunchSpec::load(J.SpecPath);
          if (!S)
            return S.takeError();
          It = Specs.emplace(J.SpecPath, std::move(*S)).first;
        }
        // A rule's spec serves every kernel its glob matches: each launch
        // runs the kernel at hand.
        Spec = It->second;
        for (emu::SpecLaunch &L : Spec->Launches)
          L.Kernel = J.Kernels.front();
        OO.Gate.Spec = &*Spec;
      }
      // Each job starts from what the previous ones accepted, so that
      // their edits add up; the gate compares against that object, which
      // the previous gate found equivalent to the original.
      const CodeObject &K0 = Current ? *Current : Orig;
      auto Out = optimizeCodeObject(K0, OO);
      if (!Out)
        return Out.takeError();
      Out->Name = Orig.name().str();
      if (Out->Bytes) {
        auto CO = CodeObject::create(ArrayRef<uint8_t>(*Out->Bytes),
                                     Orig.name());
        if (!CO)
          return CO.takeError();
        Current = std::move(*CO);
        NewObjects[I] = *Out->Bytes;
      }
      Out->Rebuilt.reset();
      R.Modules.push_back(std::move(*Out));
    }
  }
  if (In.isContainer()) {
    auto Bytes = writeContainer(In, NewObjects, Res.Warnings, O.AllowCompress);
    if (!Bytes)
      return Bytes.takeError();
    Res.Output = std::move(*Bytes);
  } else {
    ArrayRef<uint8_t> B = NewObjects.empty() || !NewObjects[0]
                              ? In.Modules[0]->original().image()
                              : ArrayRef<uint8_t>(*NewObjects[0]);
    Res.Output.assign(B.begin(), B.end());
  }
  return std::move(Res);
}

} // namespace asmevo
