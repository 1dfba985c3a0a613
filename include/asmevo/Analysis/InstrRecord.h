//===- InstrRecord.h - One instruction as the analyses see it ---*- C++ -*-===//
//
// The instruction-stream interface shared by the static checks and the
// emulator's run-time scoreboard: opcode facts, register operands as slot
// ranges (with their operand index, def/use and implicit flags) and the
// first immediate. Built from a lifted MachineInstr or from a decoded
// MCInst, so the same hazard and waitcnt tables serve both.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_ANALYSIS_INSTRRECORD_H
#define ASMEVO_ANALYSIS_INSTRRECORD_H

#include "asmevo/Analysis/ISAFacts.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>

namespace llvm {
class MachineInstr;
class MCInst;
} // namespace llvm

namespace asmevo {

struct RegAccess {
  SlotRange Slots;
  uint8_t OpIdx = 0; ///< Operand index (explicit operands first).
  bool Def = false;
  bool Implicit = false;
};

struct InstrRecord {
  unsigned Opcode = 0;
  const OpcodeFacts *F = nullptr;
  llvm::SmallVector<RegAccess, 6> Regs;
  int64_t Imm = 0;      ///< First immediate operand.
  unsigned NumDefs = 0; ///< Explicit defs in the descriptor.
  /// DPP ops: operand index of the source the DPP crossbar reads (the
  /// first register source that is not the "old" value tied to vdst).
  uint8_t DPPSrc = 255;
  uint8_t Passes = 1;   ///< MFMA passes (resolved per instruction).
  bool XDL = false;     ///< MFMA on the XDL unit.
  /// A VALU (not MFMA) that writes its VGPR through a destination select,
  /// the dst-sel forwarding hazard's producer: SDWA with dst_sel other
  /// than DWORD, or VOP3 src0_modifiers with DST_OP_SEL (bit 3); or
  /// VOP3P with that bit, which there is src0's op_sel_hi (set by
  /// default) and which only LLVM reads as a destination select.
  enum : uint8_t { NoDstSel, DstSelWrite, DstSelVOP3P };
  uint8_t DstSel = NoDstSel;
  uint64_t Addr = 0;    ///< Original address, or ~0 when unknown.

  static InstrRecord fromMachineInstr(const llvm::MachineInstr &MI,
                                      const ISAFacts &Facts);
  static InstrRecord fromMCInst(const llvm::MCInst &MI, const ISAFacts &Facts);

  const OpcodeFacts &facts() const { return *F; }
  /// Wait states this instruction provides to the ones after it: s_nop N
  /// gives N+1 (CDNA3 ISA, S_NOP: SIMM16[3:0] + 1), everything else 1.
  unsigned waitStates() const {
    return F->is(ic::Nop) ? (unsigned)(Imm & 0xf) + 1 : 1;
  }
  const RegAccess *operand(unsigned OpIdx) const {
    for (const RegAccess &R : Regs)
      if (!R.Implicit && R.OpIdx == OpIdx)
        return &R;
    return nullptr;
  }
  bool defines(SlotRange S) const {
    for (const RegAccess &R : Regs)
      if (R.Def && R.Slots.overlaps(S))
        return true;
    return false;
  }
  bool reads(SlotRange S) const {
    for (const RegAccess &R : Regs)
      if (!R.Def && R.Slots.overlaps(S))
        return true;
    return false;
  }
  /// MFMA accumulator input: src2, or for v_smfmac the vdst_in operand
  /// tied to the destination (its src2 is the sparsity index).
  unsigned srcCIdx() const {
    return F->Name.starts_with("V_SMFMAC") ? NumDefs + 5 : NumDefs + 2;
  }
  const RegAccess *srcC() const { return operand(srcCIdx()); }
  bool isSrcC(const RegAccess &R) const {
    return !R.Def && !R.Implicit && R.OpIdx == srcCIdx();
  }
  /// v_readlane/v_writelane lane-select operand (src1).
  const RegAccess *laneSelect() const { return operand(2); }
  /// Store data of a VMEM store: MUBUF puts vdata first, FLAT after vaddr.
  const RegAccess *storeData() const;
  /// The MUBUF soffset field holds a register (not an inline constant).
  bool hasSOffsetReg() const;
  /// s_setreg/s_getreg hardware register id (simm16 [5:0]).
  unsigned hwRegId() const { return (unsigned)(Imm & 0x3f); }
};

} // namespace asmevo

#endif
