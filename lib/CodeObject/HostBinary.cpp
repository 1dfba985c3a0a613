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
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstddef>
#include <optional>

using namespace llvm;
using namespace llvm::object;

namespace asmevo {

namespace {

constexpr StringLiteral FatbinSectionName = ".hip_fatbin";

Error hostError(StringRef FileName, const Twine &Msg) {
  return createStringError(std::make_error_code(std::errc::invalid_argument),
                           FileName + ": " + Msg);
}

/// True if [A, A+ASize) and [B, B+BSize) share a byte; sizes saturate, so
/// hostile sizes count as overlapping rather than wrapping around.
bool overlaps(uint64_t A, uint64_t ASize, uint64_t B, uint64_t BSize) {
  return ASize && BSize && A < SaturatingAdd(B, BSize) &&
         B < SaturatingAdd(A, ASize);
}

/// Fills Sec.Slack and Sec.SizeFieldOffset (see HipFatbinSection). The
/// slack ends at whatever comes first after the section in the file or in
/// memory: a section, a segment, a header table or the end of the PT_LOAD
/// segment that maps the section, and must be all zero bytes, so that using
/// it overwrites nothing and moves nothing.
void findSlack(const ELF64LEObjectFile &Obj, unsigned Index, StringRef Bytes,
               HipFatbinSection &Sec) {
  const ELFFile<ELF64LE> &F = Obj.getELFFile();
  const ELF64LE::Ehdr &H = F.getHeader();
  if ((H.e_type != ELF::ET_EXEC && H.e_type != ELF::ET_DYN) ||
      H.e_shentsize != sizeof(ELF64LE::Shdr))
    return;
  auto Phdrs = F.program_headers();
  auto Shdrs = F.sections();
  if (!Phdrs || !Shdrs) {
    consumeError(Phdrs.takeError());
    consumeError(Shdrs.takeError());
    return;
  }
  uint64_t Size = Sec.Contents.size();
  uint64_t End = Sec.FileOffset + Size, EndAddr = Sec.Address + Size;
  std::optional<uint64_t> Limit;
  for (const ELF64LE::Phdr &P : *Phdrs)
    if (P.p_type == ELF::PT_LOAD && P.p_offset <= Sec.FileOffset &&
        End <= SaturatingAdd<uint64_t>(P.p_offset, P.p_filesz) &&
        P.p_filesz <= P.p_memsz && P.p_vaddr <= Sec.Address &&
        Sec.Address - P.p_vaddr == Sec.FileOffset - P.p_offset)
      Limit = std::min<uint64_t>(P.p_offset + P.p_filesz, Bytes.size());
  if (!Limit || *Limit < End)
    return;
  uint64_t LimitAddr = EndAddr + (*Limit - End);
  auto BoundFile = [&](uint64_t Off) {
    if (Off >= End)
      Limit = std::min(*Limit, Off);
  };
  auto BoundMemory = [&](uint64_t Addr) {
    if (Addr >= EndAddr)
      LimitAddr = std::min(LimitAddr, Addr);
  };
  for (const ELF64LE::Phdr &P : *Phdrs) {
    if (P.p_filesz)
      BoundFile(P.p_offset);
    if (P.p_memsz)
      BoundMemory(P.p_vaddr);
  }
  for (unsigned I = 1; I < Shdrs->size(); ++I) {
    const ELF64LE::Shdr &S = (*Shdrs)[I];
    if (I == Index || S.sh_type == ELF::SHT_NULL)
      continue;
    bool InFile = S.sh_type != ELF::SHT_NOBITS;
    bool InMemory = S.sh_flags & ELF::SHF_ALLOC;
    // A section overlapping .hip_fatbin is a layout this does not
    // understand: no slack.
    if ((InFile && overlaps(S.sh_offset, S.sh_size, Sec.FileOffset, Size)) ||
        (InMemory && overlaps(S.sh_addr, S.sh_size, Sec.Address, Size)))
      return;
    if (InFile)
      BoundFile(S.sh_offset);
    if (InMemory)
      BoundMemory(S.sh_addr);
  }
  BoundFile(H.e_phoff);
  BoundFile(H.e_shoff);
  uint64_t Slack = std::min(*Limit - End, LimitAddr - EndAddr);
  if (Bytes.substr(End, Slack).find_first_not_of('\0') != StringRef::npos)
    return;
  Sec.Slack = Slack;
  Sec.SizeFieldOffset = H.e_shoff + uint64_t(Index) * sizeof(ELF64LE::Shdr) +
                        offsetof(ELF64LE::Shdr, sh_size);
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
    if (const auto *Elf64LE = dyn_cast<ELF64LEObjectFile>(Elf))
      findSlack(*Elf64LE, S.getIndex(), Bytes, Sec);
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
