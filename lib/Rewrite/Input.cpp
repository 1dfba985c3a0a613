//===- Input.cpp - Reading and writing back what the rewriter works on ----===//
#include "asmevo/Rewrite/Input.h"
#include "asmevo/CodeObject/BundleWriter.h"
#include "asmevo/CodeObject/HostBinary.h"
#include "asmevo/CodeObject/OffloadBundle.h"
#include "asmevo/CodeObject/TargetInfo.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"
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
    In.ModuleEntries.push_back(0);
    return std::move(In);
  }
  Expected<std::vector<InputCodeObject>> COs = std::vector<InputCodeObject>();
  if (In.Kind == InputKind::Assembly) {
    auto Linked = assembleAndLink(Bytes, Path);
    if (!Linked)
      return Linked.takeError();
    COs->push_back({Path.str(), std::move(*Linked), 0, ""});
  } else {
    COs = extractCodeObjects(Bytes, Path);
  }
  if (!COs)
    return COs.takeError();
  for (InputCodeObject &ICO : *COs) {
    // In a container, a target we do not optimize is carried along: a
    // library is built for every GPU it supports, and the others are not
    // ours to refuse.
    if (In.isContainer()) {
      StringRef D(reinterpret_cast<const char *>(ICO.Bytes.data()),
                  ICO.Bytes.size());
      auto TI = D.size() >= 64
                    ? TargetInfo::fromELF(
                          support::endian::read32le(D.data() + 48),
                          uint8_t(D[ELF::EI_OSABI]),
                          uint8_t(D[ELF::EI_ABIVERSION]))
                    : Expected<TargetInfo>(createStringError("truncated"));
      if (!TI) {
        PassThroughObject P;
        P.Name = ICO.Name;
        P.TargetID = ICO.TargetID;
        P.Reason = toString(TI.takeError());
        P.EntryIndex = ICO.EntryIndex;
        P.Bytes = std::move(ICO.Bytes);
        In.PassThrough.push_back(std::move(P));
        continue;
      }
    }
    auto CO = CodeObject::create(ArrayRef<uint8_t>(ICO.Bytes), ICO.Name);
    if (!CO)
      return CO.takeError();
    auto LM = LiftedModule::lift(std::move(*CO), LO);
    if (!LM)
      return LM.takeError();
    In.Modules.push_back(std::move(*LM));
    In.ModuleEntries.push_back(ICO.EntryIndex);
  }
  return std::move(In);
}

Expected<std::vector<uint8_t>>
writeContainer(const RewriteInput &In,
               ArrayRef<std::optional<std::vector<uint8_t>>> NewObjects,
               std::vector<std::string> &Warnings, bool AllowCompress) {
  StringRef Bytes = In.bytes();
  if (NewObjects.size() != In.Modules.size())
    return createStringError(In.Path + ": expected " +
                             Twine(In.Modules.size()) + " code objects, got " +
                             Twine(NewObjects.size()));
  // Nothing changed means nothing changed: not even a relayout.
  if (llvm::none_of(NewObjects, [](const auto &N) { return N.has_value(); }))
    return std::vector<uint8_t>(Bytes.begin(), Bytes.end());
  auto Entries = In.Kind == InputKind::HostBinary
                     ? readHostFatbin(Bytes, In.Path)
                     : readOffloadBundles(Bytes, In.Path);
  if (!Entries)
    return Entries.takeError();
  std::vector<std::vector<uint8_t>> NewData(Entries->size());
  for (unsigned I = 0; I < NewObjects.size(); ++I) {
    unsigned E = In.ModuleEntries[I];
    if (E >= Entries->size())
      return createStringError(In.Path + ": bundle entries changed under us");
    // An empty entry tells the writers to keep the original bytes.
    if (NewObjects[I])
      NewData[E] = *NewObjects[I];
  }
  if (In.Kind == InputKind::HostBinary)
    return rewriteHostFatbin(Bytes, In.Path, *Entries, NewData, Warnings,
                             AllowCompress);
  return rewriteBundles(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Bytes.data()),
                        Bytes.size()),
      *Entries, NewData, In.Path, /*AllowGrowth=*/true);
}

/// An existing output that is not a regular file or a directory.
static bool isSpecialFile(StringRef Path) {
  sys::fs::file_status St;
  if (sys::fs::status(Path, St) || !sys::fs::exists(St))
    return false;
  return !sys::fs::is_regular_file(St) && !sys::fs::is_directory(St);
}

Error writeOutputFile(StringRef Path, StringRef Bytes, StringRef ModeFrom) {
  if (Path == "-") {
    outs() << Bytes;
    return Error::success();
  }
  if (isSpecialFile(Path)) {
    // A device or a pipe (/dev/null, /dev/stdout, a FIFO): renaming a
    // temporary file over it would replace the device itself (as root,
    // /dev/null became a regular file that way), so write into it.
    std::error_code EC;
    raw_fd_ostream OS(Path, EC, sys::fs::OF_None);
    if (!EC) {
      OS << Bytes;
      OS.flush();
      EC = OS.error();
      OS.clear_error();
    }
    if (EC)
      return createStringError(EC, "cannot write " + Path + ": " + EC.message());
    return Error::success();
  }
  // The temporary file is in the output's directory, so that the rename is
  // atomic; an unwritable directory fails here, before anything exists.
  auto Temp = sys::fs::TempFile::create(Path + ".tmp-%%%%%%");
  if (!Temp) {
    std::error_code EC = errorToErrorCode(Temp.takeError());
    return createStringError(EC, "cannot write " + Path + ": " + EC.message());
  }
  auto Discard = [&](std::error_code EC, const Twine &What) {
    consumeError(Temp->discard());
    return createStringError(EC, What + " " + Path + ": " + EC.message());
  };
  {
    raw_fd_ostream OS(Temp->FD, /*shouldClose=*/false);
    OS << Bytes;
    OS.flush();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      return Discard(EC, "cannot write");
    }
  }
  if (!ModeFrom.empty()) {
    auto Perms = sys::fs::getPermissions(ModeFrom);
    if (Perms)
      if (std::error_code PEC = sys::fs::setPermissions(Temp->FD, *Perms))
        return Discard(PEC, "cannot set the permissions of");
  }
  if (Error E = Temp->keep(Path)) {
    std::error_code EC = errorToErrorCode(std::move(E));
    return createStringError(EC, "cannot write " + Path + ": " + EC.message());
  }
  return Error::success();
}

Error checkOutputWritable(StringRef Path) {
  if (Path == "-" || isSpecialFile(Path))
    return Error::success();
  auto Temp = sys::fs::TempFile::create(Path + ".tmp-%%%%%%");
  if (!Temp) {
    std::error_code EC = errorToErrorCode(Temp.takeError());
    return createStringError(EC, "cannot write " + Path + ": " + EC.message());
  }
  return Temp->discard();
}

} // namespace asmevo
