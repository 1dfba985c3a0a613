//===- ScreenedDisassembler.h - Decoding minus LLVM's crashes - -*- C++ -*-===//
//
// LLVM 22's AMDGPU disassembler crashes (a null Twine printed while it
// reports the operand) on some encodings a hostile or damaged code object
// can hold, and `llvm-objdump -d` crashes on them too. Every decode in
// AsmEvo goes through TargetContext::disassembler(), which is this wrapper:
// it refuses those encodings as invalid before LLVM sees them and hands
// everything else on unchanged.
//
// Known classes, on targets without VOP3 literals (gfx8 and gfx9, which
// include gfx90a, gfx942 and gfx950); no assembler produces any of them,
// and each is an invalid encoding there:
//  - VOP3, VOP3P or MFMA with src0, src1 or src2 = 255 (a literal), found
//    by fuzz-lift;
//  - MUBUF or MTBUF with soffset = 255, and SDWA with an operand select of
//    7 (reserved), found by sweeping random encodings through
//    `llvm-mc --disassemble` after fuzz-lift crashed again.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SUPPORT_SCREENEDDISASSEMBLER_H
#define ASMEVO_SUPPORT_SCREENEDDISASSEMBLER_H

#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include <memory>

namespace asmevo {

/// True when \p Bytes starts with an encoding LLVM 22's AMDGPU disassembler
/// for \p CPU is known to crash on.
bool crashesAMDGPUDisassembler(llvm::StringRef CPU,
                               llvm::ArrayRef<uint8_t> Bytes);

class ScreenedDisassembler final : public llvm::MCDisassembler {
public:
  ScreenedDisassembler(const llvm::MCSubtargetInfo &STI, llvm::MCContext &Ctx,
                       std::unique_ptr<llvm::MCDisassembler> Inner)
      : MCDisassembler(STI, Ctx), Inner(std::move(Inner)) {}

  DecodeStatus getInstruction(llvm::MCInst &MI, uint64_t &Size,
                              llvm::ArrayRef<uint8_t> Bytes, uint64_t Address,
                              llvm::raw_ostream &CStream) const override;
  uint64_t suggestBytesToSkip(llvm::ArrayRef<uint8_t> Bytes,
                              uint64_t Address) const override {
    return Inner->suggestBytesToSkip(Bytes, Address);
  }

private:
  std::unique_ptr<llvm::MCDisassembler> Inner;
};

} // namespace asmevo

#endif
