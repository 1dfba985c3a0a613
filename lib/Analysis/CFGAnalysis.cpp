//===- CFGAnalysis.cpp - Dominators, loops, liveness, register use --------===//
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/CodeGen/MachineDominators.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineLoopInfo.h"

using namespace llvm;
using namespace asmevo;

CFGSummary
asmevo::analyzeCFG(MachineFunction &MF, const InstrSeq &Seq,
                   const std::vector<const MachineBasicBlock *> &BBs) {
  CFGSummary R;
  R.NumBlocks = Seq.BlockBegin.size();
  for (auto &S : Seq.Succs)
    R.NumEdges += S.size();
  if (MF.empty())
    return R;
  MachineDominatorTree DT(MF);
  MachineLoopInfo LI(DT);
  DenseMap<const MachineBasicBlock *, unsigned> Index;
  for (unsigned I = 0; I < BBs.size(); ++I) {
    Index[BBs[I]] = I;
    if (!DT.isReachableFromEntry(BBs[I]))
      ++R.Unreachable;
  }
  for (MachineLoop *L : LI.getLoopsInPreorder()) {
    LoopSummary S;
    S.Header = Index.lookup(L->getHeader());
    S.Depth = L->getLoopDepth();
    S.NumBlocks = L->getNumBlocks();
    for (MachineBasicBlock *MBB : L->blocks()) {
      unsigned B = Index.lookup(MBB);
      for (unsigned I = Seq.BlockBegin[B], E = Seq.blockEnd(B); I < E; ++I) {
        const OpcodeFacts &F = *Seq.Instrs[I].F;
        ++S.NumInstrs;
        S.NumMFMA += F.is(ic::MFMA);
        S.NumVMEM += F.is(ic::VMEM);
        S.NumDS += F.is(ic::DS);
      }
    }
    if (S.Header < Seq.BlockBegin.size() &&
        Seq.BlockBegin[S.Header] < Seq.Instrs.size())
      S.HeaderAddr = Seq.Instrs[Seq.BlockBegin[S.Header]].Addr;
    R.Loops.push_back(S);
  }
  return R;
}

static void stepBackward(SlotSet &Live, const InstrRecord &I) {
  for (const RegAccess &A : I.Regs)
    if (A.Def)
      Live.reset(A.Slots.First, A.Slots.end());
  for (const RegAccess &A : I.Regs)
    if (!A.Def)
      addRange(Live, A.Slots);
}

static void countLive(const SlotSet &Live, Liveness &L) {
  unsigned S = 0, V = 0, A = 0;
  for (unsigned I : Live.set_bits()) {
    switch (slotKind(I)) {
    case SlotKind::SGPR:
      ++S;
      break;
    case SlotKind::VGPR:
      ++V;
      break;
    case SlotKind::AGPR:
      ++A;
      break;
    default:
      break;
    }
  }
  L.MaxLiveSGPRs = std::max(L.MaxLiveSGPRs, S);
  L.MaxLiveVGPRs = std::max(L.MaxLiveVGPRs, V);
  L.MaxLiveAGPRs = std::max(L.MaxLiveAGPRs, A);
}

Liveness asmevo::computeLiveness(const InstrSeq &Seq) {
  Liveness L;
  unsigned NB = Seq.BlockBegin.size();
  L.LiveIn.assign(NB, makeSlotSet());
  L.LiveOut.assign(NB, makeSlotSet());
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (unsigned B = NB; B-- > 0;) {
      SlotSet Out = makeSlotSet();
      for (unsigned S : Seq.Succs[B])
        Out |= L.LiveIn[S];
      SlotSet In = Out;
      for (unsigned I = Seq.blockEnd(B); I-- > Seq.BlockBegin[B];)
        stepBackward(In, Seq.Instrs[I]);
      if (In != L.LiveIn[B] || Out != L.LiveOut[B]) {
        L.LiveIn[B] = std::move(In);
        L.LiveOut[B] = std::move(Out);
        Changed = true;
      }
    }
  }
  for (unsigned B = 0; B < NB; ++B) {
    SlotSet Live = L.LiveOut[B];
    countLive(Live, L);
    for (unsigned I = Seq.blockEnd(B); I-- > Seq.BlockBegin[B];) {
      stepBackward(Live, Seq.Instrs[I]);
      countLive(Live, L);
    }
  }
  return L;
}

SlotSet Liveness::liveBefore(const InstrSeq &Seq, unsigned Idx) const {
  unsigned B = Seq.BlockOf[Idx];
  SlotSet Live = LiveOut[B];
  for (unsigned I = Seq.blockEnd(B); I-- > Idx;)
    stepBackward(Live, Seq.Instrs[I]);
  return Live;
}

void RegisterUse::merge(const RegisterUse &O) {
  MaxSGPR = std::max(MaxSGPR, O.MaxSGPR);
  MaxVGPR = std::max(MaxVGPR, O.MaxVGPR);
  MaxAGPR = std::max(MaxAGPR, O.MaxAGPR);
  VCC |= O.VCC;
  FlatScratch |= O.FlatScratch;
  XnackMask |= O.XnackMask;
}

RegisterUse asmevo::computeRegisterUse(const InstrSeq &Seq) {
  RegisterUse U;
  for (const InstrRecord &I : Seq.Instrs)
    for (const RegAccess &A : I.Regs) {
      unsigned Last = A.Slots.end() - 1;
      switch (slotKind(A.Slots.First)) {
      case SlotKind::SGPR:
        U.MaxSGPR = std::max<int>(U.MaxSGPR, std::min(Last, 101u));
        break;
      case SlotKind::VGPR:
        U.MaxVGPR = std::max<int>(U.MaxVGPR, Last - slot::VGPRBase);
        break;
      case SlotKind::AGPR:
        U.MaxAGPR = std::max<int>(U.MaxAGPR, Last - slot::AGPRBase);
        break;
      default:
        if (A.Slots.overlaps({slot::VCCLo, 2}))
          U.VCC = true;
        // FLAT instructions name FLAT_SCR implicitly; LLVM counts the
        // extra SGPRs only for explicit flat_scratch references.
        if (A.Slots.overlaps({slot::FlatScrLo, 2}) && !A.Implicit)
          U.FlatScratch = true;
        if (A.Slots.overlaps({slot::XnackMaskLo, 2}))
          U.XnackMask = true;
        break;
      }
    }
  return U;
}
