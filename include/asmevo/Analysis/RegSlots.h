//===- RegSlots.h - Hardware register-file slots ----------------*- C++ -*-===//
//
// Every analysis here (liveness, waitcnt scores, hazards, register counts)
// and the emulator's scoreboard talk about registers as the hardware does:
// one slot per 32-bit register of one file. Slots are dense so that sets of
// them are small bit vectors, and a register tuple is a contiguous range.
//
// Layout (gfx9 SGPR encodings from the CDNA3 ISA, "Scalar ALU Operands"):
//   0-101 SGPRs, 102-103 FLAT_SCRATCH, 104-105 XNACK_MASK, 106-107 VCC,
//   108-123 TTMP, 124 M0, 126-127 EXEC, 256-511 VGPRs, 512-767 AGPRs,
//   768+ SCC, MODE, SRC_VCCZ, SRC_EXECZ, LDS_DIRECT and "other".
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_ANALYSIS_REGSLOTS_H
#define ASMEVO_ANALYSIS_REGSLOTS_H

#include "llvm/ADT/BitVector.h"
#include "llvm/MC/MCRegister.h"
#include "llvm/MC/MCRegisterInfo.h"
#include <cstdint>
#include <vector>

namespace asmevo {

namespace slot {
enum : unsigned {
  SGPRBase = 0,
  NumSGPRs = 102, ///< Addressable general SGPRs on gfx9 (s0-s101).
  FlatScrLo = 102,
  XnackMaskLo = 104,
  VCCLo = 106,
  VCCHi = 107,
  TTMPBase = 108,
  M0 = 124,
  ExecLo = 126,
  ExecHi = 127,
  VGPRBase = 256,
  AGPRBase = 512,
  SCC = 768,
  Mode = 769,
  SrcVCCZ = 770,
  SrcEXECZ = 771,
  LDSDirect = 772,
  Other = 773,
  NumSlots = 774,
};
} // namespace slot

enum class SlotKind : uint8_t { SGPR, Special, TTMP, VGPR, AGPR, Other };

inline SlotKind slotKind(unsigned S) {
  if (S < slot::NumSGPRs)
    return SlotKind::SGPR;
  if (S >= slot::TTMPBase && S < slot::TTMPBase + 16)
    return SlotKind::TTMP;
  if (S < slot::VGPRBase)
    return SlotKind::Special;
  if (S < slot::AGPRBase)
    return SlotKind::VGPR;
  if (S < slot::SCC)
    return SlotKind::AGPR;
  return SlotKind::Other;
}
inline bool isSGPRLike(unsigned S) { return S < slot::VGPRBase; }
inline bool isVectorSlot(unsigned S) {
  return S >= slot::VGPRBase && S < slot::SCC;
}

/// A contiguous run of slots [First, First+Count).
struct SlotRange {
  uint16_t First = 0;
  uint16_t Count = 0;
  bool empty() const { return Count == 0; }
  unsigned end() const { return First + Count; }
  bool overlaps(SlotRange O) const {
    return Count && O.Count && First < O.end() && O.First < end();
  }
  bool contains(unsigned S) const { return S >= First && S < end(); }
  bool operator==(SlotRange O) const {
    return First == O.First && Count == O.Count;
  }
};

/// MCRegister -> slot range, computed once per target from register units.
class RegSlotMap {
public:
  explicit RegSlotMap(const llvm::MCRegisterInfo &MRI);
  SlotRange slots(llvm::MCRegister R) const {
    return R.id() < ByReg.size() ? ByReg[R.id()] : SlotRange();
  }
  /// "v4", "s[0:1]", "vcc", "a[0:3]" for reports.
  static std::string name(SlotRange R);

private:
  std::vector<SlotRange> ByReg;
};

using SlotSet = llvm::BitVector;
inline SlotSet makeSlotSet() { return SlotSet(slot::NumSlots); }
inline void addRange(SlotSet &S, SlotRange R) {
  if (R.Count)
    S.set(R.First, R.end());
}

} // namespace asmevo

#endif
