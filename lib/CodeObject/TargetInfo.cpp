//===- TargetInfo.cpp -----------------------------------------------------===//
#include "asmevo/CodeObject/TargetInfo.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

static const char *machName(unsigned Mach) {
  switch (Mach) {
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A:
    return "gfx90a";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX942:
    return "gfx942";
  case ELF::EF_AMDGPU_MACH_AMDGCN_GFX950:
    return "gfx950";
  default:
    return nullptr;
  }
}

static TargetFeature decodeFeature(uint32_t Bits, uint32_t Unsup, uint32_t Any,
                                   uint32_t Off, uint32_t On) {
  if (Bits == On)
    return TargetFeature::On;
  if (Bits == Off)
    return TargetFeature::Off;
  if (Bits == Any)
    return TargetFeature::Any;
  return TargetFeature::Unsupported;
}

Expected<TargetInfo> TargetInfo::fromELF(uint32_t EFlags, uint8_t OSABI,
                                         uint8_t ABIVersion) {
  TargetInfo T;
  T.EFlags = EFlags;
  T.OSABI = OSABI;
  T.ABIVersion = ABIVersion;
  if (OSABI != ELF::ELFOSABI_AMDGPU_HSA)
    return createStringError("unsupported OS/ABI %u (expected AMDHSA, 64)",
                             OSABI);
  switch (ABIVersion) {
  case ELF::ELFABIVERSION_AMDGPU_HSA_V4:
    T.CodeObjectVersion = 4;
    break;
  case ELF::ELFABIVERSION_AMDGPU_HSA_V5:
    T.CodeObjectVersion = 5;
    break;
  case ELF::ELFABIVERSION_AMDGPU_HSA_V6:
    T.CodeObjectVersion = 6;
    break;
  default:
    return createStringError(
        "unsupported code object ABI version %u (expected v4, v5 or v6)",
        ABIVersion);
  }
  T.Mach = EFlags & ELF::EF_AMDGPU_MACH;
  const char *Proc = machName(T.Mach);
  if (!Proc)
    return createStringError("unsupported AMDGPU processor (e_flags 0x%x); "
                             "supported: gfx90a, gfx940-942, gfx950",
                             EFlags);
  T.Processor = Proc;
  T.Xnack = decodeFeature(EFlags & ELF::EF_AMDGPU_FEATURE_XNACK_V4,
                          ELF::EF_AMDGPU_FEATURE_XNACK_UNSUPPORTED_V4,
                          ELF::EF_AMDGPU_FEATURE_XNACK_ANY_V4,
                          ELF::EF_AMDGPU_FEATURE_XNACK_OFF_V4,
                          ELF::EF_AMDGPU_FEATURE_XNACK_ON_V4);
  T.Sramecc = decodeFeature(EFlags & ELF::EF_AMDGPU_FEATURE_SRAMECC_V4,
                            ELF::EF_AMDGPU_FEATURE_SRAMECC_UNSUPPORTED_V4,
                            ELF::EF_AMDGPU_FEATURE_SRAMECC_ANY_V4,
                            ELF::EF_AMDGPU_FEATURE_SRAMECC_OFF_V4,
                            ELF::EF_AMDGPU_FEATURE_SRAMECC_ON_V4);
  return T;
}

std::string TargetInfo::targetID() const {
  std::string S = "amdgcn-amd-amdhsa--" + Processor;
  auto Add = [&](const char *N, TargetFeature F) {
    if (F == TargetFeature::On)
      S += std::string(":") + N + "+";
    else if (F == TargetFeature::Off)
      S += std::string(":") + N + "-";
  };
  Add("sramecc", Sramecc);
  Add("xnack", Xnack);
  return S;
}

std::string TargetInfo::featureString() const {
  std::string S;
  auto Add = [&](const char *N, TargetFeature F) {
    if (F != TargetFeature::On && F != TargetFeature::Off)
      return;
    if (!S.empty())
      S += ",";
    S += (F == TargetFeature::On ? "+" : "-");
    S += N;
  };
  Add("xnack", Xnack);
  Add("sramecc", Sramecc);
  return S;
}
