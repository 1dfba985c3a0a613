//===- Resources.h - Register counts, descriptor check, occupancy -*- C++
//-*-===//
//
// Registers recomputed from the code, compared with the kernel descriptor
// after granule rounding, and the occupancy they allow. Sources:
//  - AMDGPUUsage.rst "Kernel Descriptor" (compute_pgm_rsrc1/3): gfx90a and
//    gfx94x VGPR granule = ceil((align(arch_vgprs, 4) + acc_vgprs) / 8) - 1,
//    ACCUM_OFFSET = align(arch_vgprs, 4) / 4 - 1, SGPR granule =
//    ceil(sgprs / 8) - 1 where sgprs includes VCC, FLAT_SCRATCH and
//    XNACK_MASK when present;
//  - LLVM AMDGPUBaseInfo.cpp IsaInfo::getNumExtraSGPRs: VCC -> 2, XNACK
//    (on or any) -> 4, flat scratch or architected flat scratch (gfx94x,
//    gfx950) -> 6;
//  - occupancy: 512 unified VGPRs per lane per SIMD, granule 8; 800 SGPRs
//    per SIMD, granule 16; at most 8 waves per SIMD (LLVM IsaInfo
//    getMaxWavesPerEU / getTotalNumVGPRs / getTotalNumSGPRs for gfx90a,
//    gfx942, gfx950; MI200 and CDNA3 ISA guides, "Wave creation"); 4 SIMDs
//    per CU; LDS per CU: 64 KiB (gfx90a, gfx942), 160 KiB (gfx950).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_ANALYSIS_RESOURCES_H
#define ASMEVO_ANALYSIS_RESOURCES_H

#include "asmevo/Analysis/FunctionAnalysis.h"
#include <optional>

namespace asmevo {

struct Occupancy {
  unsigned WavesPerSIMD = 0;
  unsigned ByVGPR = 0, BySGPR = 0;
  std::optional<unsigned> ByLDS; ///< Waves per SIMD the LDS allows.
  unsigned WavesPerCU = 0;
};

struct KernelResources {
  std::string Kernel;
  // Declared (descriptor).
  unsigned DeclVGPRGranule = 0, DeclSGPRGranule = 0;
  unsigned DeclAccumOffset = 0; ///< In registers ((field+1)*4).
  unsigned LDSBytes = 0, ScratchBytes = 0;
  std::optional<unsigned> MaxFlatWorkgroupSize;
  /// The compiler's own counts from the metadata note (.sgpr_count includes
  /// VCC/flat-scratch/XNACK; on gfx90a+ .vgpr_count is the unified total).
  std::optional<unsigned> MetaSGPRs, MetaVGPRs, MetaAGPRs;
  // Recomputed from the code of the kernel and everything it may call.
  RegisterUse Used;
  unsigned ExtraSGPRs = 0;
  unsigned RecVGPRGranule = 0, RecSGPRGranule = 0;
  unsigned RecAccumOffset = 0;
  bool VGPRWithinDeclared = true, SGPRWithinDeclared = true;
  bool AccumOffsetOK = true;
  /// Equal after granule rounding to the metadata counts when present
  /// (LLVM may round the descriptor's SGPR granule up), else to the
  /// descriptor.
  bool VGPRExact = true, SGPRExact = true;
  Occupancy Declared, Recomputed;
};

unsigned extraSGPRs(const ISAFacts &F, const RegisterUse &U);
unsigned vgprGranule(unsigned ArchVGPRs, unsigned AGPRs);
unsigned sgprGranule(unsigned SGPRsWithExtra);
/// SGPRs a gfx9-family wave is given for a descriptor SGPR granule: the
/// hardware allocates in blocks of 16.
unsigned sgprsAllocated(unsigned SGPRGranule);
Occupancy occupancy(GPUGen G, unsigned VGPRGranule, unsigned SGPRGranule,
                    unsigned LDSBytes, std::optional<unsigned> WGSize);

/// \p Uses: register use of each lifted function (same order as
/// LM.functions()); kernels that call take the union with every non-kernel
/// function.
KernelResources kernelResources(const LiftedModule &LM, const ISAFacts &F,
                                unsigned FunctionIndex,
                                const std::vector<RegisterUse> &Uses,
                                const std::vector<bool> &HasCalls);

} // namespace asmevo

#endif
