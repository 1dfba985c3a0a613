//===- AsmText.h - Assembler text in and out --------------------*- C++ -*-===//
//
// --emit=asm writes the same content as the relocatable object, as text:
// instructions as the MC printer spells them where that text assembles
// back to the original bytes, raw .long words (with the disassembly in a
// comment) where it does not. Reading assembler text back assembles it
// with LLVM's AMDGPU asm parser into the relocatable object lld links.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_EMIT_ASMTEXT_H
#define ASMEVO_EMIT_ASMTEXT_H

#include "asmevo/CodeObject/TargetInfo.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/MC/MCInst.h"
#include "llvm/Support/Error.h"
#include <vector>

namespace asmevo {

class TargetContext;

struct PrintCheckItem {
  llvm::MCInst Inst;
  llvm::ArrayRef<uint8_t> Bytes;
  uint64_t Addr = 0;
};

/// For each instruction: does its printed text assemble to exactly its
/// bytes? One parser run for the whole list.
std::vector<bool> printsLosslessly(const TargetContext &TC,
                                   llvm::ArrayRef<PrintCheckItem> Items);

/// The target an assembler file declares (.amdgcn_target and
/// .amdhsa_code_object_version).
llvm::Expected<TargetInfo> targetOfAssembly(llvm::StringRef Text,
                                            llvm::StringRef FileName);

/// Assembles \p Text into a relocatable ELF object.
llvm::Expected<std::vector<uint8_t>> assemble(llvm::StringRef Text,
                                              llvm::StringRef FileName);

} // namespace asmevo

#endif
