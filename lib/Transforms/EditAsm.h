//===- EditAsm.h - Assembler text of an edit, instructions only -*- C++ -*-===//
//
// An edit's new instructions come as assembler text from an agent, so they
// are untrusted: each line must be exactly one instruction LLVM's AMDGPU
// assembler accepts for the target, with constant operands only, and none
// of the instructions that leave the function, change control flow or the
// ABI the kernel descriptor declares (docs/edit-script.md, "What is
// refused").
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_TRANSFORMS_EDITASM_H
#define ASMEVO_LIB_TRANSFORMS_EDITASM_H

#include "asmevo/Support/TargetContext.h"
#include "llvm/MC/MCInst.h"
#include "llvm/Support/Error.h"

namespace asmevo {

/// One line of assembler text to one MCInst, or why not.
llvm::Expected<llvm::MCInst> parseEditInstruction(const TargetContext &TC,
                                                  llvm::StringRef Line);

/// Why an edit may not create \p Inst (refused opcode or register), or
/// success. parseEditInstruction already asks this.
llvm::Error checkCreatable(const TargetContext &TC, const llvm::MCInst &Inst);

/// Why an edit may not name \p Reg: a trap or flat-scratch register, or an
/// index beyond the target's register files.
llvm::Error checkRegister(const TargetContext &TC, llvm::MCRegister Reg);

/// \p Reg as the assembler spells it ("v300", "s[4:5]", "vcc").
std::string asmRegName(const TargetContext &TC, llvm::MCRegister Reg);

/// Why an edit may not delete, replace, move or change an instruction of
/// opcode \p Opc (control flow, program end, ABI), or success.
llvm::Error checkRemovable(const TargetContext &TC, unsigned Opc);

} // namespace asmevo

#endif
