//===- Resources.cpp - Register granules from the code --------------------===//
//
// Granule rules (AMDGPUUsage, "compute_pgm_rsrc1" and the gfx90a/gfx94x
// unified register file): VGPR field = ceil((align(arch_vgprs, 4) +
// agprs) / 8) - 1 with ACCUM_OFFSET = align(arch_vgprs, 4) / 4 - 1 when
// AGPRs are used; SGPR field = ceil(sgprs / 8) - 1, where gfx90a/gfx94x/
// gfx950 add VCC, FLAT_SCRATCH and XNACK_MASK (6) to the highest SGPR.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Emit/Resources.h"
#include "asmevo/Lift/DirectCall.h"
#include "../Lift/FunctionLifter.h"
#include "asmevo/Emit/Rebuild.h"
#include "asmevo/Lift/InstrKinds.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include <set>

using namespace llvm;
using namespace asmevo;

/// Adds register \p Reg to \p U.
static void noteRegister(const MCRegisterInfo &TRI, MCRegister Reg,
                         RegisterUse &U) {
  // Register units name each 32-bit (or 16-bit half) register; map
  // them back to the indices in "VGPR5", "AGPR12", "SGPR3".
  for (MCRegUnit Unit : TRI.regunits(Reg))
    for (MCRegUnitRootIterator R(Unit, &TRI); R.isValid(); ++R) {
      StringRef N = TRI.getName(*R);
      if (N.starts_with("VCC"))
        U.VCC = true;
      if (N.starts_with("FLAT_SCR"))
        U.FlatScratch = true;
      unsigned *Slot = nullptr;
      if (N.consume_front("VGPR"))
        Slot = &U.ArchVGPRs;
      else if (N.consume_front("AGPR"))
        Slot = &U.AGPRs;
      else if (N.consume_front("SGPR"))
        Slot = &U.SGPRs;
      if (!Slot)
        continue;
      unsigned Idx;
      if (N.take_while([](char C) { return isDigit(C); }).getAsInteger(10, Idx))
        continue;
      *Slot = std::max(*Slot, Idx + 1);
    }
}

unsigned asmevo::reservedSGPRs(const TargetInfo &T, bool VCC,
                               bool FlatScratch) {
  // AMDGPUUsage, "VCC", "FLAT_SCRATCH", "XNACK_MASK": VCC 2; on GFX8/9
  // XNACK 4 in all, flat scratch (or architected flat scratch, gfx94x and
  // gfx950) 6 in all.
  unsigned Extra = VCC ? 2 : 0;
  if (T.Xnack == TargetFeature::On || T.Xnack == TargetFeature::Any)
    Extra = 4;
  if (FlatScratch || T.hasArchitectedFlatScratch())
    Extra = 6;
  return Extra;
}

unsigned asmevo::unifiedVGPRs(const TargetInfo &T, unsigned ArchVGPRs,
                              unsigned AGPRs, unsigned AccumOffset) {
  if (!AGPRs || !(T.isGFX90A() || T.isGFX94X() || T.isGFX950()))
    return ArchVGPRs;
  return std::max({4u, (unsigned)alignTo(ArchVGPRs, 4), AccumOffset}) + AGPRs;
}

RegisterUse asmevo::registerUse(const LiftedFunction &LF) {
  RegisterUse U;
  if (!LF.MF)
    return U;
  const TargetRegisterInfo &TRI = *LF.MF->getSubtarget().getRegisterInfo();
  for (const MachineBasicBlock &MBB : *LF.MF)
    for (const MachineInstr &MI : MBB)
      for (const MachineOperand &MO : MI.operands())
        if (MO.isReg() && MO.getReg())
          noteRegister(TRI, MO.getReg().asMCReg(), U);
  return U;
}

/// Registers named by \p LF's original machine code, decoded from the
/// input's bytes with the operands the lifter gives each instruction
/// (explicit ones and MCInstrDesc's implicit ones), so that it compares
/// with registerUse() of the unedited function.
static RegisterUse originalRegisterUse(const LiftedModule &LM,
                                       const LiftedFunction &LF) {
  RegisterUse U;
  auto Bytes = LM.original().bytesAt(LF.Range.Addr, LF.Range.Size);
  if (!Bytes) {
    consumeError(Bytes.takeError());
    return U;
  }
  const TargetContext &TC = LM.target();
  const MCRegisterInfo &MRI = TC.regInfo();
  const MCInstrInfo &MII = TC.instrInfo();
  for (uint64_t Off = 0; Off < Bytes->size();) {
    MCInst Inst;
    uint64_t Size = 0;
    if (TC.disassembler().getInstruction(Inst, Size, Bytes->slice(Off),
                                         LF.Range.Addr + Off,
                                         nulls()) != MCDisassembler::Success ||
        Size == 0 || Size > Bytes->size() - Off) {
      Off += 4; // a data word inside the code
      continue;
    }
    Off += Size;
    for (const MCOperand &Op : Inst)
      if (Op.isReg() && Op.getReg())
        noteRegister(MRI, Op.getReg(), U);
    const MCInstrDesc &D = MII.get(Inst.getOpcode());
    for (MCPhysReg R : D.implicit_uses())
      noteRegister(MRI, R, U);
    for (MCPhysReg R : D.implicit_defs())
      noteRegister(MRI, R, U);
  }
  return U;
}

static bool changedSinceLift(const LiftedModule &LM, const LiftedFunction &LF) {
  if (!LF.MF)
    return false;
  for (const MachineBasicBlock &MBB : *LF.MF)
    for (const MachineInstr &MI : MBB)
      if (!unchangedSinceLift(LM, MI))
        return true;
  return false;
}

/// Calls go through s_swappc_b64 with a PC-relative target; a function
/// without one reaches nothing else.
static bool mayCall(const LiftedFunction &LF) {
  const TargetInstrInfo &TII = *LF.MF->getSubtarget().getInstrInfo();
  for (const MachineBasicBlock &MBB : *LF.MF)
    for (const MachineInstr &MI : MBB)
      if (opcodeTraits(TII, MI.getOpcode()).Flow == FlowKind::Call)
        return true;
  return false;
}

/// Whether \p Call (an s_swappc_b64) goes to a lifted function
/// (directCallee). regalloc-compact asks the same of a kernel it
/// renumbers; this keeps the counts it lowered honest if a later edit adds
/// a call.
static bool callsLiftedFunction(const LiftedModule &LM,
                                const MachineInstr &Call) {
  const LiftedFunction *F = directCallee(LM, Call);
  return F && F->MF;
}

KernelDescriptor
asmevo::effectiveDescriptor(const LiftedModule &LM, unsigned KernelIndex,
                            const std::set<const LiftedFunction *> *Known) {
  return kernelResources(LM, KernelIndex, Known).KD;
}

KernelResources
asmevo::kernelResources(const LiftedModule &LM, unsigned KernelIndex,
                        const std::set<const LiftedFunction *> *Known) {
  KernelResources Res;
  Res.KD = LM.descriptors()[KernelIndex];
  KernelDescriptor &KD = Res.KD;
  // Nothing changed anywhere: nothing to compute (and no need to walk
  // every instruction of every kernel looking for calls).
  if (Known && Known->empty())
    return Res;
  const LiftedFunction *Kernel = nullptr;
  for (const LiftedFunction &LF : LM.functions())
    if (LF.Range.IsKernel && (unsigned)LF.Range.KernelIndex == KernelIndex)
      Kernel = &LF;
  if (!Kernel || !Kernel->MF)
    return Res;
  // The kernel and everything it reaches through PC-relative references
  // to functions (calls).
  std::vector<const LiftedFunction *> Work = {Kernel};
  std::set<const LiftedFunction *> Seen = {Kernel};
  bool Changed = false;
  RegisterUse Use;
  std::vector<const LiftedFunction *> Reached;
  while (!Work.empty()) {
    const LiftedFunction *F = Work.back();
    Work.pop_back();
    Reached.push_back(F);
    Changed |= Known ? Known->count(F) != 0 : changedSinceLift(LM, *F);
    if (!F->MF || !mayCall(*F))
      continue;
    for (const MachineBasicBlock &MBB : *F->MF)
      for (const MachineInstr &MI : MBB)
        for (const MachineOperand &MO : MI.operands())
          if (MO.isGlobal())
            for (const LiftedFunction &G : LM.functions())
              if (G.IRFunc == MO.getGlobal() && Seen.insert(&G).second)
                Work.push_back(&G);
  }
  if (!Changed)
    return Res;
  Res.Computed = true;
  RegisterUse Orig;
  auto Merge = [](RegisterUse &Into, const RegisterUse &U) {
    Into.ArchVGPRs = std::max(Into.ArchVGPRs, U.ArchVGPRs);
    Into.AGPRs = std::max(Into.AGPRs, U.AGPRs);
    Into.SGPRs = std::max(Into.SGPRs, U.SGPRs);
    Into.VCC |= U.VCC;
    Into.FlatScratch |= U.FlatScratch;
  };
  for (const LiftedFunction *F : Reached) {
    Merge(Use, registerUse(*F));
    Merge(Orig, originalRegisterUse(LM, *F));
  }
  const TargetInfo &T = LM.original().target();
  bool Unified = T.isGFX90A() || T.isGFX94X() || T.isGFX950();
  // Renumbered registers are declared as the code uses them: the kernel's
  // and every reached callee's (a callee runs on the kernel's allocation),
  // so the count is never below what any reached function names. That
  // needs every reached function's code, and every call's target known.
  bool AllKnown = llvm::all_of(Reached, [&](const LiftedFunction *F) {
    if (!F->MF)
      return false;
    const TargetInstrInfo &TII = *F->MF->getSubtarget().getInstrInfo();
    for (const MachineBasicBlock &MBB : *F->MF)
      for (const MachineInstr &MI : MBB)
        if (opcodeTraits(TII, MI.getOpcode()).Flow == FlowKind::Call &&
            !callsLiftedFunction(LM, MI))
          return false;
    return true;
  });
  Res.VGPRsAsUsed = Kernel->RegistersRenumbered && AllKnown &&
                    (Use.ArchVGPRs || Use.AGPRs);
  Res.SGPRsAsUsed = Kernel->SGPRsRenumbered && AllKnown && Use.SGPRs;
  // ACCUM_OFFSET first: the AGPRs start there, so it decides the total.
  // It bounds the architectural VGPRs even when no AGPR is used: an edit
  // that names VGPRs above it (renaming into free registers) must raise
  // it, or v[accum_offset..] would be AGPR-backed. With no AGPR it may not
  // exceed the VGPRs allocated either (the assembler rejects
  // `.amdhsa_accum_offset` above `next_free_vgpr`), so a renumbered
  // kernel's is exactly what its VGPRs need, as LLVM sets it.
  unsigned Arch4 = std::max(4u, (unsigned)alignTo(Use.ArchVGPRs, 4));
  if (Unified && (Res.VGPRsAsUsed ? Arch4 != KD.accumOffset()
                                  : Arch4 > KD.accumOffset() &&
                                        Arch4 > alignTo(Orig.ArchVGPRs, 4))) {
    uint32_t R3 = KD.pgmRsrc3();
    KD.setPgmRsrc3((R3 & ~0x3fu) | (Arch4 / 4 - 1));
  }
  auto FieldOf = [](unsigned Count) {
    return Count ? (unsigned)divideCeil(Count, 8) - 1 : 0;
  };
  auto SGPRsOf = [&](const RegisterUse &U) {
    return U.SGPRs + reservedSGPRs(T, U.VCC, U.FlatScratch);
  };
  // The dispatch writes its SGPRs whether the code names them or not: a
  // count declared as used covers them.
  if (Res.SGPRsAsUsed)
    Use.SGPRs = std::max(Use.SGPRs, KD.dispatchSGPRs());
  unsigned VField =
      FieldOf(unifiedVGPRs(T, Use.ArchVGPRs, Use.AGPRs, KD.accumOffset()));
  unsigned SGPRs = SGPRsOf(Use);
  Res.VGPRs = unifiedVGPRs(T, Use.ArchVGPRs, Use.AGPRs);
  Res.AGPRs = Use.AGPRs;
  Res.SGPRs = SGPRs;
  Res.OrigVGPRs = unifiedVGPRs(T, Orig.ArchVGPRs, Orig.AGPRs);
  Res.OrigAGPRs = Orig.AGPRs;
  Res.OrigSGPRs = SGPRsOf(Orig);
  unsigned SField = std::min(15u, FieldOf(SGPRs));
  unsigned OrigSField = std::min(15u, FieldOf(Res.OrigSGPRs));
  // Only what the edit added is raised: an original whose declared counts
  // are below what its code names (a compiler that knew better, or counts
  // we over-estimate) keeps them when the edit names nothing new.
  uint32_t R1 = KD.pgmRsrc1();
  unsigned DeclV = R1 & 0x3f, DeclS = (R1 >> 6) & 0xf;
  if (Res.VGPRsAsUsed ||
      (VField > DeclV && VField > FieldOf(Res.OrigVGPRs)))
    R1 = (R1 & ~0x3fu) | std::min(VField, 63u);
  if (Res.SGPRsAsUsed || (SField > DeclS && SField > OrigSField))
    R1 = (R1 & ~(0xfu << 6)) | (SField << 6);
  KD.setPgmRsrc1(R1);
  return Res;
}
