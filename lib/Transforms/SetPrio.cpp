//===- SetPrio.cpp - Raise wave priority around memory issue --------------===//
#include "SetPrio.h"
#include "ViolationSites.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/CodeGen/MachineDominators.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/MachineLoopInfo.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/Support/CommandLine.h"

using namespace llvm;
using namespace asmevo;

static cl::opt<unsigned> SetPrioMinMFMA(
    "setprio-min-mfma",
    cl::desc("setprio: fewest MFMAs in an innermost loop to raise the "
             "priority of its memory issue"),
    cl::init(8));

Expected<bool> SetPrioPass::run(LiftedModule &LM, LiftedFunction &LF) {
  if (FactsFor != &LM) {
    Facts = std::make_unique<ISAFacts>(LM.target());
    FactsFor = &LM;
  }
  const ISAFacts &F = *Facts;
  MachineFunction &MF = *LF.MF;
  if (MF.empty())
    return false;
  unsigned Opc = LM.target().encodedOpcode("S_SETPRIO");
  if (Opc == ~0u)
    return false;
  for (MachineBasicBlock &MBB : MF)
    for (MachineInstr &MI : MBB)
      if (F.get(MI.getOpcode()).is(ic::SetPrio))
        return false; // already tuned by hand
  SmallPtrSet<MachineBasicBlock *, 8> Prologue;
  if (LF.PreloadEntry)
    for (MachineBasicBlock &MBB : MF) {
      if (&MBB == LF.PreloadEntry)
        break;
      Prologue.insert(&MBB);
    }

  MachineDominatorTree DT(MF);
  MachineLoopInfo LI(DT);
  // Blocks in layout order, so that rewrites are numbered the same on
  // every run.
  SmallPtrSet<MachineBasicBlock *, 16> Hot;
  for (MachineLoop *L : LI.getLoopsInPreorder()) {
    if (!L->isInnermost())
      continue;
    unsigned MFMAs = 0;
    for (MachineBasicBlock *MBB : L->blocks())
      for (MachineInstr &MI : *MBB)
        MFMAs += F.get(MI.getOpcode()).is(ic::MFMA);
    if (MFMAs < param("min-mfma", SetPrioMinMFMA))
      continue;
    for (MachineBasicBlock *MBB : L->blocks())
      if (!Prologue.count(MBB))
        Hot.insert(MBB);
  }
  if (Hot.empty())
    return false;

  AnalysisOptions AO;
  AO.Liveness = false;
  FunctionAnalysis A0 = analyzeFunction(LM, LF, F, AO);
  if (A0.FromBytes)
    return false;
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  std::vector<MachineInstr *> Inserted;
  for (MachineBasicBlock &MBB : MF) {
    if (!Hot.count(&MBB))
      continue;
    MachineInstr *First = nullptr, *Last = nullptr;
    for (MachineInstr &MI : MBB) {
      const OpcodeFacts &OF = F.get(MI.getOpcode());
      bool Load = OF.is(ic::VMEM) && OF.MayLoad;
      if (!First) {
        if (Load)
          First = Last = &MI;
        continue;
      }
      // The phase ends where the wave would wait anyway.
      if (OF.is(ic::Waitcnt | ic::Barrier | ic::Sleep | ic::Branch) ||
          OF.Flow != FlowKind::None)
        break;
      if (Load)
        Last = &MI;
    }
    if (!First || !shouldRewrite())
      continue;
    Inserted.push_back(
        BuildMI(MBB, First->getIterator(), DebugLoc(), TII.get(Opc)).addImm(1));
    Inserted.push_back(BuildMI(MBB, std::next(Last->getIterator()), DebugLoc(),
                               TII.get(Opc))
                           .addImm(0));
  }
  if (Inserted.empty())
    return false;
  if (!SiteSet::of(A0).noneIntroducedBy(SiteSet::of(LM, LF, F))) {
    for (MachineInstr *MI : Inserted)
      MI->eraseFromParent();
    return false;
  }
  return true;
}
