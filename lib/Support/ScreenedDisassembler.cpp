//===- ScreenedDisassembler.cpp - LLVM's disassembler, minus its crashes --===//
#include "asmevo/Support/ScreenedDisassembler.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/Endian.h"

using namespace llvm;
using namespace asmevo;

bool asmevo::crashesAMDGPUDisassembler(StringRef CPU, ArrayRef<uint8_t> Bytes) {
  // gfx10 and later have VOP3 literals: LLVM decodes them there.
  if (!CPU.starts_with("gfx8") && !CPU.starts_with("gfx9"))
    return false;
  if (Bytes.size() < 8)
    return false;
  uint32_t W0 = support::endian::read32le(Bytes.data());
  uint32_t W1 = support::endian::read32le(Bytes.data() + 4);
  constexpr uint32_t Literal = 255;
  // Bits 31:26 = 110100: VOP3 (VOP3a/b, VOPC/VOP1/VOP2 promoted), VOP3P
  // and MFMA on gfx8/gfx9. The second dword holds src0 (8:0), src1 (17:9)
  // and src2 (26:18); 255 selects a literal constant, which these
  // encodings do not have.
  // A VOPC compare promoted to VOP3 (opcode 25:16 below 0x100) and
  // v_readlane_b32 (0x289) write the SGPR(s) their first dword's 7:0 names;
  // 255 there is a literal, which crashes the decoder as well (found by
  // fuzz-code-object; every VOP3 opcode swept through llvm-mc with that
  // destination on gfx942 and gfx90a: only these crash).
  if (W0 >> 26 == 0b110100) {
    unsigned Op = W0 >> 16 & 0x3ff;
    return (W1 & 0x1ff) == Literal || (W1 >> 9 & 0x1ff) == Literal ||
           (W1 >> 18 & 0x1ff) == Literal ||
           ((Op < 0x100 || Op == 0x289) && (W0 & 0xff) == Literal);
  }
  // MUBUF (111000) and MTBUF (111010): soffset (second dword, 31:24) =
  // 255 asks for a literal the encoding has no room for.
  if (W0 >> 26 == 0b111000 || W0 >> 26 == 0b111010)
    return W1 >> 24 == Literal;
  // VOP1/VOP2/VOPC (bit 31 clear) with src0 = 249 are SDWA: the second
  // dword's operand selects (src0_sel 18:16, src1_sel 26:24, and dst_sel
  // 10:8 outside VOPC, whose bits 14:8 name its SGPR destination) have no
  // meaning for 7, and the decoder indexes past its table.
  constexpr uint32_t SDWA = 249, ReservedSel = 7;
  if (W0 >> 31 == 0 && (W0 & 0x1ff) == SDWA) {
    bool IsVOPC = W0 >> 25 == 0x3e;
    return (!IsVOPC && (W1 >> 8 & 7) == ReservedSel) ||
           (W1 >> 16 & 7) == ReservedSel || (W1 >> 24 & 7) == ReservedSel;
  }
  return false;
}

MCDisassembler::DecodeStatus
ScreenedDisassembler::getInstruction(MCInst &MI, uint64_t &Size,
                                     ArrayRef<uint8_t> Bytes, uint64_t Address,
                                     raw_ostream &CStream) const {
  if (crashesAMDGPUDisassembler(getSubtargetInfo().getCPU(), Bytes)) {
    Size = 8;
    return MCDisassembler::Fail;
  }
  return Inner->getInstruction(MI, Size, Bytes, Address, CStream);
}
