//===- Resources.cpp ------------------------------------------------------===//
#include "asmevo/Analysis/Resources.h"
#include "asmevo/CodeObject/MetadataNodes.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Support/MathExtras.h"

using namespace llvm;
using namespace asmevo;

unsigned asmevo::extraSGPRs(const ISAFacts &F, const RegisterUse &U) {
  unsigned Extra = U.VCC ? 2 : 0;
  if (F.xnackReplay() || U.XnackMask)
    Extra = 4;
  if (U.FlatScratch || F.target().info().hasArchitectedFlatScratch())
    Extra = 6;
  return Extra;
}

unsigned asmevo::vgprGranule(unsigned Arch, unsigned AGPRs) {
  unsigned Total = AGPRs ? alignTo(Arch, 4) + AGPRs : Arch;
  return (unsigned)divideCeil(std::max(1u, Total), 8) - 1;
}

unsigned asmevo::sgprGranule(unsigned SGPRs) {
  return (unsigned)divideCeil(std::max(1u, SGPRs), 8) - 1;
}

unsigned asmevo::sgprsAllocated(unsigned Granule) {
  return (unsigned)alignTo((Granule + 1) * 8, 16);
}

Occupancy asmevo::occupancy(GPUGen G, unsigned VG, unsigned SG, unsigned LDS,
                            std::optional<unsigned> WGSize) {
  Occupancy O;
  const unsigned MaxWaves = 8, VGPRFile = 512, SGPRFile = 800, SIMDs = 4;
  unsigned VGPRs = (VG + 1) * 8;
  unsigned SGPRs = sgprsAllocated(SG);
  O.ByVGPR = std::min(MaxWaves, VGPRFile / VGPRs);
  O.BySGPR = std::min(MaxWaves, SGPRFile / SGPRs);
  O.WavesPerSIMD = std::min(O.ByVGPR, O.BySGPR);
  O.WavesPerCU = O.WavesPerSIMD * SIMDs;
  if (LDS && WGSize && *WGSize) {
    unsigned LDSPerCU = G == GPUGen::GFX950 ? 160 * 1024 : 64 * 1024;
    unsigned WGs = LDSPerCU / LDS;
    unsigned WavesPerWG = divideCeil(*WGSize, 64);
    unsigned CUWaves = WGs * WavesPerWG;
    O.ByLDS = std::min(MaxWaves, (unsigned)divideCeil(CUWaves, SIMDs));
    O.WavesPerCU = std::min(O.WavesPerCU, CUWaves);
    O.WavesPerSIMD = std::min(O.WavesPerSIMD, *O.ByLDS);
  }
  return O;
}

static std::optional<unsigned>
kernelMetaUInt(const CodeObject &CO, int MetadataIndex, StringRef Key) {
  msgpack::MapDocNode *K = md::kernelMap(CO, MetadataIndex);
  msgpack::DocNode *N = K ? md::find(*K, Key) : nullptr;
  // A signed 0 reads as absent here, as it always has.
  if (N && N->getKind() == msgpack::Type::Int && N->getInt() == 0)
    return std::nullopt;
  if (std::optional<uint64_t> V = md::asUInt(N))
    return (unsigned)*V;
  return std::nullopt;
}

KernelResources asmevo::kernelResources(const LiftedModule &LM,
                                        const ISAFacts &F, unsigned FI,
                                        const std::vector<RegisterUse> &Uses,
                                        const std::vector<bool> &HasCalls) {
  const LiftedFunction &LF = LM.functions()[FI];
  KernelResources R;
  R.Kernel = LF.Range.Name;
  const KernelInfo &KI = LM.original().kernels()[LF.Range.KernelIndex];
  const KernelDescriptor &KD = KI.KD;
  R.DeclVGPRGranule = KD.vgprGranule();
  R.DeclSGPRGranule = KD.sgprGranule();
  R.DeclAccumOffset = KD.accumOffset();
  R.LDSBytes = KD.groupSegmentFixedSize();
  R.ScratchBytes = KD.privateSegmentFixedSize();
  const CodeObject &CO = LM.original();
  R.MaxFlatWorkgroupSize =
      kernelMetaUInt(CO, KI.MetadataIndex, ".max_flat_workgroup_size");
  R.MetaSGPRs = kernelMetaUInt(CO, KI.MetadataIndex, ".sgpr_count");
  R.MetaVGPRs = kernelMetaUInt(CO, KI.MetadataIndex, ".vgpr_count");
  R.MetaAGPRs = kernelMetaUInt(CO, KI.MetadataIndex, ".agpr_count");

  R.Used = Uses[FI];
  if (HasCalls[FI])
    for (unsigned I = 0; I < Uses.size(); ++I)
      if (!LM.functions()[I].Range.IsKernel)
        R.Used.merge(Uses[I]);
  unsigned Arch = R.Used.vgprs(), Acc = R.Used.agprs();
  R.ExtraSGPRs = extraSGPRs(F, R.Used);
  R.RecVGPRGranule = vgprGranule(Arch, Acc);
  R.RecSGPRGranule = sgprGranule(R.Used.sgprs() + R.ExtraSGPRs);
  R.RecAccumOffset = std::max(4u, (unsigned)alignTo(Arch, 4));
  R.VGPRWithinDeclared = R.RecVGPRGranule <= R.DeclVGPRGranule;
  // gfx9 allocates SGPRs in blocks of 16 (AMDGPUUsage, kernel descriptor
  // GRANULATED_WAVEFRONT_SGPR_COUNT for GFX9: 2 * (ceil(count / 16) - 1),
  // in units of 8), so a field of 12 grants 112 SGPRs, not 104: aiter's
  // hand-assembled gfx950 mla_a8w8 declares 12 and uses s0-s100 plus the
  // 6 VCC/FLAT_SCRATCH/XNACK_MASK SGPRs (107), which the hardware grants.
  R.SGPRWithinDeclared =
      alignTo(R.Used.sgprs() + R.ExtraSGPRs, 16) <=
      sgprsAllocated(R.DeclSGPRGranule);
  R.VGPRExact = R.RecVGPRGranule ==
                // On gfx90a+ .vgpr_count is the unified total (arch + acc).
                (R.MetaVGPRs ? sgprGranule(*R.MetaVGPRs) : R.DeclVGPRGranule);
  R.SGPRExact = R.RecSGPRGranule ==
                (R.MetaSGPRs ? sgprGranule(*R.MetaSGPRs) : R.DeclSGPRGranule);
  // gfx90a+: AGPRs start at ACCUM_OFFSET; arch VGPRs must sit below it.
  R.AccumOffsetOK = !Acc || Arch <= R.DeclAccumOffset;
  R.Declared = occupancy(F.gen(), R.DeclVGPRGranule, R.DeclSGPRGranule,
                         R.LDSBytes, R.MaxFlatWorkgroupSize);
  R.Recomputed = occupancy(F.gen(), R.RecVGPRGranule, R.RecSGPRGranule,
                           R.LDSBytes, R.MaxFlatWorkgroupSize);
  return R;
}
