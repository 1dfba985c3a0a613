//===- CodeObject.cpp - Reading an AMDGPU ELF code object -----------------===//
//
// All reads go through llvm::object::ELFFile, which bounds-checks headers and
// tables; everything we index ourselves is checked here again, because the
// input may be truncated or hostile.
//
//===----------------------------------------------------------------------===//
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/CodeObject/MetadataSchema.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <map>

using namespace llvm;
using namespace llvm::object;
using namespace asmevo;

using ELFT = ELF64LE;

bool ELFSection::isAlloc() const { return Flags & ELF::SHF_ALLOC; }
bool ELFSection::isExec() const { return Flags & ELF::SHF_EXECINSTR; }

Expected<std::unique_ptr<CodeObject>>
CodeObject::create(std::unique_ptr<MemoryBuffer> Buffer, StringRef Name) {
  std::unique_ptr<CodeObject> CO(new CodeObject());
  CO->Name = Name.str();
  CO->Image = ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(Buffer->getBufferStart()),
      Buffer->getBufferSize());
  CO->Owned = std::move(Buffer);
  if (Error E = CO->parse())
    return std::move(E);
  return std::move(CO);
}

Expected<std::unique_ptr<CodeObject>>
CodeObject::create(ArrayRef<uint8_t> Bytes, StringRef Name) {
  std::unique_ptr<CodeObject> CO(new CodeObject());
  CO->Name = Name.str();
  CO->OwnedCopy.assign(Bytes.begin(), Bytes.end());
  CO->Image = CO->OwnedCopy;
  if (Error E = CO->parse())
    return std::move(E);
  return std::move(CO);
}

/// The ELF view of an image parse() has already validated the header of.
static ELFFile<ELFT> elfFile(ArrayRef<uint8_t> Image) {
  return cantFail(ELFFile<ELFT>::create(
      StringRef(reinterpret_cast<const char *>(Image.data()), Image.size())));
}

static Error prefix(const Twine &P, Error E) {
  return handleErrors(std::move(E), [&](const ErrorInfoBase &EI) {
    return createStringError(P + ": " + EI.message());
  });
}

/// The dynamic symbol table is a subset of .symtab in everything a linker
/// writes; when they disagree, the rebuild could follow only one of them.
static Error checkSymbolTablesAgree(ArrayRef<ELFSymbol> Symtab,
                                    ArrayRef<ELFSymbol> Dynsym) {
  if (Symtab.empty())
    return Error::success();
  for (const ELFSymbol &D : Dynsym) {
    if (D.Name.empty() || D.SectionIndex == ELF::SHN_UNDEF)
      continue;
    bool Found = llvm::any_of(Symtab, [&](const ELFSymbol &S) {
      return S.Name == D.Name && S.Value == D.Value && S.Size == D.Size;
    });
    if (!Found)
      return createStringError(
          "symbol tables disagree: .dynsym has '%s' (value 0x%llx, size "
          "%llu), .symtab has no such symbol",
          D.Name.c_str(), (unsigned long long)D.Value,
          (unsigned long long)D.Size);
  }
  return Error::success();
}

Error CodeObject::parse() {
  StringRef Data(reinterpret_cast<const char *>(Image.data()), Image.size());
  if (Data.size() < sizeof(ELFT::Ehdr) || !Data.starts_with("\x7f"
                                                            "ELF"))
    return createStringError(Name + ": not an ELF file");
  if (Data[ELF::EI_CLASS] != ELF::ELFCLASS64 ||
      Data[ELF::EI_DATA] != ELF::ELFDATA2LSB)
    return createStringError(Name +
                             ": not a 64-bit little-endian ELF code object");
  auto FileOrErr = ELFFile<ELFT>::create(Data);
  if (!FileOrErr)
    return prefix(Name, FileOrErr.takeError());
  const auto &Hdr = FileOrErr->getHeader();
  if (Hdr.e_machine != ELF::EM_AMDGPU)
    return createStringError(Name + ": e_machine is " + Twine(Hdr.e_machine) +
                             ", not EM_AMDGPU (224)");
  ELFType = Hdr.e_type;
  auto TOrErr = TargetInfo::fromELF(Hdr.e_flags, Hdr.e_ident[ELF::EI_OSABI],
                                    Hdr.e_ident[ELF::EI_ABIVERSION]);
  if (!TOrErr)
    return prefix(Name, TOrErr.takeError());
  Target = *TOrErr;
  if (Error E = parseSections())
    return prefix(Name, std::move(E));
  if (Error E = parseSymbols())
    return prefix(Name, std::move(E));
  if (Error E = checkSymbolTablesAgree(Symbols, DynSymbols))
    return prefix(Name, std::move(E));
  if (Error E = parseNotes())
    return prefix(Name, std::move(E));
  if (Error E = parseDynamicRelocations())
    return prefix(Name, std::move(E));
  if (Error E = parseKernels())
    return prefix(Name, std::move(E));
  computeCodeRanges();
  return Error::success();
}

Error CodeObject::parseSections() {
  ELFFile<ELFT> File = elfFile(Image);
  auto SecsOrErr = File.sections();
  if (!SecsOrErr)
    return SecsOrErr.takeError();
  unsigned Idx = 0;
  for (const auto &Sec : *SecsOrErr) {
    ELFSection S;
    S.Index = Idx++;
    auto NameOrErr = File.getSectionName(Sec);
    if (!NameOrErr)
      return NameOrErr.takeError();
    S.Name = NameOrErr->str();
    S.Type = Sec.sh_type;
    S.Flags = Sec.sh_flags;
    S.Addr = Sec.sh_addr;
    S.Offset = Sec.sh_offset;
    S.Size = Sec.sh_size;
    S.Align = Sec.sh_addralign;
    S.EntSize = Sec.sh_entsize;
    S.Link = Sec.sh_link;
    S.Info = Sec.sh_info;
    if (S.Type != ELF::SHT_NOBITS && S.Type != ELF::SHT_NULL) {
      if (S.Offset > Image.size() || S.Size > Image.size() - S.Offset)
        return createStringError(
            "section '%s' [offset 0x%llx, size 0x%llx] extends past the end "
            "of the file (0x%zx bytes)",
            S.Name.c_str(), (unsigned long long)S.Offset,
            (unsigned long long)S.Size, Image.size());
      S.Bytes = Image.slice(S.Offset, S.Size);
    }
    if (S.isAlloc() && S.Addr + S.Size < S.Addr)
      return createStringError("section '%s' wraps the address space",
                               S.Name.c_str());
    // GPU virtual addresses have 48 bits; staying below keeps every code
    // address clear of the keys DenseMap reserves (~0, ~1).
    if (S.isAlloc() && S.Addr + S.Size > (1ull << 48))
      return createStringError("section '%s' [sh_addr 0x%llx, sh_size 0x%llx] "
                               "ends above the 48-bit address space",
                               S.Name.c_str(), (unsigned long long)S.Addr,
                               (unsigned long long)S.Size);
    // Everything that reads a loaded address (bytesAt, the lifter, the
    // emitter) relies on an allocated section having its bytes in the file
    // (or being NOBITS): a null section that claims addresses has neither,
    // and code can only be PROGBITS.
    if (S.isAlloc() && S.Type == ELF::SHT_NULL && S.Size)
      return createStringError("section '%s': sh_type is SHT_NULL (0), but "
                               "the section is allocated (sh_flags 0x%llx)",
                               S.Name.c_str(), (unsigned long long)S.Flags);
    if (S.isExec() && S.Type != ELF::SHT_PROGBITS)
      return createStringError("section '%s': sh_type is %u, but an "
                               "executable section must be SHT_PROGBITS (1)",
                               S.Name.c_str(), S.Type);
    Sections.push_back(std::move(S));
  }
  return Error::success();
}

Error CodeObject::parseSymbols() {
  ELFFile<ELFT> File = elfFile(Image);
  auto SecsOrErr = File.sections();
  if (!SecsOrErr)
    return SecsOrErr.takeError();
  for (const auto &Sec : *SecsOrErr) {
    if (Sec.sh_type != ELF::SHT_SYMTAB && Sec.sh_type != ELF::SHT_DYNSYM)
      continue;
    auto SymsOrErr = File.symbols(&Sec);
    if (!SymsOrErr)
      return SymsOrErr.takeError();
    auto StrTabOrErr = File.getStringTableForSymtab(Sec);
    if (!StrTabOrErr)
      return StrTabOrErr.takeError();
    auto &Out = Sec.sh_type == ELF::SHT_SYMTAB ? Symbols : DynSymbols;
    bool First = true;
    for (const auto &Sym : *SymsOrErr) {
      if (First) { // The null symbol.
        First = false;
        continue;
      }
      auto NameOrErr = Sym.getName(*StrTabOrErr);
      if (!NameOrErr)
        return NameOrErr.takeError();
      ELFSymbol S;
      S.Name = NameOrErr->str();
      S.Value = Sym.st_value;
      S.Size = Sym.st_size;
      S.Type = Sym.getType();
      S.Binding = Sym.getBinding();
      S.Other = Sym.st_other;
      S.SectionIndex = Sym.st_shndx;
      Out.push_back(std::move(S));
    }
  }
  return Error::success();
}

Error CodeObject::parseNotes() {
  for (const ELFSection &S : Sections) {
    if (S.Type != ELF::SHT_NOTE)
      continue;
    ArrayRef<uint8_t> B = S.Bytes;
    uint64_t Off = 0;
    while (Off < B.size()) {
      if (B.size() - Off < 12)
        return createStringError("note section '%s'+0x%llx: truncated note "
                                 "header",
                                 S.Name.c_str(), (unsigned long long)Off);
      uint32_t NameSz = support::endian::read32le(B.data() + Off);
      uint32_t DescSz = support::endian::read32le(B.data() + Off + 4);
      uint32_t Type = support::endian::read32le(B.data() + Off + 8);
      // Sizes are 32-bit fields a hostile file sets to anything: align in
      // 64 bits, where 0xffffffff cannot wrap to 0.
      uint64_t NameOff = Off + 12;
      uint64_t DescOff = NameOff + alignTo(uint64_t(NameSz), 4);
      uint64_t End = DescOff + alignTo(uint64_t(DescSz), 4);
      if (DescOff > B.size() || End > B.size())
        return createStringError(
            "note section '%s'+0x%llx: note (name %u bytes, desc %u bytes) "
            "extends past the section end",
            S.Name.c_str(), (unsigned long long)Off, NameSz, DescSz);
      ELFNote N;
      StringRef NameStr(reinterpret_cast<const char *>(B.data() + NameOff),
                        NameSz);
      N.Name = NameStr.rtrim('\0').str();
      N.Type = Type;
      N.Desc = B.slice(DescOff, DescSz);
      N.SectionIndex = S.Index;
      Notes.push_back(std::move(N));
      Off = End;
    }
  }
  if (const ELFNote *N = metadataNote()) {
    Metadata = std::make_unique<msgpack::Document>();
    StringRef Blob(reinterpret_cast<const char *>(N->Desc.data()),
                   N->Desc.size());
    if (Error E = checkMetadataEncoding(Blob))
      return createStringError("NT_AMDGPU_METADATA note (%zu bytes): %s",
                               N->Desc.size(), toString(std::move(E)).c_str());
    if (!Metadata->readFromBlob(Blob, /*Multi=*/false))
      return createStringError(
          "NT_AMDGPU_METADATA note: corrupt msgpack metadata (%zu bytes)",
          N->Desc.size());
    if (Error E = checkMetadataSchema(*Metadata))
      return E;
  }
  return Error::success();
}

Error CodeObject::parseDynamicRelocations() {
  ELFFile<ELFT> File = elfFile(Image);
  auto SecsOrErr = File.sections();
  if (!SecsOrErr)
    return SecsOrErr.takeError();
  for (const auto &Sec : *SecsOrErr) {
    if (Sec.sh_type != ELF::SHT_RELA || !(Sec.sh_flags & ELF::SHF_ALLOC))
      continue;
    auto RelsOrErr = File.relas(Sec);
    if (!RelsOrErr)
      return RelsOrErr.takeError();
    auto SymTabOrErr = File.getSection(Sec.sh_link);
    if (!SymTabOrErr)
      return SymTabOrErr.takeError();
    for (const auto &R : *RelsOrErr) {
      ELFDynReloc D;
      D.Offset = R.r_offset;
      D.Type = R.getType(false);
      D.Addend = R.r_addend;
      uint32_t SymIdx = R.getSymbol(false);
      if (SymIdx) {
        auto SymOrErr = File.getRelocationSymbol(R, *SymTabOrErr);
        if (!SymOrErr)
          return SymOrErr.takeError();
        if (*SymOrErr) {
          auto StrTabOrErr = File.getStringTableForSymtab(**SymTabOrErr);
          if (!StrTabOrErr)
            return StrTabOrErr.takeError();
          auto NameOrErr = (*SymOrErr)->getName(*StrTabOrErr);
          if (!NameOrErr)
            return NameOrErr.takeError();
          D.Symbol = NameOrErr->str();
        }
      }
      DynRelocs.push_back(std::move(D));
    }
  }
  return Error::success();
}

const ELFNote *CodeObject::metadataNote() const {
  for (const ELFNote &N : Notes)
    if (N.Name == "AMDGPU" && N.Type == ELF::NT_AMDGPU_METADATA)
      return &N;
  return nullptr;
}

std::string CodeObject::metadataYAML() const {
  std::string S;
  raw_string_ostream OS(S);
  if (Metadata)
    Metadata->toYAML(OS);
  return S;
}

Error CodeObject::parseKernels() {
  // Kernels are found through their descriptors: "<name>.kd" objects of 64
  // bytes. The entry is the descriptor address plus its entry offset.
  const auto &Syms = Symbols.empty() ? DynSymbols : Symbols;
  std::map<std::string, int> MetaIndex;
  if (Metadata) {
    auto Root = Metadata->getRoot();
    if (Root.isMap()) {
      auto &M = Root.getMap();
      auto It = M.find(Metadata->getNode("amdhsa.kernels"));
      if (It != M.end() && It->second.isArray()) {
        auto &Arr = It->second.getArray();
        for (unsigned I = 0; I < Arr.size(); ++I) {
          if (!Arr[I].isMap())
            continue;
          auto &KM = Arr[I].getMap();
          auto SIt = KM.find(Metadata->getNode(".symbol"));
          if (SIt != KM.end() && SIt->second.isString())
            MetaIndex[SIt->second.getString().str()] = I;
        }
      }
    }
  }
  for (const ELFSymbol &S : Syms) {
    if (S.Type != ELF::STT_OBJECT || !StringRef(S.Name).ends_with(".kd"))
      continue;
    KernelInfo K;
    K.DescriptorSymbol = S.Name;
    K.Name = StringRef(S.Name).drop_back(3).str();
    K.DescriptorAddr = S.Value;
    auto BytesOrErr = bytesAt(S.Value, KernelDescriptor::Size);
    if (!BytesOrErr)
      return createStringError("kernel '" + K.Name + "': descriptor at 0x" +
                               utohexstr(S.Value) + ": " +
                               toString(BytesOrErr.takeError()));
    K.KD = KernelDescriptor(*BytesOrErr);
    if (Error E = K.KD.validate(K.Name, Target))
      return E;
    K.EntryAddr = K.DescriptorAddr + K.KD.entryByteOffset();
    if (K.EntryAddr % 256 != 0)
      return createStringError(
          "kernel '%s': corrupt descriptor: entry 0x%llx (descriptor 0x%llx "
          "%+lld) is not 256-byte aligned",
          K.Name.c_str(), (unsigned long long)K.EntryAddr,
          (unsigned long long)K.DescriptorAddr,
          (long long)K.KD.entryByteOffset());
    const ELFSection *TextSec = sectionForAddr(K.EntryAddr);
    if (!TextSec || !TextSec->isExec())
      return createStringError(
          "kernel '%s': corrupt descriptor: entry 0x%llx (descriptor 0x%llx "
          "%+lld) is not in an executable section",
          K.Name.c_str(), (unsigned long long)K.EntryAddr,
          (unsigned long long)K.DescriptorAddr,
          (long long)K.KD.entryByteOffset());
    // The kernel's function symbol marks its entry; a descriptor pointing
    // elsewhere would make two code ranges of one name, which the lifter
    // cannot tell apart.
    for (const ELFSymbol &F : Syms)
      if (F.Type == ELF::STT_FUNC && F.Name == K.Name &&
          F.Value != K.EntryAddr)
        return createStringError(
            "kernel '%s': corrupt descriptor: entry 0x%llx (descriptor "
            "0x%llx %+lld) is not the address of function symbol '%s' "
            "(0x%llx)",
            K.Name.c_str(), (unsigned long long)K.EntryAddr,
            (unsigned long long)K.DescriptorAddr,
            (long long)K.KD.entryByteOffset(), K.Name.c_str(),
            (unsigned long long)F.Value);
    auto MIt = MetaIndex.find(S.Name);
    if (MIt != MetaIndex.end())
      K.MetadataIndex = MIt->second;
    Kernels.push_back(std::move(K));
  }
  return Error::success();
}

void CodeObject::computeCodeRanges() {
  const auto &Syms = Symbols.empty() ? DynSymbols : Symbols;
  std::map<uint64_t, CodeRange> ByAddr;
  for (const ELFSymbol &S : Syms) {
    if (S.Type != ELF::STT_FUNC)
      continue;
    const ELFSection *Sec = sectionForAddr(S.Value);
    if (!Sec || !Sec->isExec())
      continue;
    auto &R = ByAddr[S.Value];
    if (R.Name.empty() || S.Binding != ELF::STB_LOCAL) {
      R.Name = S.Name;
      R.Addr = S.Value;
      R.Size = std::max(R.Size, S.Size);
    }
  }
  for (unsigned I = 0; I < Kernels.size(); ++I) {
    auto &R = ByAddr[Kernels[I].EntryAddr];
    if (R.Name.empty()) {
      R.Name = Kernels[I].Name;
      R.Addr = Kernels[I].EntryAddr;
    }
    R.IsKernel = true;
    R.KernelIndex = I;
  }
  for (auto It = ByAddr.begin(); It != ByAddr.end(); ++It) {
    CodeRange &R = It->second;
    const ELFSection *Sec = sectionForAddr(R.Addr);
    uint64_t Limit = Sec->Addr + Sec->Size;
    auto Next = std::next(It);
    if (Next != ByAddr.end() && Next->first < Limit)
      Limit = Next->first;
    if (R.Size == 0) {
      R.Size = Limit - R.Addr;
      R.SizeInferred = true;
    }
    R.Size = std::min(R.Size, Limit - R.Addr);
    Ranges.push_back(R);
  }
}

const ELFSection *CodeObject::findSection(StringRef SecName) const {
  for (const ELFSection &S : Sections)
    if (S.Name == SecName)
      return &S;
  return nullptr;
}

const ELFSection *CodeObject::sectionForAddr(uint64_t Addr) const {
  for (const ELFSection &S : Sections)
    if (S.containsAddr(Addr))
      return &S;
  return nullptr;
}

const ELFSymbol *CodeObject::findSymbol(StringRef SymName) const {
  for (const ELFSymbol &S : Symbols)
    if (S.Name == SymName)
      return &S;
  for (const ELFSymbol &S : DynSymbols)
    if (S.Name == SymName)
      return &S;
  return nullptr;
}

const KernelInfo *CodeObject::findKernel(StringRef KName) const {
  for (const KernelInfo &K : Kernels)
    if (K.Name == KName)
      return &K;
  return nullptr;
}

Expected<ArrayRef<uint8_t>> CodeObject::bytesAt(uint64_t Addr,
                                                uint64_t Size) const {
  const ELFSection *S = sectionForAddr(Addr);
  if (!S)
    return createStringError("address 0x%llx is in no section",
                             (unsigned long long)Addr);
  if (S->Type == ELF::SHT_NOBITS)
    return createStringError("address 0x%llx is in NOBITS section '%s'",
                             (unsigned long long)Addr, S->Name.c_str());
  uint64_t Off = Addr - S->Addr;
  if (Off > S->Bytes.size() || Size > S->Bytes.size() - Off)
    return createStringError(
        "0x%llx bytes at 0x%llx extend past the end of section '%s'",
        (unsigned long long)Size, (unsigned long long)Addr, S->Name.c_str());
  return S->Bytes.slice(Off, Size);
}

std::vector<std::string> CodeObject::producers() const {
  std::vector<std::string> Out;
  if (const ELFSection *C = findSection(".comment")) {
    StringRef Str(reinterpret_cast<const char *>(C->Bytes.data()),
                  C->Bytes.size());
    SmallVector<StringRef, 4> Parts;
    Str.split(Parts, '\0', -1, false);
    for (StringRef P : Parts)
      Out.push_back(P.str());
  }
  return Out;
}

