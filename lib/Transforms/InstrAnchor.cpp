//===- InstrAnchor.cpp - An instruction's text and bytes ------------------===//
#include "asmevo/Transforms/InstrAnchor.h"
#include "asmevo/Emit/Rebuild.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCFixup.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

std::vector<MachineInstr *> asmevo::codeInstrs(MachineBasicBlock &MBB) {
  std::vector<MachineInstr *> Out;
  for (MachineInstr &MI : MBB)
    if (!MI.isMetaInstruction())
      Out.push_back(&MI);
  return Out;
}

InstrAnchorer::InstrAnchorer(const LiftedModule &LM) : LM(LM) {
  const TargetContext &TC = LM.target();
  Ctx = std::make_unique<MCContext>(TC.triple(), &TC.asmInfo(), &TC.regInfo(),
                                    &TC.subtargetInfo());
  Emitter.reset(TC.target().createMCCodeEmitter(TC.instrInfo(), *Ctx));
}

InstrAnchorer::~InstrAnchorer() = default;

Expected<MCInst> InstrAnchorer::lower(const MachineInstr &MI,
                                      bool ZeroSymbolic) const {
  MCInst Inst;
  Inst.setOpcode(MI.getOpcode());
  unsigned N = MI.getDesc().getNumOperands();
  for (unsigned I = 0; I < N && I < MI.getNumOperands(); ++I) {
    const MachineOperand &MO = MI.getOperand(I);
    if (MO.isReg())
      Inst.addOperand(MCOperand::createReg(MO.getReg()));
    else if (MO.isImm())
      Inst.addOperand(MCOperand::createImm(MO.getImm()));
    else if (ZeroSymbolic)
      Inst.addOperand(MCOperand::createImm(0));
    else
      return createStringError(
          "'%s' has a block or symbol operand, which no edit creates",
          LM.target().opcodeName(MI.getOpcode()).str().c_str());
  }
  return Inst;
}

Expected<std::vector<uint8_t>> InstrAnchorer::encode(const MCInst &Inst) {
  if (!Emitter)
    return createStringError("no code emitter for this target");
  SmallVector<char, 16> Buf;
  SmallVector<MCFixup, 2> Fixups;
  Emitter->encodeInstruction(Inst, Buf, Fixups, LM.target().subtargetInfo());
  if (!Fixups.empty() || Buf.empty())
    return createStringError("'%s' does not encode to constant bytes",
                             print(Inst).c_str());
  return std::vector<uint8_t>(Buf.begin(), Buf.end());
}

std::string InstrAnchorer::print(const MCInst &Inst, uint64_t Addr) const {
  std::string S;
  raw_string_ostream OS(S);
  const TargetContext &TC = LM.target();
  TC.printer().printInst(&Inst, Addr, "", TC.subtargetInfo(), OS);
  return StringRef(S).trim().str();
}

Expected<AnchoredInstr> InstrAnchorer::anchor(const MachineInstr &MI) {
  LiftedModule::Origin O = LM.origin(MI);
  if (O.Addr && unchangedSinceLift(LM, MI)) {
    const CodeObject &CO = LM.original();
    const ELFSection *Sec = CO.sectionForAddr(*O.Addr);
    if (!Sec)
      return createStringError("original address 0x%llx is in no section",
                               (unsigned long long)*O.Addr);
    uint64_t Avail = Sec->Addr + Sec->Size - *O.Addr;
    auto Window = CO.bytesAt(*O.Addr, std::min<uint64_t>(32, Avail));
    if (!Window)
      return Window.takeError();
    MCInst Inst;
    uint64_t Size = 0;
    if (LM.target().disassembler().getInstruction(Inst, Size, *Window, *O.Addr,
                                                  nulls()) ==
        MCDisassembler::Success) {
      AnchoredInstr A;
      A.Text = print(Inst, *O.Addr);
      A.Bytes.assign(Window->begin(), Window->begin() + Size);
      return A;
    }
  }
  // An edited branch or PC-relative literal has no offset before layout:
  // its anchor shows 0 there (docs/edit-script.md).
  auto Inst = lower(MI, /*ZeroSymbolic=*/true);
  if (!Inst)
    return Inst.takeError();
  auto Bytes = encode(*Inst);
  if (!Bytes)
    return Bytes.takeError();
  return AnchoredInstr{print(*Inst), std::move(*Bytes)};
}

Expected<uint64_t> InstrAnchorer::fingerprint(MachineFunction &MF) {
  InstrFingerprint FP;
  for (MachineBasicBlock &MBB : MF)
    for (MachineInstr *MI : codeInstrs(MBB)) {
      auto A = anchor(*MI);
      if (!A)
        return A.takeError();
      FP.add(A->Text, A->Bytes);
    }
  return FP.value();
}
