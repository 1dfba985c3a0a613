//===- ResourcesTest.cpp - Granules and occupancy -------------------------===//
#include "asmevo/Analysis/Resources.h"
#include "gtest/gtest.h"

using namespace asmevo;

TEST(Resources, Granules) {
  // AMDGPUUsage: gfx90a/gfx94x unified file, granule 8, arch VGPRs aligned
  // to 4 before the AGPRs.
  EXPECT_EQ(vgprGranule(0, 0), 0u);
  EXPECT_EQ(vgprGranule(8, 0), 0u);
  EXPECT_EQ(vgprGranule(9, 0), 1u);
  EXPECT_EQ(vgprGranule(5, 4), 1u); // align(5,4)=8 + 4 = 12
  EXPECT_EQ(vgprGranule(256, 256), 63u);
  EXPECT_EQ(sgprGranule(18), 2u);
  // gfx94x: next_free_sgpr = (G+1)*8-6 inverts the granule with 6 extras.
  for (unsigned G = 0; G < 13; ++G)
    EXPECT_EQ(sgprGranule((G + 1) * 8 - 6 + 6), G);
}

TEST(Resources, SGPRAllocationBlocks) {
  // gfx9 allocates SGPRs in blocks of 16 (AMDGPUUsage, kernel descriptor
  // GRANULATED_WAVEFRONT_SGPR_COUNT for GFX9): an odd field grants as many
  // as the even one above it. aiter gfx950 mla_a8w8 declares 12 and needs
  // 101 + 6 extra = 107 <= 112.
  EXPECT_EQ(sgprsAllocated(0), 16u);
  EXPECT_EQ(sgprsAllocated(1), 16u);
  EXPECT_EQ(sgprsAllocated(12), 112u);
  EXPECT_EQ(sgprsAllocated(13), 112u);
  EXPECT_LE(107u, sgprsAllocated(12));
}

TEST(Resources, Occupancy) {
  // 512 VGPRs per lane per SIMD, at most 8 waves.
  Occupancy O = occupancy(GPUGen::GFX94X, /*VG=*/7, /*SG=*/3, 0, std::nullopt);
  EXPECT_EQ(O.ByVGPR, 8u); // 64 VGPRs
  EXPECT_EQ(O.WavesPerSIMD, 8u);
  EXPECT_EQ(O.WavesPerCU, 32u);
  O = occupancy(GPUGen::GFX94X, 63, 3, 0, std::nullopt); // 512 registers
  EXPECT_EQ(O.WavesPerSIMD, 1u);
  O = occupancy(GPUGen::GFX94X, 15, 3, 0, std::nullopt); // 128
  EXPECT_EQ(O.WavesPerSIMD, 4u);
  // 64 KiB LDS per CU: 32 KiB per 256-lane workgroup allows 2 groups, 8
  // waves per CU.
  O = occupancy(GPUGen::GFX94X, 7, 3, 32768, 256u);
  EXPECT_EQ(O.WavesPerCU, 8u);
  O = occupancy(GPUGen::GFX950, 7, 3, 32768, 256u); // 160 KiB
  EXPECT_EQ(O.WavesPerCU, 20u);
}
