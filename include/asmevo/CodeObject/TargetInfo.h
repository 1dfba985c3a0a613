//===- TargetInfo.h - AMDGPU target identification --------------*- C++ -*-===//
#ifndef ASMEVO_CODEOBJECT_TARGETINFO_H
#define ASMEVO_CODEOBJECT_TARGETINFO_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <string>

namespace asmevo {

enum class TargetFeature : uint8_t { Unsupported, Any, Off, On };

/// What e_flags and the ELF header say about the code object's target.
struct TargetInfo {
  std::string Processor; ///< "gfx942"
  TargetFeature Xnack = TargetFeature::Any;
  TargetFeature Sramecc = TargetFeature::Any;
  unsigned CodeObjectVersion = 0; ///< 4, 5 or 6
  uint32_t EFlags = 0;
  uint8_t OSABI = 0;
  uint8_t ABIVersion = 0;
  unsigned Mach = 0; ///< EF_AMDGPU_MACH_* value

  /// "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
  std::string targetID() const;
  /// Subtarget feature string for MC ("+xnack,+sramecc" or "").
  std::string featureString() const;
  bool isGFX90A() const { return Processor == "gfx90a"; }
  bool isGFX94X() const {
    return Processor == "gfx942";
  }
  bool isGFX950() const { return Processor == "gfx950"; }
  bool hasArchitectedFlatScratch() const { return isGFX94X() || isGFX950(); }

  /// Decodes e_flags / EI_ABIVERSION; fails for targets we don't support.
  static llvm::Expected<TargetInfo> fromELF(uint32_t EFlags, uint8_t OSABI,
                                            uint8_t ABIVersion);
};

} // namespace asmevo

#endif
