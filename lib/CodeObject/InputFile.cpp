//===- InputFile.cpp ------------------------------------------------------===//
#include "asmevo/CodeObject/InputFile.h"
#include "asmevo/CodeObject/HostBinary.h"
#include "asmevo/CodeObject/OffloadBundle.h"
#include "asmevo/CodeObject/TargetInfo.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"

using namespace llvm;
using namespace asmevo;

bool asmevo::isAMDGPUCodeObject(StringRef B) {
  return B.size() >= 20 && B.starts_with("\x7f"
                                         "ELF") &&
         support::endian::read16le(B.data() + 18) == ELF::EM_AMDGPU;
}

InputKind asmevo::classifyInput(StringRef Path, StringRef Bytes) {
  if (Path.ends_with(".mir"))
    return InputKind::MIR;
  if (Path.ends_with(".s") || Path.ends_with(".asm"))
    return InputKind::Assembly;
  if (looksLikeOffloadBundle(Bytes))
    return InputKind::OffloadBundle;
  if (Bytes.starts_with("\x7f"
                        "ELF"))
    return isAMDGPUCodeObject(Bytes) || !looksLikeHostELF(Bytes)
               ? InputKind::CodeObject
               : InputKind::HostBinary;
  if (Bytes.starts_with("---") || Bytes.contains("\nbody:"))
    return InputKind::MIR;
  return InputKind::Unknown;
}

/// A bundle entry's target id ("gfx942:xnack-") must describe the object
/// it holds: otherwise a loader picking entries by id would run code built
/// for another processor or feature set.
static Error checkEntryTarget(const BundleEntry &E, StringRef D,
                              const Twine &Where) {
  if (E.TargetID.empty() || D.size() < 64)
    return Error::success();
  uint32_t EFlags = support::endian::read32le(D.data() + 48);
  auto TI = TargetInfo::fromELF(EFlags, uint8_t(D[ELF::EI_OSABI]),
                                uint8_t(D[ELF::EI_ABIVERSION]));
  if (!TI) {
    // A target we do not support: reading it says so, naming the object.
    consumeError(TI.takeError());
    return Error::success();
  }
  SmallVector<StringRef, 4> Parts;
  StringRef(E.TargetID).split(Parts, ':');
  auto Mismatch = [&](const Twine &Why) {
    return createStringError(Where + ": the bundle entry's target id '" +
                             E.TargetID + "' " + Why + " (e_flags 0x" +
                             Twine::utohexstr(EFlags) + ": " + TI->targetID() +
                             ")");
  };
  if (Parts[0] != TI->Processor)
    return Mismatch("does not match its code object, which is for " +
                    TI->Processor);
  for (StringRef F : ArrayRef(Parts).drop_front()) {
    if (F.size() < 2 || (F.back() != '+' && F.back() != '-'))
      continue;
    StringRef Name = F.drop_back();
    TargetFeature Have = Name == "xnack"     ? TI->Xnack
                         : Name == "sramecc" ? TI->Sramecc
                                             : TargetFeature::Any;
    TargetFeature Want =
        F.back() == '+' ? TargetFeature::On : TargetFeature::Off;
    if ((Have == TargetFeature::On || Have == TargetFeature::Off) &&
        Have != Want)
      return Mismatch("says " + F + ", but its code object was built " + Name +
                      (Have == TargetFeature::On ? "+" : "-"));
  }
  return Error::success();
}

static Expected<std::vector<InputCodeObject>>
fromBundles(Expected<std::vector<BundleEntry>> Entries, StringRef Path) {
  if (!Entries)
    return Entries.takeError();
  std::vector<InputCodeObject> Out;
  unsigned I = 0;
  for (const BundleEntry &E : *Entries) {
    ++I;
    StringRef D(reinterpret_cast<const char *>(E.Data.data()), E.Data.size());
    if (!isAMDGPUCodeObject(D))
      continue; // host entries and empty placeholders
    InputCodeObject C;
    C.Name = (Path + ":#" + Twine(I) + "(" + E.Id + ")").str();
    if (Error Err = checkEntryTarget(E, D, C.Name))
      return std::move(Err);
    C.Bytes.assign(E.Data.begin(), E.Data.end());
    C.EntryIndex = I - 1;
    C.TargetID = E.TargetID;
    Out.push_back(std::move(C));
  }
  if (Out.empty())
    return createStringError(Path + ": no AMDGPU code object in the bundle");
  return Out;
}

Expected<std::vector<InputCodeObject>>
asmevo::extractCodeObjects(StringRef Bytes, StringRef Path) {
  switch (classifyInput(Path, Bytes)) {
  case InputKind::CodeObject: {
    std::vector<InputCodeObject> Out(1);
    Out[0].Name = Path.str();
    Out[0].Bytes.assign(Bytes.begin(), Bytes.end());
    return Out;
  }
  case InputKind::OffloadBundle:
    return fromBundles(readOffloadBundles(Bytes, Path), Path);
  case InputKind::HostBinary:
    return fromBundles(readHostFatbin(Bytes, Path), Path);
  default:
    return createStringError(Path + ": not a code object, offload bundle or "
                                    "HIP host binary");
  }
}
