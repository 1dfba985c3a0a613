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
  // Bits 31:26 = 110100: VOP3 (VOP3a/b, VOPC/VOP1/VOP2 promoted), VOP3P
  // and MFMA on gfx8/gfx9. The second dword holds src0 (8:0), src1 (17:9)
  // and src2 (26:18); 255 selects a literal constant.
  if (W0 >> 26 != 0b110100)
    return false;
  constexpr uint32_t Literal = 255;
  return (W1 & 0x1ff) == Literal || (W1 >> 9 & 0x1ff) == Literal ||
         (W1 >> 18 & 0x1ff) == Literal;
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
