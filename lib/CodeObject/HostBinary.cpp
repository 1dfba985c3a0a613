//===- HostBinary.cpp - HIP fat binaries in host ELF files ----------------===//
//
// Part of AsmEvo, a post-link optimizer for AMD GPU code objects.
//
//===----------------------------------------------------------------------===//

#include "asmevo/CodeObject/HostBinary.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBufferRef.h"

using namespace llvm;
using namespace llvm::object;

namespace asmevo {

namespace {

constexpr StringLiteral FatbinSectionName = ".hip_fatbin";

Error hostError(StringRef FileName, const Twine &Msg) {
  return createStringError(std::make_error_code(std::errc::invalid_argument),
                           FileName + ": " + Msg);
}

} // namespace

bool looksLikeHostELF(StringRef Bytes) {
  // e_ident (16 bytes), e_type (2), e_machine (2).
  if (Bytes.size() < 20 || !Bytes.starts_with("\x7f"
                                              "ELF"))
    return false;
  uint8_t Class = Bytes[ELF::EI_CLASS];
  uint8_t Data = Bytes[ELF::EI_DATA];
  if ((Class != ELF::ELFCLASS32 && Class != ELF::ELFCLASS64) ||
      (Data != ELF::ELFDATA2LSB && Data != ELF::ELFDATA2MSB))
    return false;
  uint16_t Machine = Data == ELF::ELFDATA2LSB
                         ? support::endian::read16le(Bytes.data() + 18)
                         : support::endian::read16be(Bytes.data() + 18);
  return Machine != ELF::EM_AMDGPU;
}

Expected<HipFatbinSection> findHipFatbinSection(StringRef Bytes,
                                                StringRef FileName) {
  Expected<std::unique_ptr<ObjectFile>> ObjOrErr =
      ObjectFile::createObjectFile(MemoryBufferRef(Bytes, FileName));
  if (!ObjOrErr)
    return hostError(FileName, "not a valid object file: " +
                                   toString(ObjOrErr.takeError()));
  const auto *Elf = dyn_cast<ELFObjectFileBase>(ObjOrErr->get());
  if (!Elf)
    return hostError(FileName, "not an ELF file");
  if (Elf->getEMachine() == ELF::EM_AMDGPU)
    return hostError(FileName, "is an AMDGPU code object, not a host binary");

  std::optional<HipFatbinSection> Found;
  for (const SectionRef &S : Elf->sections()) {
    Expected<StringRef> NameOrErr = S.getName();
    if (!NameOrErr)
      return hostError(FileName, "cannot read the name of section " +
                                     Twine(S.getIndex()) + ": " +
                                     toString(NameOrErr.takeError()));
    if (*NameOrErr != FatbinSectionName)
      continue;
    if (Found)
      return hostError(FileName, "more than one " + FatbinSectionName +
                                     " section (second is section " +
                                     Twine(S.getIndex()) + ")");
    ELFSectionRef ES(S);
    if (ES.getType() == ELF::SHT_NOBITS)
      return hostError(FileName, FatbinSectionName +
                                     " section has no contents (SHT_NOBITS)");
    Expected<StringRef> ContentsOrErr = S.getContents();
    if (!ContentsOrErr)
      return hostError(FileName,
                       "cannot read the " + FatbinSectionName +
                           " section: " + toString(ContentsOrErr.takeError()));
    HipFatbinSection Sec;
    Sec.Contents = *ContentsOrErr;
    Sec.FileOffset = ES.getOffset();
    Sec.Address = S.getAddress();
    Sec.Alignment = S.getAlignment().value();
    Found = Sec;
  }
  if (!Found)
    return hostError(FileName, "no " + FatbinSectionName +
                                   " section: not a HIP host binary, or its "
                                   "device code is stored elsewhere");
  return *Found;
}

Expected<std::vector<BundleEntry>> readHostFatbin(StringRef Bytes,
                                                  StringRef FileName) {
  Expected<HipFatbinSection> SecOrErr = findHipFatbinSection(Bytes, FileName);
  if (!SecOrErr)
    return SecOrErr.takeError();
  return readOffloadBundles(SecOrErr->Contents, FileName, FatbinSectionName);
}

} // namespace asmevo
