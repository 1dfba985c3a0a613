//===- CodeObjectTest.cpp - Tests for the code object reader --------------===//
//
// Part of AsmEvo, a post-link optimizer for AMD GPU code objects.
//
//===----------------------------------------------------------------------===//
//
// Minimal ELF images built here (header, a note section, a section-name
// table) for the header and note checks, and a HIP test kernel built by the
// project (ASMEVO_TEST_KERNEL_DIR) for everything else, including every
// truncation at a 64-byte step: each must be an error naming the file.
//
//===----------------------------------------------------------------------===//

#include "asmevo/CodeObject/CodeObject.h"

#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace llvm;
using namespace asmevo;

namespace {

/// An ELF64 little-endian image: header, optional section contents, section
/// headers (null, then each added section, then .shstrtab).
class ElfBuilder {
public:
  uint16_t Machine = ELF::EM_AMDGPU;
  uint8_t OSABI = ELF::ELFOSABI_AMDGPU_HSA;
  uint8_t ABIVersion = ELF::ELFABIVERSION_AMDGPU_HSA_V6;
  uint32_t Flags = ELF::EF_AMDGPU_MACH_AMDGCN_GFX942 |
                   ELF::EF_AMDGPU_FEATURE_XNACK_ANY_V4 |
                   ELF::EF_AMDGPU_FEATURE_SRAMECC_ANY_V4;

  void addSection(StringRef Name, uint32_t Type, uint64_t SecFlags,
                  std::string Contents) {
    Sections.push_back({Name.str(), Type, SecFlags, std::move(Contents)});
  }

  std::vector<uint8_t> build() const {
    std::string ShStr(1, '\0');
    std::vector<uint32_t> NameOff;
    for (const Sec &S : Sections) {
      NameOff.push_back(ShStr.size());
      ShStr += S.Name + '\0';
    }
    uint32_t ShStrName = ShStr.size();
    ShStr += std::string(".shstrtab") + '\0';

    std::vector<uint8_t> Out(64, 0);
    std::vector<uint64_t> Offsets;
    auto Place = [&](const std::string &C) {
      while (Out.size() % 8)
        Out.push_back(0);
      Offsets.push_back(Out.size());
      Out.insert(Out.end(), C.begin(), C.end());
    };
    for (const Sec &S : Sections)
      Place(S.Contents);
    Place(ShStr);
    while (Out.size() % 8)
      Out.push_back(0);
    uint64_t ShOff = Out.size();
    unsigned NumSec = Sections.size() + 2;
    Out.resize(ShOff + NumSec * 64, 0);
    auto Shdr = [&](unsigned I, uint32_t Name, uint32_t Type, uint64_t F,
                    uint64_t Off, uint64_t Size) {
      uint8_t *P = Out.data() + ShOff + I * 64;
      support::endian::write32le(P, Name);
      support::endian::write32le(P + 4, Type);
      support::endian::write64le(P + 8, F);
      support::endian::write64le(P + 24, Off);
      support::endian::write64le(P + 32, Size);
      support::endian::write64le(P + 48, 1);
    };
    for (unsigned I = 0; I < Sections.size(); ++I)
      Shdr(I + 1, NameOff[I], Sections[I].Type, Sections[I].Flags, Offsets[I],
           Sections[I].Contents.size());
    Shdr(NumSec - 1, ShStrName, ELF::SHT_STRTAB, 0, Offsets.back(),
         ShStr.size());

    uint8_t *H = Out.data();
    std::memcpy(H, "\x7f"
                   "ELF",
                4);
    H[ELF::EI_CLASS] = ELF::ELFCLASS64;
    H[ELF::EI_DATA] = ELF::ELFDATA2LSB;
    H[ELF::EI_VERSION] = ELF::EV_CURRENT;
    H[ELF::EI_OSABI] = OSABI;
    H[ELF::EI_ABIVERSION] = ABIVersion;
    support::endian::write16le(H + 16, ELF::ET_DYN);
    support::endian::write16le(H + 18, Machine);
    support::endian::write32le(H + 20, ELF::EV_CURRENT);
    support::endian::write64le(H + 40, ShOff);
    support::endian::write32le(H + 48, Flags);
    support::endian::write16le(H + 52, 64);         // e_ehsize
    support::endian::write16le(H + 58, 64);         // e_shentsize
    support::endian::write16le(H + 60, NumSec);     // e_shnum
    support::endian::write16le(H + 62, NumSec - 1); // e_shstrndx
    return Out;
  }

private:
  struct Sec {
    std::string Name;
    uint32_t Type;
    uint64_t Flags;
    std::string Contents;
  };
  std::vector<Sec> Sections;
};

std::string note(uint32_t NameSz, uint32_t DescSz, uint32_t Type,
                 StringRef Name, StringRef Desc) {
  std::string N(12, '\0');
  support::endian::write32le(N.data(), NameSz);
  support::endian::write32le(N.data() + 4, DescSz);
  support::endian::write32le(N.data() + 8, Type);
  N += Name.str();
  N.resize(alignTo(N.size(), 4), '\0');
  N += Desc.str();
  N.resize(alignTo(N.size(), 4), '\0');
  return N;
}

std::string errorText(Expected<std::unique_ptr<CodeObject>> &R) {
  return R ? std::string() : toString(R.takeError());
}

TEST(CodeObject, MinimalImage) {
  ElfBuilder B;
  std::vector<uint8_t> Img = B.build();
  auto CO = CodeObject::create(Img, "min.co");
  ASSERT_TRUE(bool(CO)) << errorText(CO);
  EXPECT_EQ((*CO)->target().Processor, "gfx942");
  EXPECT_EQ((*CO)->target().CodeObjectVersion, 6u);
  EXPECT_EQ((*CO)->target().Xnack, TargetFeature::Any);
  EXPECT_EQ((*CO)->elfType(), ELF::ET_DYN);
  EXPECT_TRUE((*CO)->kernels().empty());
  EXPECT_TRUE((*CO)->codeRanges().empty());
  EXPECT_EQ((*CO)->metadata(), nullptr);
  EXPECT_NE((*CO)->findSection(".shstrtab"), nullptr);
}

TEST(CodeObject, TargetsAndFeatures) {
  ElfBuilder B;
  B.Flags = ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A |
            ELF::EF_AMDGPU_FEATURE_XNACK_ON_V4 |
            ELF::EF_AMDGPU_FEATURE_SRAMECC_OFF_V4;
  B.ABIVersion = ELF::ELFABIVERSION_AMDGPU_HSA_V4;
  auto CO = CodeObject::create(B.build(), "t.co");
  ASSERT_TRUE(bool(CO)) << errorText(CO);
  EXPECT_EQ((*CO)->target().Processor, "gfx90a");
  EXPECT_EQ((*CO)->target().CodeObjectVersion, 4u);
  EXPECT_EQ((*CO)->target().Xnack, TargetFeature::On);
  EXPECT_EQ((*CO)->target().Sramecc, TargetFeature::Off);
  EXPECT_EQ((*CO)->target().targetID(),
            "amdgcn-amd-amdhsa--gfx90a:sramecc-:xnack+");
}

TEST(CodeObject, HeaderErrorsNameTheFile) {
  struct Case {
    const char *What;
    void (*Mutate)(ElfBuilder &);
    const char *Message;
  } Cases[] = {
      {"x86-64", [](ElfBuilder &B) { B.Machine = ELF::EM_X86_64; },
       "bad.co: e_machine is 62, not EM_AMDGPU (224)"},
      {"OS/ABI", [](ElfBuilder &B) { B.OSABI = 0; },
       "bad.co: unsupported OS/ABI 0"},
      {"ABI version", [](ElfBuilder &B) { B.ABIVersion = 9; },
       "bad.co: unsupported code object ABI version 9"},
      {"gfx1100",
       [](ElfBuilder &B) { B.Flags = ELF::EF_AMDGPU_MACH_AMDGCN_GFX1100; },
       "bad.co:"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.What);
    ElfBuilder B;
    C.Mutate(B);
    auto CO = CodeObject::create(B.build(), "bad.co");
    ASSERT_FALSE(bool(CO));
    std::string E = errorText(CO);
    EXPECT_EQ(E.find(C.Message), 0u) << E;
    EXPECT_EQ(E.find('\n'), std::string::npos) << E;
  }
}

TEST(CodeObject, NotELF) {
  uint8_t Junk[100] = {'j', 'u', 'n', 'k'};
  auto CO = CodeObject::create(ArrayRef<uint8_t>(Junk), "junk.bin");
  ASSERT_FALSE(bool(CO));
  EXPECT_EQ(errorText(CO), "junk.bin: not an ELF file");
  auto Empty = CodeObject::create(ArrayRef<uint8_t>(), "empty.co");
  ASSERT_FALSE(bool(Empty));
  EXPECT_EQ(errorText(Empty), "empty.co: not an ELF file");
}

TEST(CodeObject, NotesAndMetadata) {
  // msgpack {"amdhsa.version": [1, 2]}
  std::string Msgpack = "\x81\xae"
                        "amdhsa.version"
                        "\x92\x01\x02";
  ElfBuilder B;
  B.addSection(".note", ELF::SHT_NOTE, ELF::SHF_ALLOC,
               note(4, 0, 1, StringRef("GNU\0", 4), "") +
                   note(7, Msgpack.size(), ELF::NT_AMDGPU_METADATA,
                        StringRef("AMDGPU\0", 7), Msgpack));
  auto CO = CodeObject::create(B.build(), "notes.co");
  ASSERT_TRUE(bool(CO)) << errorText(CO);
  ASSERT_EQ((*CO)->notes().size(), 2u);
  EXPECT_EQ((*CO)->notes()[0].Name, "GNU");
  ASSERT_NE((*CO)->metadataNote(), nullptr);
  EXPECT_EQ((*CO)->metadataNote()->Desc.size(), Msgpack.size());
  ASSERT_NE((*CO)->metadata(), nullptr);
  EXPECT_NE((*CO)->metadataYAML().find("amdhsa.version"), std::string::npos);
}

TEST(CodeObject, CorruptNotesAreErrors) {
  std::string Msgpack = "\x81\xa1k\x01";
  struct Case {
    const char *What;
    std::string Note;
    const char *Message;
  } Cases[] = {
      // 0xffffffff once wrapped to 0 when aligned in 32 bits and the name
      // was then read past the end of the image.
      {"namesz 2^32-1",
       note(0xffffffff, Msgpack.size(), ELF::NT_AMDGPU_METADATA,
            StringRef("AMDGPU\0", 7), Msgpack),
       "extends past the section end"},
      {"descsz 2^32-1",
       note(7, 0xffffffff, ELF::NT_AMDGPU_METADATA, StringRef("AMDGPU\0", 7),
            Msgpack),
       "extends past the section end"},
      {"descsz 2^32-3 (aligns to 2^32)",
       note(7, 0xfffffffd, ELF::NT_AMDGPU_METADATA, StringRef("AMDGPU\0", 7),
            Msgpack),
       "extends past the section end"},
      {"descsz one past",
       note(7, Msgpack.size() + 5, ELF::NT_AMDGPU_METADATA,
            StringRef("AMDGPU\0", 7), Msgpack),
       "extends past the section end"},
      {"truncated header", std::string(8, '\x01'), "truncated note header"},
      {"bad msgpack",
       note(7, 4, ELF::NT_AMDGPU_METADATA, StringRef("AMDGPU\0", 7),
            "\xc1\xc1\xc1\xc1"),
       "corrupt msgpack metadata"},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.What);
    ElfBuilder B;
    B.addSection(".note", ELF::SHT_NOTE, ELF::SHF_ALLOC, C.Note);
    auto CO = CodeObject::create(B.build(), "note.co");
    ASSERT_FALSE(bool(CO));
    std::string E = errorText(CO);
    EXPECT_EQ(E.find("note.co: "), 0u) << E;
    EXPECT_NE(E.find(C.Message), std::string::npos) << E;
  }
}

TEST(CodeObject, SectionPastTheEndIsAnError) {
  ElfBuilder B;
  B.addSection(".note", ELF::SHT_NOTE, ELF::SHF_ALLOC, note(4, 0, 1, "GNU", ""));
  std::vector<uint8_t> Img = B.build();
  // Section 1's sh_size: past the end of the file.
  uint64_t ShOff = support::endian::read64le(Img.data() + 40);
  support::endian::write64le(Img.data() + ShOff + 64 + 32, Img.size());
  auto CO = CodeObject::create(Img, "big.co");
  ASSERT_FALSE(bool(CO));
  EXPECT_EQ(errorText(CO).find("big.co: "), 0u) << errorText(CO);
}

//===----------------------------------------------------------------------===//
// A real kernel built by the project.
//===----------------------------------------------------------------------===//

std::unique_ptr<MemoryBuffer> loadKernel(StringRef Name) {
  std::string Path = std::string(ASMEVO_TEST_KERNEL_DIR) + "/" + Name.str();
  auto Buf = MemoryBuffer::getFile(Path, /*IsText=*/false,
                                   /*RequiresNullTerminator=*/false);
  if (!Buf) {
    ADD_FAILURE() << Path << ": " << Buf.getError().message()
                  << " (build asmevo-test-kernels)";
    return nullptr;
  }
  return std::move(*Buf);
}

TEST(CodeObject, DeviceCallKernel) {
  auto Buf = loadKernel("device_call-gfx942.co");
  ASSERT_TRUE(Buf);
  auto CO = CodeObject::create(std::move(Buf), "device_call-gfx942.co");
  ASSERT_TRUE(bool(CO)) << errorText(CO);
  const CodeObject &C = **CO;
  EXPECT_EQ(C.target().Processor, "gfx942");
  ASSERT_EQ(C.kernels().size(), 1u);
  const KernelInfo &K = C.kernels()[0];
  EXPECT_EQ(K.Name, "device_call");
  EXPECT_EQ(K.DescriptorSymbol, "device_call.kd");
  EXPECT_EQ(K.EntryAddr, K.DescriptorAddr + K.KD.entryByteOffset());
  EXPECT_EQ(K.EntryAddr % 256, 0u);
  EXPECT_FALSE(K.hasPreload());
  EXPECT_EQ(K.KD.kernargSize(), 32u);
  EXPECT_GE(K.MetadataIndex, 0);
  const ELFSymbol *Fn = C.findSymbol("device_call");
  ASSERT_NE(Fn, nullptr);
  EXPECT_EQ(Fn->Value, K.EntryAddr);
  EXPECT_EQ(C.findKernel("device_call"), &K);
  EXPECT_EQ(C.findKernel("nope"), nullptr);

  ASSERT_EQ(C.codeRanges().size(), 2u);
  EXPECT_EQ(C.codeRanges()[0].Name, "_Z9poly_evalPKfif");
  EXPECT_FALSE(C.codeRanges()[0].IsKernel);
  EXPECT_EQ(C.codeRanges()[1].Name, "device_call");
  EXPECT_TRUE(C.codeRanges()[1].IsKernel);
  EXPECT_EQ(C.codeRanges()[1].KernelIndex, 0);
  EXPECT_LE(C.codeRanges()[0].Addr + C.codeRanges()[0].Size,
            C.codeRanges()[1].Addr);

  const ELFSection *Text = C.findSection(".text");
  ASSERT_NE(Text, nullptr);
  EXPECT_TRUE(Text->isExec());
  EXPECT_EQ(C.sectionForAddr(K.EntryAddr), Text);
  auto Bytes = C.bytesAt(K.EntryAddr, 8);
  ASSERT_TRUE(bool(Bytes)) << toString(Bytes.takeError());
  EXPECT_EQ(Bytes->data(), Text->Bytes.data() + (K.EntryAddr - Text->Addr));
  auto Past = C.bytesAt(Text->Addr + Text->Size - 4, 8);
  EXPECT_FALSE(bool(Past));
  consumeError(Past.takeError());
  auto Nowhere = C.bytesAt(0xfffffffffff00000ull, 4);
  EXPECT_FALSE(bool(Nowhere));
  consumeError(Nowhere.takeError());

  ASSERT_NE(C.metadata(), nullptr);
  EXPECT_NE(C.metadataYAML().find("amdhsa.target:   amdgcn-amd-amdhsa--gfx942"),
            std::string::npos);
  bool SawLinker = false;
  for (const std::string &P : C.producers())
    SawLinker |= StringRef(P).starts_with("Linker: ");
  EXPECT_TRUE(SawLinker);
}

TEST(CodeObject, EveryTruncationIsAnError) {
  auto Buf = loadKernel("preload-gfx90a.co");
  ASSERT_TRUE(Buf);
  ArrayRef<uint8_t> Img(
      reinterpret_cast<const uint8_t *>(Buf->getBufferStart()),
      Buf->getBufferSize());
  unsigned Steps = 0;
  for (size_t N = 0; N < Img.size(); N += 64, ++Steps) {
    auto CO = CodeObject::create(Img.take_front(N), "cut.co");
    ASSERT_FALSE(bool(CO)) << "cut at " << N << " of " << Img.size()
                           << " bytes was accepted";
    std::string E = errorText(CO);
    EXPECT_EQ(E.find("cut.co: "), 0u) << "cut at " << N << ": " << E;
  }
  EXPECT_GT(Steps, 10u);
  auto Whole = CodeObject::create(Img, "whole.co");
  EXPECT_TRUE(bool(Whole)) << errorText(Whole);
}

TEST(CodeObject, KernelEntryMustBeItsFunctionSymbol) {
  auto Buf = loadKernel("device_call-gfx942.co");
  ASSERT_TRUE(Buf);
  auto CO = CodeObject::create(std::move(Buf), "orig.co");
  ASSERT_TRUE(bool(CO)) << errorText(CO);
  const KernelInfo &K = (*CO)->kernels()[0];
  const ELFSection *Rodata = (*CO)->sectionForAddr(K.DescriptorAddr);
  ASSERT_NE(Rodata, nullptr);
  // Move the entry 256 bytes on, still 256-aligned and inside .text: two
  // code ranges named "device_call" would follow.
  std::vector<uint8_t> Img((*CO)->image().begin(), (*CO)->image().end());
  uint64_t Field = Rodata->Offset + (K.DescriptorAddr - Rodata->Addr) + 16;
  support::endian::write64le(Img.data() + Field, K.KD.entryByteOffset() + 256);
  auto Bad = CodeObject::create(Img, "moved.co");
  ASSERT_FALSE(bool(Bad));
  std::string E = errorText(Bad);
  EXPECT_EQ(E.find("moved.co: kernel 'device_call': corrupt descriptor: "),
            0u)
      << E;
  EXPECT_NE(E.find("is not the address of function symbol 'device_call'"),
            std::string::npos)
      << E;
}

} // namespace
