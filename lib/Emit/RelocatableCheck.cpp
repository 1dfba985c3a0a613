//===- RelocatableCheck.cpp - What lld may be given -----------------------===//
//
// lld trusts the structure of its inputs more than we may: a relocation
// past its section's end is written there (a crash in AMDGPU::relocate), a
// section count or size that does not fit ends in report_fatal_error. Every
// relocatable object goes through this check before it reaches lld.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Emit/RelocatableCheck.h"
#include "llvm/ADT/Twine.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"

using namespace llvm;
using namespace llvm::object;
using namespace asmevo;

using ELFT = ELF64LE;

/// Bytes an AMDGPU relocation writes, 0 for an unknown type.
static unsigned relocWidth(uint32_t Type) {
  switch (Type) {
  case ELF::R_AMDGPU_NONE:
    return 0;
  case ELF::R_AMDGPU_ABS64:
  case ELF::R_AMDGPU_REL64:
  case ELF::R_AMDGPU_RELATIVE64:
    return 8;
  case ELF::R_AMDGPU_ABS32_LO:
  case ELF::R_AMDGPU_ABS32_HI:
  case ELF::R_AMDGPU_REL32:
  case ELF::R_AMDGPU_ABS32:
  case ELF::R_AMDGPU_GOTPCREL:
  case ELF::R_AMDGPU_GOTPCREL32_LO:
  case ELF::R_AMDGPU_GOTPCREL32_HI:
  case ELF::R_AMDGPU_REL32_LO:
  case ELF::R_AMDGPU_REL32_HI:
    return 4;
  case ELF::R_AMDGPU_REL16:
    return 2;
  default:
    return ~0u;
  }
}

Error asmevo::checkRelocatable(ArrayRef<uint8_t> Obj, StringRef Name) {
  auto Fail = [&](const Twine &Why) {
    return createStringError(Name + ": " + Why);
  };
  StringRef Data(reinterpret_cast<const char *>(Obj.data()), Obj.size());
  if (Data.size() < sizeof(ELFT::Ehdr) ||
      !Data.starts_with("\x7f"
                        "ELF") ||
      Data[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      Data[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return Fail("not a 64-bit little-endian ELF object");
  auto FileOrErr = ELFFile<ELFT>::create(Data);
  if (!FileOrErr)
    return Fail(toString(FileOrErr.takeError()));
  const ELFFile<ELFT> &File = *FileOrErr;
  const auto &H = File.getHeader();
  if (H.e_machine != ELF::EM_AMDGPU)
    return Fail("e_machine is " + Twine(H.e_machine) + ", not EM_AMDGPU (224)");
  if (H.e_type != ELF::ET_REL)
    return Fail("e_type is " + Twine(H.e_type) +
                ", not ET_REL (a relocatable object)");
  if (H.e_phnum != 0)
    return Fail("a relocatable object with " + Twine(H.e_phnum) +
                " program headers");
  auto SecsOrErr = File.sections();
  if (!SecsOrErr)
    return Fail(toString(SecsOrErr.takeError()));
  auto Secs = *SecsOrErr;
  auto SecName = [&](const ELFT::Shdr &S) -> std::string {
    auto N = File.getSectionName(S);
    if (!N) {
      consumeError(N.takeError());
      return "#" + std::to_string(&S - Secs.begin());
    }
    return "'" + N->str() + "'";
  };
  for (const auto &S : Secs) {
    auto NameOrErr = File.getSectionName(S);
    if (!NameOrErr)
      return Fail(toString(NameOrErr.takeError()));
    if (S.sh_type != ELF::SHT_NOBITS && S.sh_type != ELF::SHT_NULL &&
        (S.sh_offset > Obj.size() || S.sh_size > Obj.size() - S.sh_offset))
      return Fail("section " + SecName(S) + " [offset 0x" +
                  Twine::utohexstr(S.sh_offset) + ", size 0x" +
                  Twine::utohexstr(S.sh_size) +
                  "] extends past the end of the file");
    if (S.sh_addralign > (1ull << 32) ||
        (S.sh_addralign & (S.sh_addralign - 1)))
      return Fail("section " + SecName(S) + ": sh_addralign " +
                  Twine(S.sh_addralign) + " is not a power of two up to 2^32");
    if (S.sh_flags & ELF::SHF_EXECINSTR && S.sh_type != ELF::SHT_PROGBITS)
      return Fail("section " + SecName(S) + ": executable, but sh_type " +
                  Twine(S.sh_type) + " is not SHT_PROGBITS");
  }
  // Symbols: names inside the string table, sections that exist.
  uint64_t NumSyms = 0;
  unsigned SymtabIndex = 0;
  for (const auto &S : Secs) {
    if (S.sh_type != ELF::SHT_SYMTAB)
      continue;
    if (SymtabIndex)
      return Fail("more than one symbol table");
    SymtabIndex = &S - Secs.begin();
    if (S.sh_entsize != sizeof(ELFT::Sym))
      return Fail("symbol table " + SecName(S) + ": sh_entsize " +
                  Twine(S.sh_entsize) + ", not " + Twine(sizeof(ELFT::Sym)));
    auto SymsOrErr = File.symbols(&S);
    if (!SymsOrErr)
      return Fail(toString(SymsOrErr.takeError()));
    auto StrOrErr = File.getStringTableForSymtab(S);
    if (!StrOrErr)
      return Fail(toString(StrOrErr.takeError()));
    if (S.sh_info > SymsOrErr->size())
      return Fail("symbol table " + SecName(S) + ": sh_info " +
                  Twine(S.sh_info) + " (first global) is past its " +
                  Twine(SymsOrErr->size()) + " symbols");
    NumSyms = SymsOrErr->size();
    for (size_t I = 0; I < SymsOrErr->size(); ++I) {
      const auto &Sym = (*SymsOrErr)[I];
      if (Sym.st_name >= StrOrErr->size() && Sym.st_name != 0)
        return Fail("symbol " + Twine(I) + ": st_name " + Twine(Sym.st_name) +
                    " is past the string table");
      uint16_t Sh = Sym.st_shndx;
      if (Sh != ELF::SHN_UNDEF && Sh != ELF::SHN_ABS && Sh != ELF::SHN_COMMON &&
          Sh >= Secs.size())
        return Fail("symbol " + Twine(I) + ": st_shndx " + Twine(Sh) +
                    " names no section");
    }
  }
  // Relocations: of a known AMDGPU kind, against a symbol that exists,
  // writing inside the section they apply to.
  for (const auto &S : Secs) {
    if (S.sh_type != ELF::SHT_RELA && S.sh_type != ELF::SHT_REL)
      continue;
    std::string RName = SecName(S);
    if (S.sh_type == ELF::SHT_REL)
      return Fail("relocation section " + RName +
                  " is SHT_REL; AMDGPU uses SHT_RELA");
    if (S.sh_entsize != sizeof(ELFT::Rela))
      return Fail("relocation section " + RName + ": sh_entsize " +
                  Twine(S.sh_entsize) + ", not " + Twine(sizeof(ELFT::Rela)));
    if (S.sh_link != SymtabIndex || !SymtabIndex)
      return Fail("relocation section " + RName + ": sh_link " +
                  Twine(S.sh_link) + " is not the symbol table");
    if (S.sh_info == 0 || S.sh_info >= Secs.size())
      return Fail("relocation section " + RName + ": sh_info " +
                  Twine(S.sh_info) + " names no section");
    const auto &Target = Secs[S.sh_info];
    auto RelsOrErr = File.relas(S);
    if (!RelsOrErr)
      return Fail(toString(RelsOrErr.takeError()));
    for (size_t I = 0; I < RelsOrErr->size(); ++I) {
      const auto &R = (*RelsOrErr)[I];
      uint32_t Type = R.getType(false);
      unsigned W = relocWidth(Type);
      auto Where = [&] {
        return "relocation " + std::to_string(I) + " of " + RName;
      };
      if (W == ~0u)
        return Fail(Where() + ": unknown AMDGPU relocation type " +
                    Twine(Type));
      if (R.getSymbol(false) >= NumSyms)
        return Fail(Where() + ": symbol index " + Twine(R.getSymbol(false)) +
                    " is past the " + Twine(NumSyms) + " symbols");
      if (Target.sh_type == ELF::SHT_NOBITS && W)
        return Fail(Where() + " applies to NOBITS section " + SecName(Target));
      if (R.r_offset > Target.sh_size || W > Target.sh_size - R.r_offset)
        return Fail(Where() + ": offset 0x" + Twine::utohexstr(R.r_offset) +
                    " (" + Twine(W) + " bytes) is outside section " +
                    SecName(Target) + " (0x" +
                    Twine::utohexstr(Target.sh_size) + " bytes)");
    }
  }
  return Error::success();
}
