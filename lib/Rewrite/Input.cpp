//===- Input.cpp - Reading and writing back what the rewriter works on ----===//
#include "asmevo/Rewrite/Input.h"
#include "asmevo/CodeObject/BundleWriter.h"
#include "asmevo/CodeObject/HostBinary.h"
#include "asmevo/CodeObject/OffloadBundle.h"
#include "asmevo/Emit/AsmText.h"
#include "asmevo/Emit/Rebuild.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace asmevo {

Expected<std::vector<uint8_t>> assembleAndLink(StringRef Text,
                                               StringRef Path) {
  auto Obj = assemble(Text, Path);
  if (!Obj)
    return Obj.takeError();
  std::vector<std::string> Args;
  size_t P = Text.find(lldArgsCommentTag());
  if (P != StringRef::npos) {
    StringRef Line =
        Text.drop_front(P + lldArgsCommentTag().size()).split('\n').first;
    SmallVector<StringRef, 4> Parts;
    Line.split(Parts, ' ', -1, false);
    // Only the build id: the rest of lld's arguments come from the target,
    // and text must not choose linker options.
    for (StringRef A : Parts)
      if (A.starts_with("--build-id="))
        Args.push_back(A.str());
  }
  auto Linked = linkRelocatable(*Obj, Args);
  if (!Linked)
    return createStringError(Path + ": " + toString(Linked.takeError()));
  return std::move(*Linked);
}

Expected<RewriteInput> loadRewriteInput(StringRef Path,
                                        const LiftOptions &LO) {
  RewriteInput In;
  In.Path = Path.str();
  auto BufOrErr = MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/false,
                                               /*RequiresNullTerminator=*/false);
  if (!BufOrErr)
    return createStringError(BufOrErr.getError(), Path + ": cannot read");
  In.Buffer = std::move(*BufOrErr);
  StringRef Bytes = In.bytes();
  In.Kind = classifyInput(Path, Bytes);
  if (In.Kind == InputKind::MIR) {
    auto LM = LiftedModule::parseMIR(Bytes, Path);
    if (!LM)
      return LM.takeError();
    In.Modules.push_back(std::move(*LM));
    return std::move(In);
  }
  Expected<std::vector<InputCodeObject>> COs = std::vector<InputCodeObject>();
  if (In.Kind == InputKind::Assembly) {
    auto Linked = assembleAndLink(Bytes, Path);
    if (!Linked)
      return Linked.takeError();
    COs->push_back({Path.str(), std::move(*Linked)});
  } else {
    COs = extractCodeObjects(Bytes, Path);
  }
  if (!COs)
    return COs.takeError();
  for (InputCodeObject &ICO : *COs) {
    auto CO = CodeObject::create(ArrayRef<uint8_t>(ICO.Bytes), ICO.Name);
    if (!CO)
      return CO.takeError();
    auto LM = LiftedModule::lift(std::move(*CO), LO);
    if (!LM)
      return LM.takeError();
    In.Modules.push_back(std::move(*LM));
  }
  return std::move(In);
}

Expected<std::vector<uint8_t>>
writeContainer(const RewriteInput &In,
               ArrayRef<std::optional<std::vector<uint8_t>>> NewObjects,
               std::vector<std::string> &Warnings) {
  StringRef Bytes = In.bytes();
  auto Entries = In.Kind == InputKind::HostBinary
                     ? readHostFatbin(Bytes, In.Path)
                     : readOffloadBundles(Bytes, In.Path);
  if (!Entries)
    return Entries.takeError();
  std::vector<std::vector<uint8_t>> NewData(Entries->size());
  unsigned Next = 0;
  for (unsigned I = 0; I < Entries->size(); ++I) {
    const auto &D = (*Entries)[I].Data;
    if (!isAMDGPUCodeObject(
            StringRef(reinterpret_cast<const char *>(D.data()), D.size())))
      continue;
    if (Next >= NewObjects.size())
      return createStringError(In.Path + ": bundle entries changed under us");
    const auto &New = NewObjects[Next++];
    // An empty entry tells the writers to keep the original bytes.
    if (New)
      NewData[I] = *New;
  }
  if (In.Kind == InputKind::HostBinary)
    return rewriteHostFatbin(Bytes, In.Path, *Entries, NewData, Warnings);
  return rewriteBundles(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Bytes.data()),
                        Bytes.size()),
      *Entries, NewData, In.Path, /*AllowGrowth=*/true);
}

Error writeOutputFile(StringRef Path, StringRef Bytes, StringRef ModeFrom) {
  if (Path == "-") {
    outs() << Bytes;
    return Error::success();
  }
  std::error_code EC;
  ToolOutputFile Out(Path, EC, sys::fs::OF_None);
  if (EC)
    return createStringError(EC, "cannot open " + Path);
  Out.os() << Bytes;
  Out.os().close();
  if (Out.os().has_error())
    return createStringError(Out.os().error(), "cannot write " + Path);
  if (!ModeFrom.empty()) {
    auto Perms = sys::fs::getPermissions(ModeFrom);
    if (Perms)
      if (std::error_code PEC = sys::fs::setPermissions(Path, *Perms))
        return createStringError(PEC, "cannot set the permissions of " + Path);
  }
  Out.keep();
  return Error::success();
}

} // namespace asmevo
