//===- TargetContext.cpp --------------------------------------------------===//
#include "asmevo/Support/TargetContext.h"
#include "asmevo/Support/ScreenedDisassembler.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetOptions.h"
#include <mutex>

using namespace llvm;
using namespace asmevo;

extern "C" {
void LLVMInitializeAMDGPUTargetInfo();
void LLVMInitializeAMDGPUTarget();
void LLVMInitializeAMDGPUTargetMC();
void LLVMInitializeAMDGPUDisassembler();
void LLVMInitializeAMDGPUAsmParser();
}

void asmevo::initializeAMDGPUTarget() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUDisassembler();
    LLVMInitializeAMDGPUAsmParser();
  });
}

Expected<std::unique_ptr<TargetContext>>
TargetContext::create(const TargetInfo &TI) {
  initializeAMDGPUTarget();
  std::unique_ptr<TargetContext> C(new TargetContext());
  C->TI = TI;
  C->TheTriple = Triple("amdgcn-amd-amdhsa");
  std::string Err;
  C->TheTarget = TargetRegistry::lookupTarget(C->TheTriple, Err);
  if (!C->TheTarget)
    return createStringError("AMDGPU target not available in this LLVM: " +
                             Err);
  const Target &T = *C->TheTarget;
  std::string Features = TI.featureString();
  C->MRI.reset(T.createMCRegInfo(C->TheTriple));
  C->MAI.reset(T.createMCAsmInfo(*C->MRI, C->TheTriple, C->MCOptions));
  C->MII.reset(T.createMCInstrInfo());
  C->STI.reset(
      T.createMCSubtargetInfo(C->TheTriple, TI.Processor, Features));
  if (!C->MRI || !C->MAI || !C->MII || !C->STI)
    return createStringError("cannot create MC layer for " + TI.targetID());
  C->DisasmCtx = std::make_unique<MCContext>(C->TheTriple, C->MAI.get(),
                                             C->MRI.get(), C->STI.get());
  if (MCDisassembler *D = T.createMCDisassembler(*C->STI, *C->DisasmCtx))
    C->Disasm = std::make_unique<ScreenedDisassembler>(
        *C->STI, *C->DisasmCtx, std::unique_ptr<MCDisassembler>(D));
  C->MIA.reset(T.createMCInstrAnalysis(C->MII.get()));
  C->Printer.reset(T.createMCInstPrinter(C->TheTriple, 0, *C->MAI, *C->MII,
                                         *C->MRI));
  if (!C->Disasm || !C->MIA || !C->Printer)
    return createStringError("cannot create disassembler for " +
                             TI.targetID());
  TargetOptions Opts;
  C->TM.reset(T.createTargetMachine(C->TheTriple, TI.Processor, Features, Opts,
                                    Reloc::PIC_, std::nullopt,
                                    CodeGenOptLevel::Default));
  if (!C->TM)
    return createStringError("cannot create target machine for " +
                             TI.targetID());
  return std::move(C);
}

unsigned TargetContext::opcode(StringRef Name) const {
  if (OpcodeByName.empty())
    for (unsigned I = 0, E = MII->getNumOpcodes(); I != E; ++I)
      OpcodeByName[MII->getName(I)] = I;
  auto It = OpcodeByName.find(Name);
  return It == OpcodeByName.end() ? ~0u : It->second;
}

unsigned TargetContext::encodedOpcode(StringRef Name) const {
  unsigned Opc = opcode((Name + "_vi").str());
  return Opc != ~0u ? Opc : opcode(Name);
}

MCRegister TargetContext::reg(StringRef AsmName) const {
  // The AMDGPU printer prints register numbers, not names, so spell the
  // TableGen names: s5 -> SGPR5, v[4:7] -> VGPR4_VGPR5_VGPR6_VGPR7,
  // vcc -> VCC.
  if (RegByName.empty())
    for (unsigned R = 1, E = MRI->getNumRegs(); R != E; ++R)
      RegByName.try_emplace(MRI->getName(R), R);
  std::string Name;
  StringRef N = AsmName.trim();
  char Kind = N.empty() ? 0 : N.front();
  StringRef Prefix = Kind == 's' ? "SGPR" : Kind == 'v' ? "VGPR" : Kind == 'a' ? "AGPR" : "";
  unsigned Lo, Hi;
  if (!Prefix.empty() && N.size() > 1 && isDigit(N[1]) &&
      !N.drop_front().getAsInteger(10, Lo)) {
    Name = (Prefix + Twine(Lo)).str();
  } else if (!Prefix.empty() && N.drop_front().starts_with("[") &&
             N.ends_with("]")) {
    auto [L, H] = N.drop_front(2).drop_back().split(':');
    if (L.getAsInteger(10, Lo) || H.getAsInteger(10, Hi) || Hi < Lo)
      return MCRegister();
    for (unsigned I = Lo; I <= Hi; ++I)
      Name += (I == Lo ? "" : "_") + (Prefix + Twine(I)).str();
  } else {
    Name = N.upper();
  }
  auto It = RegByName.find(Name);
  return It == RegByName.end() ? MCRegister() : MCRegister(It->second);
}
