//===- InputFile.cpp ------------------------------------------------------===//
#include "asmevo/CodeObject/InputFile.h"
#include "asmevo/CodeObject/HostBinary.h"
#include "asmevo/CodeObject/OffloadBundle.h"
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
    C.Bytes.assign(E.Data.begin(), E.Data.end());
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
