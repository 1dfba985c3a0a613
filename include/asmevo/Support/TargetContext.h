//===- TargetContext.h - MC and CodeGen objects for one target --*- C++ -*-===//
//
// One place that owns the LLVM MC layer (register info, instruction info,
// disassembler, printer) and the TargetMachine for a code object's target,
// so that lifting, emission and analyses agree on subtarget features.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SUPPORT_TARGETCONTEXT_H
#define ASMEVO_SUPPORT_TARGETCONTEXT_H

#include "asmevo/CodeObject/TargetInfo.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCAsmInfo.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/MC/MCInstrAnalysis.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/MCTargetOptions.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Triple.h"
#include <memory>

namespace asmevo {

class TargetContext {
public:
  static llvm::Expected<std::unique_ptr<TargetContext>>
  create(const TargetInfo &TI);

  const TargetInfo &info() const { return TI; }
  const llvm::Triple &triple() const { return TheTriple; }
  const llvm::Target &target() const { return *TheTarget; }
  const llvm::MCRegisterInfo &regInfo() const { return *MRI; }
  const llvm::MCAsmInfo &asmInfo() const { return *MAI; }
  const llvm::MCInstrInfo &instrInfo() const { return *MII; }
  const llvm::MCSubtargetInfo &subtargetInfo() const { return *STI; }
  const llvm::MCDisassembler &disassembler() const { return *Disasm; }
  const llvm::MCInstrAnalysis &instrAnalysis() const { return *MIA; }
  llvm::MCInstPrinter &printer() const { return *Printer; }
  llvm::TargetMachine &targetMachine() const { return *TM; }
  const llvm::MCTargetOptions &mcOptions() const { return MCOptions; }

  /// Opcode for an MC instruction name ("S_NOP", "S_ADD_U32_vi"), or ~0u.
  unsigned opcode(llvm::StringRef Name) const;
  /// The real opcode a pass builds for \p Name ("S_NOP"): its gfx9
  /// encoding ("S_NOP_vi") where LLVM has one, else \p Name itself; ~0u
  /// when neither exists.
  unsigned encodedOpcode(llvm::StringRef Name) const;
  llvm::StringRef opcodeName(unsigned Opc) const {
    return MII->getName(Opc);
  }
  /// Physical register by its assembly name ("s0", "v[4:7]", "a3", "vcc",
  /// "exec", "m0"), or 0.
  llvm::MCRegister reg(llvm::StringRef AsmName) const;

private:
  TargetContext() = default;
  TargetInfo TI;
  llvm::Triple TheTriple;
  const llvm::Target *TheTarget = nullptr;
  llvm::MCTargetOptions MCOptions;
  std::unique_ptr<llvm::MCRegisterInfo> MRI;
  std::unique_ptr<llvm::MCAsmInfo> MAI;
  std::unique_ptr<llvm::MCInstrInfo> MII;
  std::unique_ptr<llvm::MCSubtargetInfo> STI;
  std::unique_ptr<llvm::MCContext> DisasmCtx;
  std::unique_ptr<llvm::MCDisassembler> Disasm;
  std::unique_ptr<llvm::MCInstrAnalysis> MIA;
  std::unique_ptr<llvm::MCInstPrinter> Printer;
  std::unique_ptr<llvm::TargetMachine> TM;
  mutable llvm::StringMap<unsigned> OpcodeByName;
  mutable llvm::StringMap<unsigned> RegByName;
};

/// Registers the AMDGPU target once per process.
void initializeAMDGPUTarget();

} // namespace asmevo

#endif
