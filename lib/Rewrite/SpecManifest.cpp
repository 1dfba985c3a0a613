//===- SpecManifest.cpp ---------------------------------------------------===//
#include "asmevo/Rewrite/SpecManifest.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Support/YAMLSyntax.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/YAMLParser.h"
#include <algorithm>

using namespace llvm;

namespace asmevo {

Error SpecRule::setGlob(std::string Pattern) {
  GlobText = std::make_shared<const std::string>(std::move(Pattern));
  auto G = GlobPattern::create(*GlobText);
  if (!G)
    return G.takeError();
  Glob = std::move(*G);
  return Error::success();
}

bool SpecRule::matchesKernel(StringRef Name) const {
  return Glob.match(Name) || Glob.match(demangle(Name));
}

bool SpecRule::matchesTarget(const TargetInfo &T) const {
  if (Target.empty())
    return true;
  SmallVector<StringRef, 4> Parts;
  StringRef(Target).split(Parts, ':');
  if (Parts[0] != T.Processor)
    return false;
  for (StringRef F : ArrayRef(Parts).drop_front()) {
    TargetFeature Have = F.drop_back() == "xnack" ? T.Xnack : T.Sramecc;
    TargetFeature Want = F.back() == '+' ? TargetFeature::On : TargetFeature::Off;
    if (Have != Want)
      return false;
  }
  return true;
}

const SpecRule *SpecManifest::find(StringRef Kernel,
                                   const TargetInfo &T) const {
  for (const SpecRule &R : Rules)
    if (R.matchesTarget(T) && R.matchesKernel(Kernel))
      return &R;
  return nullptr;
}

static Error manifestError(StringRef Path, const Twine &Msg) {
  return createStringError(Path + ": " + Msg);
}

static Error checkTargetSyntax(const SpecRule &R) {
  SmallVector<StringRef, 4> Parts;
  StringRef(R.Target).split(Parts, ':');
  if (!StringRef(Parts[0]).starts_with("gfx"))
    return createStringError(R.Where + ": target '" + R.Target +
                             "' is not a target id (e.g. gfx90a, "
                             "gfx942:xnack-)");
  for (StringRef F : ArrayRef(Parts).drop_front())
    if (F.size() < 2 || (F.back() != '+' && F.back() != '-') ||
        (F.drop_back() != "xnack" && F.drop_back() != "sramecc"))
      return createStringError(R.Where + ": target '" + R.Target +
                               "': feature '" + F +
                               "' is not xnack+/- or sramecc+/-");
  return Error::success();
}

Expected<SpecManifest> SpecManifest::parse(StringRef Text, StringRef Path) {
  if (Error E = checkYAMLSyntax(Text, Path))
    return std::move(E);
  SpecManifest M;
  M.Path = Path.str();
  SourceMgr SM;
  yaml::Stream S(Text, SM);
  auto Doc = S.begin();
  if (Doc == S.end())
    return manifestError(Path, "empty manifest");
  auto *Root = dyn_cast_or_null<yaml::MappingNode>(Doc->getRoot());
  if (!Root)
    return manifestError(Path, "expected a mapping with "
                               "'asmevo-spec-manifest: 1' and 'kernels:'");
  bool SawVersion = false;
  StringRef Dir = sys::path::parent_path(Path);
  auto scalar = [](yaml::Node *N, SmallVectorImpl<char> &Buf)
      -> std::optional<StringRef> {
    if (auto *SN = dyn_cast_or_null<yaml::ScalarNode>(N))
      return SN->getValue(Buf);
    return std::nullopt;
  };
  for (auto &KV : *Root) {
    SmallString<32> KB, VB;
    auto Key = scalar(KV.getKey(), KB);
    if (!Key)
      return manifestError(Path, "a key that is not a scalar");
    if (*Key == "asmevo-spec-manifest") {
      auto V = scalar(KV.getValue(), VB);
      if (!V || *V != "1")
        return manifestError(Path, "asmevo-spec-manifest: expected 1");
      SawVersion = true;
      continue;
    }
    if (*Key != "kernels")
      return manifestError(Path, "unknown key '" + *Key +
                                     "' (expected asmevo-spec-manifest, "
                                     "kernels)");
    auto *Seq = dyn_cast_or_null<yaml::SequenceNode>(KV.getValue());
    if (!Seq)
      return manifestError(Path, "kernels: expected a list of rules");
    unsigned N = 0;
    for (yaml::Node &Item : *Seq) {
      ++N;
      SpecRule R;
      R.Where = (Path + ": rule " + Twine(N)).str();
      auto *Map = dyn_cast<yaml::MappingNode>(&Item);
      if (!Map)
        return createStringError(R.Where +
                                 ": expected a mapping (kernel, target, spec)");
      for (auto &F : *Map) {
        SmallString<32> FKB, FVB;
        auto FK = scalar(F.getKey(), FKB);
        auto FV = scalar(F.getValue(), FVB);
        if (!FK || !FV)
          return createStringError(R.Where + ": expected scalar fields");
        if (*FK == "kernel")
          R.KernelGlob = FV->str();
        else if (*FK == "target")
          R.Target = FV->str();
        else if (*FK == "spec") {
          SmallString<128> P;
          if (sys::path::is_relative(*FV))
            P = Dir;
          sys::path::append(P, *FV);
          R.SpecPath = P.str().str();
        } else
          return createStringError(R.Where + ": unknown field '" + *FK +
                                   "' (expected kernel, target, spec)");
      }
      if (R.KernelGlob.empty())
        return createStringError(R.Where + ": no 'kernel:' glob");
      if (Error E = R.setGlob(R.KernelGlob))
        return createStringError(R.Where + ": kernel glob '" + R.KernelGlob +
                                 "': " + toString(std::move(E)));
      if (!R.Target.empty())
        if (Error E = checkTargetSyntax(R))
          return std::move(E);
      M.Rules.push_back(std::move(R));
    }
  }
  if (!SawVersion)
    return manifestError(Path, "not a spec manifest (no "
                               "'asmevo-spec-manifest: 1'; see "
                               "docs/spec-manifest.md)");
  return std::move(M);
}

/// A directory of launch specs: each one a rule for the kernels its
/// launches name, on every target.
static Expected<SpecManifest> loadDirectory(StringRef Dir) {
  SpecManifest M;
  M.Path = Dir.str();
  std::vector<std::string> Files;
  std::error_code EC;
  for (sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC;
       It.increment(EC)) {
    StringRef P = It->path();
    if (P.ends_with(".yaml") || P.ends_with(".yml"))
      Files.push_back(P.str());
  }
  if (EC)
    return createStringError(EC, Dir + ": cannot read the directory");
  llvm::sort(Files);
  for (const std::string &F : Files) {
    auto Spec = emu::LaunchSpec::load(F);
    if (!Spec)
      return Spec.takeError();
    for (const emu::SpecLaunch &L : Spec->Launches) {
      SpecRule R;
      R.Where = F;
      R.KernelGlob = L.Kernel;
      // The name is literal: escape what a glob would read.
      std::string Escaped;
      for (char C : L.Kernel) {
        if (StringRef("*?[]{}\\").contains(C))
          Escaped += '\\';
        Escaped += C;
      }
      if (Error E = R.setGlob(std::move(Escaped)))
        return createStringError(F + ": kernel '" + L.Kernel +
                                 "': " + toString(std::move(E)));
      R.SpecPath = F;
      M.Rules.push_back(std::move(R));
    }
  }
  if (M.Rules.empty())
    return createStringError(Dir + ": no launch spec (*.yaml) in the "
                                   "directory");
  return std::move(M);
}

Expected<SpecManifest> SpecManifest::load(StringRef Path) {
  if (sys::fs::is_directory(Path))
    return loadDirectory(Path);
  auto Buf = MemoryBuffer::getFile(Path);
  if (!Buf)
    return createStringError(Buf.getError(), Path + ": cannot read");
  return parse((*Buf)->getBuffer(), Path);
}

} // namespace asmevo
