//===- InstrSeq.cpp - A MachineFunction as a laid-out sequence ------------===//
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/MC/MCInst.h"
#include <map>
#include <set>

using namespace llvm;
using namespace asmevo;

InstrSeq asmevo::buildInstrSeq(const MachineFunction &MF, const ISAFacts &F,
                               std::vector<const MachineBasicBlock *> *Blocks) {
  InstrSeq S;
  DenseMap<const MachineBasicBlock *, unsigned> Index;
  for (const MachineBasicBlock &MBB : MF) {
    Index[&MBB] = S.BlockBegin.size();
    S.BlockBegin.push_back(S.Instrs.size());
    if (Blocks)
      Blocks->push_back(&MBB);
    for (const MachineInstr &MI : MBB) {
      if (MI.isMetaInstruction())
        continue;
      S.BlockOf.push_back(S.BlockBegin.size() - 1);
      S.Instrs.push_back(InstrRecord::fromMachineInstr(MI, F));
    }
  }
  S.Preds.resize(S.BlockBegin.size());
  S.Succs.resize(S.BlockBegin.size());
  for (const MachineBasicBlock &MBB : MF) {
    unsigned B = Index[&MBB];
    for (const MachineBasicBlock *Succ : MBB.successors()) {
      unsigned T = Index[Succ];
      if (llvm::is_contained(S.Succs[B], T))
        continue;
      S.Succs[B].push_back(T);
      S.Preds[T].push_back(B);
    }
  }
  return S;
}

InstrSeq asmevo::buildInstrSeqFromCode(const LiftedModule &LM,
                                       const CodeRange &CR, const ISAFacts &F) {
  InstrSeq S;
  const TargetContext &TC = LM.target();
  auto Bytes = LM.original().bytesAt(CR.Addr, CR.Size);
  if (!Bytes) {
    consumeError(Bytes.takeError());
    return S;
  }
  std::vector<InstrRecord> Recs;
  std::vector<uint64_t> Targets; // per instruction, branch target or ~0
  std::set<uint64_t> Leaders = {CR.Addr};
  if (CR.IsKernel && CR.KernelIndex >= 0 &&
      (size_t)CR.KernelIndex < LM.original().kernels().size()) {
    const KernelInfo &K = LM.original().kernels()[CR.KernelIndex];
    if (K.hasPreload())
      Leaders.insert(K.preloadEntryAddr());
  }
  uint64_t Off = 0;
  while (Off < Bytes->size()) {
    MCInst I;
    uint64_t Size = 0;
    if (TC.disassembler().getInstruction(I, Size, Bytes->slice(Off),
                                         CR.Addr + Off,
                                         nulls()) != MCDisassembler::Success ||
        !Size || Size > Bytes->size() - Off)
      break; // Undecodable: the rest is not analyzed.
    InstrRecord R = InstrRecord::fromMCInst(I, F);
    R.Addr = CR.Addr + Off;
    uint64_t T = ~0ull;
    FlowKind K = R.F->Flow;
    if ((K == FlowKind::Branch || K == FlowKind::CondBranch) &&
        I.getNumOperands() && I.getOperand(0).isImm()) {
      T = R.Addr + 4 + (int64_t)(int16_t)I.getOperand(0).getImm() * 4;
      Leaders.insert(T);
    }
    if (K != FlowKind::None && K != FlowKind::Call)
      Leaders.insert(R.Addr + Size);
    Recs.push_back(std::move(R));
    Targets.push_back(T);
    Off += Size;
  }
  std::map<uint64_t, unsigned> BlockAt;
  for (unsigned I = 0; I < Recs.size(); ++I) {
    if (Leaders.count(Recs[I].Addr) || I == 0) {
      BlockAt[Recs[I].Addr] = S.BlockBegin.size();
      S.BlockBegin.push_back(I);
    }
    S.BlockOf.push_back(S.BlockBegin.size() - 1);
  }
  S.Instrs = std::move(Recs);
  unsigned NB = S.BlockBegin.size();
  S.Preds.resize(NB);
  S.Succs.resize(NB);
  auto Edge = [&](unsigned A, unsigned B) {
    if (llvm::is_contained(S.Succs[A], B))
      return;
    S.Succs[A].push_back(B);
    S.Preds[B].push_back(A);
  };
  for (unsigned B = 0; B < NB; ++B) {
    unsigned Last = S.blockEnd(B) - 1;
    FlowKind K = S.Instrs[Last].F->Flow;
    if (Targets[Last] != ~0ull) {
      auto It = BlockAt.find(Targets[Last]);
      if (It != BlockAt.end())
        Edge(B, It->second);
    }
    bool Falls = K == FlowKind::None || K == FlowKind::CondBranch ||
                 K == FlowKind::Call || K == FlowKind::Trap;
    if (Falls && B + 1 < NB)
      Edge(B, B + 1);
  }
  return S;
}
