//===- KernelDescriptorTest.cpp - Tests for the kernel descriptor view ----===//
//
// Part of AsmEvo, a post-link optimizer for AMD GPU code objects.
//
//===----------------------------------------------------------------------===//
//
// Descriptors crafted byte by byte (field offsets and bit positions from
// AMDGPUUsage.rst, "Kernel Descriptor" and "compute_pgm_rsrc1/2/3" tables),
// decoded, validated and printed.
//
//===----------------------------------------------------------------------===//

#include "asmevo/CodeObject/KernelDescriptor.h"
#include "asmevo/CodeObject/TargetInfo.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <array>

using namespace llvm;
using namespace asmevo;

namespace {

struct Raw {
  std::array<uint8_t, 64> B{};
  Raw &u16(unsigned Off, uint16_t V) {
    support::endian::write16le(B.data() + Off, V);
    return *this;
  }
  Raw &u32(unsigned Off, uint32_t V) {
    support::endian::write32le(B.data() + Off, V);
    return *this;
  }
  Raw &u64(unsigned Off, uint64_t V) {
    support::endian::write64le(B.data() + Off, V);
    return *this;
  }
  KernelDescriptor kd() const { return KernelDescriptor(B); }
};

TargetInfo target(unsigned Mach) {
  Expected<TargetInfo> T =
      TargetInfo::fromELF(Mach | ELF::EF_AMDGPU_FEATURE_XNACK_ANY_V4 |
                              ELF::EF_AMDGPU_FEATURE_SRAMECC_ANY_V4,
                          ELF::ELFOSABI_AMDGPU_HSA,
                          ELF::ELFABIVERSION_AMDGPU_HSA_V6);
  EXPECT_TRUE(bool(T)) << toString(T.takeError());
  return T ? *T : TargetInfo();
}

std::string errorOf(Error E) {
  return E ? toString(std::move(E)) : std::string();
}

TEST(KernelDescriptor, DecodesEveryField) {
  // rsrc1: VGPR granule 5, SGPR granule 3.
  uint32_t Rsrc1 = 5 | (3 << 6);
  // rsrc2: private segment, 6 user SGPRs, workgroup id x and z, workgroup
  // info, workitem ids x and y (value 1).
  uint32_t Rsrc2 = 1 | (6 << 1) | (1 << 7) | (1 << 9) | (1 << 10) | (1 << 11);
  // rsrc3 (gfx90a+): accum_offset field 3 -> AGPRs from v16; tg_split.
  uint32_t Rsrc3 = 3 | (1 << 16);
  // kernarg_preload: 9 dwords from dword 2.
  uint16_t Preload = 9 | (2 << 7);
  KernelDescriptor KD = Raw()
                            .u32(0, 1024)
                            .u32(4, 48)
                            .u32(8, 112)
                            .u64(16, uint64_t(-0x1000))
                            .u32(44, Rsrc3)
                            .u32(48, Rsrc1)
                            .u32(52, Rsrc2)
                            .u16(56, 0x0a)
                            .u16(58, Preload)
                            .kd();
  EXPECT_EQ(KD.groupSegmentFixedSize(), 1024u);
  EXPECT_EQ(KD.privateSegmentFixedSize(), 48u);
  EXPECT_EQ(KD.kernargSize(), 112u);
  EXPECT_EQ(KD.entryByteOffset(), -0x1000);
  EXPECT_EQ(KD.pgmRsrc1(), Rsrc1);
  EXPECT_EQ(KD.pgmRsrc2(), Rsrc2);
  EXPECT_EQ(KD.pgmRsrc3(), Rsrc3);
  EXPECT_EQ(KD.kernelCodeProperties(), 0x0a);
  EXPECT_EQ(KD.vgprGranule(), 5u);
  EXPECT_EQ(KD.allocatedVGPRs(), 48u);
  EXPECT_EQ(KD.sgprGranule(), 3u);
  EXPECT_EQ(KD.userSGPRCount(), 6u);
  EXPECT_TRUE(KD.enablesPrivateSegment());
  EXPECT_TRUE(KD.enablesWorkgroupID(0));
  EXPECT_FALSE(KD.enablesWorkgroupID(1));
  EXPECT_TRUE(KD.enablesWorkgroupID(2));
  EXPECT_TRUE(KD.enablesWorkgroupInfo());
  EXPECT_EQ(KD.workItemIDDims(), 1u);
  EXPECT_EQ(KD.accumOffsetField(), 3u);
  EXPECT_EQ(KD.accumOffset(), 16u);
  EXPECT_TRUE(KD.tgSplit());
  EXPECT_EQ(KD.preloadLength(), 9u);
  EXPECT_EQ(KD.preloadOffset(), 2u);
  EXPECT_TRUE(KD.hasProperty(1));
  EXPECT_FALSE(KD.hasProperty(0));
  EXPECT_TRUE(KD.hasProperty(3));
}

TEST(KernelDescriptor, KeepsTheRawBytes) {
  Raw R;
  for (unsigned I = 0; I < 64; ++I)
    R.B[I] = uint8_t(I * 37 + 1);
  KernelDescriptor KD = R.kd();
  ASSERT_EQ(KD.bytes().size(), 64u);
  EXPECT_TRUE(std::equal(R.B.begin(), R.B.end(), KD.bytes().begin()));
  // The setters write only their own field.
  KD.setGroupSegmentFixedSize(0x11223344);
  KD.setPgmRsrc1(0xdeadbeef);
  EXPECT_EQ(KD.groupSegmentFixedSize(), 0x11223344u);
  EXPECT_EQ(KD.pgmRsrc1(), 0xdeadbeefu);
  for (unsigned I = 4; I < 48; ++I)
    EXPECT_EQ(KD.bytes()[I], R.B[I]) << "byte " << I;
  for (unsigned I = 52; I < 64; ++I)
    EXPECT_EQ(KD.bytes()[I], R.B[I]) << "byte " << I;
}

TEST(KernelDescriptor, ShortInputIsZeroPadded) {
  uint8_t Four[4] = {1, 2, 3, 4};
  KernelDescriptor KD{ArrayRef<uint8_t>(Four)};
  EXPECT_EQ(KD.groupSegmentFixedSize(), 0x04030201u);
  EXPECT_EQ(KD.pgmRsrc2(), 0u);
  KernelDescriptor Empty{ArrayRef<uint8_t>()};
  EXPECT_EQ(Empty.kernargSize(), 0u);
}

TEST(KernelDescriptor, ValidDescriptorPasses) {
  // A clang-22 gfx942 kernel: rsrc1 0x00af0101, rsrc2 0x88, rsrc3 2.
  KernelDescriptor KD =
      Raw().u32(8, 32).u32(44, 2).u32(48, 0x00af0101).u32(52, 0x88).kd();
  for (unsigned Mach : {ELF::EF_AMDGPU_MACH_AMDGCN_GFX942,
                        ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A,
                        ELF::EF_AMDGPU_MACH_AMDGCN_GFX950})
    EXPECT_EQ(errorOf(KD.validate("k", target(Mach))), "");
}

TEST(KernelDescriptor, ReservedWorkItemIDIsRejected) {
  KernelDescriptor KD = Raw().u32(52, 3u << 11).kd();
  std::string E = errorOf(KD.validate("vadd", target(ELF::EF_AMDGPU_MACH_AMDGCN_GFX942)));
  EXPECT_NE(E.find("kernel 'vadd': corrupt descriptor"), std::string::npos) << E;
  EXPECT_NE(E.find("reserved value 3"), std::string::npos) << E;
}

TEST(KernelDescriptor, ImpossibleLDSIsRejected) {
  KernelDescriptor Max = Raw().u32(0, 160 * 1024).kd();
  EXPECT_EQ(errorOf(Max.validate("k", target(ELF::EF_AMDGPU_MACH_AMDGCN_GFX950))), "");
  KernelDescriptor KD = Raw().u32(0, 0xffffffff).kd();
  std::string E = errorOf(KD.validate("lds", target(ELF::EF_AMDGPU_MACH_AMDGCN_GFX950)));
  EXPECT_NE(E.find("kernel 'lds'"), std::string::npos) << E;
  EXPECT_NE(E.find("group_segment_fixed_size 4294967295"), std::string::npos)
      << E;
}

TEST(KernelDescriptor, AccumOffsetBeyondAllocatedVGPRsIsRejected) {
  // Granule 0 allocates 8 registers; accum_offset field 3 puts AGPRs at 16.
  KernelDescriptor KD = Raw().u32(44, 3).u32(48, 0).kd();
  std::string E = errorOf(KD.validate("mfma", target(ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A)));
  EXPECT_NE(E.find("kernel 'mfma'"), std::string::npos) << E;
  EXPECT_NE(E.find("accum_offset 16 beyond the allocated 8 VGPRs"),
            std::string::npos)
      << E;
  // With granule 1 (16 registers) it fits.
  KernelDescriptor Ok = Raw().u32(44, 3).u32(48, 1).kd();
  EXPECT_EQ(errorOf(Ok.validate("mfma", target(ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A))), "");
}

TEST(KernelDescriptor, PrintsYAML) {
  KernelDescriptor KD = Raw()
                            .u32(0, 256)
                            .u32(8, 28)
                            .u64(16, 4288)
                            .u32(48, 0x00af0080)
                            .u32(52, 0x94)
                            .u16(58, 6)
                            .kd();
  std::string S;
  raw_string_ostream OS(S);
  KD.printYAML(OS, 2);
  EXPECT_NE(S.find("  group_segment_fixed_size: 256\n"), std::string::npos) << S;
  EXPECT_NE(S.find("  kernarg_size: 28\n"), std::string::npos) << S;
  EXPECT_NE(S.find("  kernel_code_entry_byte_offset: 4288\n"),
            std::string::npos)
      << S;
  EXPECT_NE(S.find("  compute_pgm_rsrc1: 0x00af0080\n"), std::string::npos)
      << S;
  EXPECT_NE(S.find("  user_sgpr_count: 10\n"), std::string::npos) << S;
  EXPECT_NE(S.find("  workgroup_id_xyz: [1, 0, 0]\n"), std::string::npos) << S;
  EXPECT_NE(S.find("  preload_length: 6\n"), std::string::npos) << S;
  // One field a line, all indented.
  for (StringRef L : split(StringRef(S).rtrim('\n'), '\n'))
    EXPECT_TRUE(L.starts_with("  ") && L.contains(": ")) << L.str();
}

} // namespace
