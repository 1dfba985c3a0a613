//===- RegSlots.cpp -------------------------------------------------------===//
#include "asmevo/Analysis/RegSlots.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

using namespace llvm;
using namespace asmevo;

/// Slot of the 32-bit register a register unit belongs to, from the unit
/// root's name ("VGPR12_LO16" -> v12). Names are what LLVM's public
/// MCRegisterInfo offers; the register enums are target-private.
static unsigned slotOfUnitRoot(StringRef N) {
  for (StringRef Suffix : {"_LO16", "_HI16"})
    if (N.ends_with(Suffix)) {
      N = N.drop_back(Suffix.size());
      break;
    }
  auto Indexed = [&](StringRef Prefix, unsigned Base, unsigned Limit,
                     unsigned &Out) {
    if (!N.starts_with(Prefix))
      return false;
    unsigned Idx;
    if (N.drop_front(Prefix.size()).getAsInteger(10, Idx) || Idx >= Limit)
      return false;
    Out = Base + Idx;
    return true;
  };
  unsigned S;
  if (Indexed("SGPR", slot::SGPRBase, slot::NumSGPRs, S) ||
      Indexed("VGPR", slot::VGPRBase, 256, S) ||
      Indexed("AGPR", slot::AGPRBase, 256, S) ||
      Indexed("TTMP", slot::TTMPBase, 16, S))
    return S;
  if (N == "VCC_LO")
    return slot::VCCLo;
  if (N == "VCC_HI")
    return slot::VCCHi;
  if (N == "EXEC_LO")
    return slot::ExecLo;
  if (N == "EXEC_HI")
    return slot::ExecHi;
  if (N == "M0")
    return slot::M0;
  if (N.starts_with("FLAT_SCR_LO"))
    return slot::FlatScrLo;
  if (N.starts_with("FLAT_SCR_HI"))
    return slot::FlatScrLo + 1;
  if (N.starts_with("XNACK_MASK_LO"))
    return slot::XnackMaskLo;
  if (N.starts_with("XNACK_MASK_HI"))
    return slot::XnackMaskLo + 1;
  if (N == "SCC" || N == "SRC_SCC")
    return slot::SCC;
  if (N == "MODE")
    return slot::Mode;
  if (N == "SRC_VCCZ")
    return slot::SrcVCCZ;
  if (N == "SRC_EXECZ")
    return slot::SrcEXECZ;
  if (N == "LDS_DIRECT")
    return slot::LDSDirect;
  return slot::Other;
}

RegSlotMap::RegSlotMap(const MCRegisterInfo &MRI) {
  std::vector<uint16_t> UnitSlot(MRI.getNumRegUnits(), slot::Other);
  for (unsigned U = 0; U < MRI.getNumRegUnits(); ++U) {
    MCRegUnitRootIterator RI(static_cast<MCRegUnit>(U), &MRI);
    if (RI.isValid())
      UnitSlot[U] = slotOfUnitRoot(MRI.getName(*RI));
  }
  ByReg.resize(MRI.getNumRegs());
  for (unsigned R = 1; R < MRI.getNumRegs(); ++R) {
    unsigned Lo = ~0u, Hi = 0;
    for (MCRegUnit U : MRI.regunits(MCRegister(R))) {
      unsigned S = UnitSlot[static_cast<unsigned>(U)];
      Lo = std::min(Lo, S);
      Hi = std::max(Hi, S);
    }
    if (Lo == ~0u)
      continue;
    // Tuples of one file are contiguous; a range that spans files (none
    // exist in gfx9 code) would be a modelling error, keep its first slot.
    if (slotKind(Lo) != slotKind(Hi) || Hi - Lo >= 32)
      Hi = Lo;
    ByReg[R] = {(uint16_t)Lo, (uint16_t)(Hi - Lo + 1)};
  }
}

std::string RegSlotMap::name(SlotRange R) {
  if (R.empty())
    return "none";
  unsigned F = R.First;
  auto Range = [&](const char *P, unsigned Base) {
    unsigned I = F - Base;
    if (R.Count == 1)
      return (Twine(P) + Twine(I)).str();
    return (Twine(P) + "[" + Twine(I) + ":" + Twine(I + R.Count - 1) + "]")
        .str();
  };
  switch (slotKind(F)) {
  case SlotKind::SGPR:
    return Range("s", slot::SGPRBase);
  case SlotKind::TTMP:
    return Range("ttmp", slot::TTMPBase);
  case SlotKind::VGPR:
    return Range("v", slot::VGPRBase);
  case SlotKind::AGPR:
    return Range("a", slot::AGPRBase);
  default:
    break;
  }
  switch (F) {
  case slot::VCCLo:
    return R.Count == 2 ? "vcc" : "vcc_lo";
  case slot::VCCHi:
    return "vcc_hi";
  case slot::ExecLo:
    return R.Count == 2 ? "exec" : "exec_lo";
  case slot::ExecHi:
    return "exec_hi";
  case slot::M0:
    return "m0";
  case slot::FlatScrLo:
    return "flat_scratch";
  case slot::XnackMaskLo:
    return "xnack_mask";
  case slot::SCC:
    return "scc";
  case slot::Mode:
    return "mode";
  case slot::SrcVCCZ:
    return "src_vccz";
  case slot::SrcEXECZ:
    return "src_execz";
  case slot::LDSDirect:
    return "lds_direct";
  default:
    return "other";
  }
}
