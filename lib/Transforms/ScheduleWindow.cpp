//===- ScheduleWindow.cpp - List scheduling within a block ----------------===//
#include "ScheduleWindow.h"
#include "EditSupport.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "asmevo/Timing/StaticCost.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/xxhash.h"
#include <algorithm>
#include <deque>
#include <map>

using namespace llvm;
using namespace asmevo;

static cl::opt<unsigned> ScheduleWindowSize(
    "schedule-window-size",
    cl::desc("schedule-window: most instructions scheduled together"),
    cl::init(96));

static cl::opt<bool> ScheduleWindowTrace(
    "schedule-window-trace", cl::Hidden,
    cl::desc("schedule-window: print each region's decision to stderr"));

namespace {

constexpr uint8_t Counters[2] = {cnt::VM, cnt::LGKM};

bool isPlainWait(const OpcodeFacts &F) {
  return F.is(ic::Waitcnt) && (F.Name == "S_WAITCNT_vi" || F.Name == "S_WAITCNT");
}

/// Instructions nothing moves across: they end a scheduling region.
bool isFence(const MachineInstr &MI, const OpcodeFacts &F) {
  if (MI.isMetaInstruction() || MI.isTerminator() || MI.isCall() ||
      MI.isBranch() || MI.isReturn() || F.Flow != FlowKind::None)
    return true;
  if (F.is(ic::Branch | ic::Barrier | ic::Message | ic::Nop | ic::SetReg |
           ic::GetReg | ic::EndPgm | ic::CacheCtl | ic::Export | ic::SetPrio |
           ic::Sleep | ic::LDSDMA | ic::GDS | ic::MovRel | ic::AddTID))
    return true;
  if (F.Counters & cnt::EXP)
    return true;
  if (F.is(ic::Waitcnt))
    return !isPlainWait(F) || MI.getNumOperands() == 0 ||
           !MI.getOperand(0).isImm();
  if (isGetPC(F.Name))
    return true;
  for (const MachineOperand &MO : MI.operands())
    if (!MO.isReg() && !MO.isImm())
      return true; // relocated operands, symbols: keep their distances
  // LLVM marks the real (encoding) opcodes as having side effects, so
  // that flag says nothing here: what may move is listed instead.
  static const char *const Pinned[] = {
      "S_SET_GPR_IDX", "S_SETREG",     "S_GETREG",     "S_MEMTIME",
      "S_MEMREALTIME", "S_DCACHE",     "S_ICACHE",     "S_SETKILL",
      "S_SETHALT",     "S_SETVSKIP",   "S_DENORM_MODE", "S_ROUND_MODE",
      "S_TTRACEDATA",  "S_INCPERFLEVEL", "S_DECPERFLEVEL", "S_WAKEUP",
      "S_TRAP",        "S_RFE",        "S_SENDMSG",    "S_SLEEP",
      "S_SETPRIO",     "S_BARRIER",    "S_ATC_PROBE",  "S_STORE",
      "S_SCRATCH",     "S_BUFFER_STORE", "S_ATOMIC",   "S_BUFFER_ATOMIC",
      "S_MOVREL",      "V_MOVREL",     "S_CBRANCH",    "S_SETPC",
      "S_SWAPPC",      "S_GETPC",      "DS_GWS",       "DS_APPEND",
      "DS_CONSUME",    "DS_ORDERED",   "BUFFER_WBINVL1", "BUFFER_INV",
      "BUFFER_WBL2",   "V_INTERP",     "EXP",          "V_READFIRSTLANE_B32_dpp"};
  for (const char *Pfx : Pinned)
    if (F.Name.starts_with(Pfx))
      return true;
  bool Movable =
      (F.isVALU() && !F.is(ic::LDSDMA)) || F.is(ic::DS) ||
      F.is(ic::Buffer | ic::Global | ic::Scratch | ic::FLAT) ||
      (F.is(ic::SMEM) && (F.Name.starts_with("S_LOAD_") ||
                          F.Name.starts_with("S_BUFFER_LOAD_"))) ||
      (F.is(ic::SALU) && !F.is(ic::SMEM) && !(F.TSFlags & (1ull << tsflag::SOPP)));
  if (!Movable) {
    if (ScheduleWindowTrace)
      errs() << "fence: " << F.Name << "\n";
    return true;
  }
  return false;
}

bool isMem(const OpcodeFacts &F) {
  return F.is(ic::VMEM | ic::DS | ic::SMEM) || F.MayLoad || F.MayStore;
}
bool isStoreLike(const OpcodeFacts &F) {
  return F.MayStore || F.is(ic::Atomic | ic::MemStore);
}
/// 1: LDS, 2: everything else (global, scratch, buffer, scalar).
unsigned spaces(const OpcodeFacts &F) {
  if (F.is(ic::FLAT) && !F.is(ic::Global | ic::Scratch))
    return 3;
  return F.is(ic::DS) ? 1 : 2;
}
bool isPureLoad(const OpcodeFacts &F) {
  return isMem(F) && F.MayLoad && !isStoreLike(F);
}

bool regConflict(const InstrRecord &A, const InstrRecord &B) {
  for (const RegAccess &X : A.Regs)
    for (const RegAccess &Y : B.Regs)
      if ((X.Def || Y.Def) && X.Slots.overlaps(Y.Slots))
        return true;
  return false;
}

bool touches(const InstrRecord &R, const SlotSet &S) {
  for (const RegAccess &A : R.Regs)
    for (unsigned I = A.Slots.First; I < A.Slots.end(); ++I)
      if (I < S.size() && S.test(I))
        return true;
  return false;
}

/// One slot of a region's new order: an instruction, or an inserted s_nop.
struct Item {
  int Idx = -1; ///< Region index, or -1 for an s_nop.
  unsigned NopImm = 0;
};

/// The block as it was before the pass first changed it.
struct BlockSave {
  MachineBasicBlock *MBB = nullptr;
  std::vector<MachineInstr *> Order;
  std::vector<std::pair<MachineInstr *, int64_t>> Imms;
  std::vector<MachineInstr *> Inserted;
};

class FunctionScheduler {
public:
  FunctionScheduler(asmevo::Pass &P, LiftedModule &LM, LiftedFunction &LF,
                    const ISAFacts &F)
      : P(P), LM(LM), LF(LF), F(F), TC(timing::TimingConfig::mi300x()),
        WindowSize(P.param("size", ScheduleWindowSize)),
        Priority(P.param("order", 0)), Jitter(P.param("jitter", 0)) {}
  Expected<bool> run();

private:
  void scheduleBlock(MachineBasicBlock &MBB, bool EntryPending,
                     bool EntryLgkm);
  /// Tries [B, E) of \p L; returns the number of s_nops inserted, or -1
  /// when the block is unchanged.
  int scheduleRegion(MachineBasicBlock &MBB, std::vector<MachineInstr *> &L,
                     size_t B, size_t E, bool EntryPending, bool LgkmOK);
  /// New s_waitcnt values for the block's order \p New (of \p Cur's
  /// instructions, nops added), each forcing what it forced in \p Cur.
  bool renumber(const std::vector<const InstrRecord *> &Cur,
                const std::vector<const InstrRecord *> &New,
                const std::vector<int> &WaitOfNew,
                std::vector<uint16_t> &Imms, bool LgkmOK);
  std::map<MachineBasicBlock *, unsigned>
  violationsByBlock(ArrayRef<ViolationSite> Sites);
  void revert(BlockSave &S);

  asmevo::Pass &P;
  LiftedModule &LM;
  LiftedFunction &LF;
  const ISAFacts &F;
  timing::TimingConfig TC;
  SlotSet LoadDefs = makeSlotSet();
  /// Per block: what a load in flight at its entry may still write: the
  /// loads of any block that no later wait of that block drains (a drained
  /// one completed before control left its block).
  std::map<MachineBasicBlock *, SlotSet> EntryLoadDefs;
  const SlotSet *CurEntryDefs = &LoadDefs;
  bool VmOK = true;
  unsigned NopOpc = ~0u;
  std::map<MachineBasicBlock *, BlockSave> Saved;
  /// The pass's parameters (PassRegistry.cpp describes them).
  unsigned WindowSize;
  unsigned Priority;
  uint64_t Jitter;
};

std::map<MachineBasicBlock *, unsigned>
FunctionScheduler::violationsByBlock(ArrayRef<ViolationSite> Sites) {
  std::vector<MachineBasicBlock *> BlockOf;
  for (MachineBasicBlock &MBB : *LF.MF)
    for (MachineInstr &MI : MBB)
      if (!MI.isMetaInstruction())
        BlockOf.push_back(&MBB);
  std::map<MachineBasicBlock *, unsigned> N;
  for (const ViolationSite &S : Sites)
    if (S.Index < BlockOf.size())
      ++N[BlockOf[S.Index]];
  return N;
}

void FunctionScheduler::revert(BlockSave &S) {
  for (MachineInstr *MI : S.Inserted)
    MI->eraseFromParent();
  for (MachineInstr *MI : S.Order)
    S.MBB->splice(S.MBB->end(), S.MBB, MI->getIterator());
  for (auto &[MI, Imm] : S.Imms)
    MI->getOperand(0).setImm(Imm);
}

Expected<bool> FunctionScheduler::run() {
  NopOpc = LM.target().encodedOpcode("S_NOP");
  if (NopOpc == ~0u)
    return false;
  AnalysisOptions AO;
  AO.Liveness = false;
  FunctionAnalysis A0 = analyzeFunction(LM, LF, F, AO);
  if (A0.FromBytes)
    return false;
  unsigned Count = 0;
  std::map<MachineBasicBlock *, SlotSet> Tail;
  for (MachineBasicBlock &MBB : *LF.MF) {
    // Loads of this block not yet drained, per counter they wait on.
    std::vector<std::pair<uint8_t, SlotSet>> Open;
    for (MachineInstr &MI : MBB)
      if (!MI.isMetaInstruction()) {
        const OpcodeFacts &OF = F.get(MI.getOpcode());
        // Generic FLAT makes vmcnt complete out of order.
        if (OF.is(ic::FLAT) && !OF.is(ic::Global | ic::Scratch))
          VmOK = false;
        if (isMem(OF) && (OF.MayLoad || OF.is(ic::Atomic))) {
          InstrRecord R = InstrRecord::fromMachineInstr(MI, F);
          SlotSet D = makeSlotSet();
          for (const RegAccess &A : R.Regs)
            if (A.Def)
              addRange(D, A.Slots);
          LoadDefs |= D;
          Open.push_back({OF.Counters, D});
        } else if (isPlainWait(OF) && MI.getNumOperands() &&
                   MI.getOperand(0).isImm()) {
          WaitcntValue V =
              WaitcntValue::decode(uint64_t(MI.getOperand(0).getImm()));
          llvm::erase_if(Open, [&](const std::pair<uint8_t, SlotSet> &X) {
            bool VM = !(X.first & cnt::VM) || V.VM == 0;
            bool LG = !(X.first & cnt::LGKM) || V.Lgkm == 0;
            bool EX = !(X.first & cnt::EXP) || V.Exp == 0;
            return VM && LG && EX;
          });
        }
        ++Count;
      }
    SlotSet &T = Tail.try_emplace(&MBB, makeSlotSet()).first->second;
    for (auto &X : Open)
      T |= X.second;
  }
  // A load in flight at any block's entry was issued by some block that
  // did not drain it before control left it.
  SlotSet Undrained = makeSlotSet();
  for (auto &[B, T] : Tail)
    Undrained |= T;
  for (MachineBasicBlock &MBB : *LF.MF)
    EntryLoadDefs.try_emplace(&MBB, Undrained);
  if (Error E = checkSameInstructions("schedule-window",
                                      A0.Seq.Instrs.size(), Count))
    return std::move(E);
  // LLVM's wait states count too: compiled code relies on them.
  SiteSet Sites0 = SiteSet::of(A0, /*Advisories=*/true);
  auto Before = violationsByBlock(Sites0.sites());

  bool InPrologue = LF.PreloadEntry != nullptr;
  unsigned Idx = 0;
  std::vector<std::pair<MachineBasicBlock *, std::pair<bool, bool>>> Work;
  for (MachineBasicBlock &MBB : *LF.MF) {
    if (&MBB == LF.PreloadEntry)
      InPrologue = false;
    unsigned First = Idx;
    for (MachineInstr &MI : MBB)
      if (!MI.isMetaInstruction())
        ++Idx;
    // A block the checks already fault relies on timing the analyses do
    // not see; moving code there could break what it relies on.
    if (InPrologue || First == Idx || Before.count(&MBB))
      continue;
    bool VmPend = A0.Waits.PendingVM.size() > First && A0.Waits.PendingVM[First];
    bool LgPend =
        A0.Waits.PendingLgkm.size() > First && A0.Waits.PendingLgkm[First];
    Work.push_back({&MBB, {VmPend || LgPend, LgPend}});
  }
  for (auto &[MBB, Pend] : Work)
    scheduleBlock(*MBB, Pend.first, Pend.second);
  if (Saved.empty())
    return false;

  // What the static checks say settles it: a block with a violation site
  // the function did not have goes back as it was.
  auto Introduced = [&] {
    return violationsByBlock(
        Sites0.introducedBy(SiteSet::of(LM, LF, F, /*Advisories=*/true)));
  };
  for (unsigned Round = 0; Round < 4 && !Saved.empty(); ++Round) {
    auto After = Introduced();
    bool Any = false;
    for (auto &[MBB, N] : After) {
      // The block itself, and the changed blocks around it (hazards and
      // waits reach across block boundaries).
      SmallVector<MachineBasicBlock *, 4> Suspects{MBB};
      for (MachineBasicBlock *Pr : MBB->predecessors())
        Suspects.push_back(Pr);
      if (MBB->getPrevNode())
        Suspects.push_back(MBB->getPrevNode());
      bool Reverted = false;
      for (MachineBasicBlock *S : Suspects) {
        auto SIt = Saved.find(S);
        if (SIt == Saved.end())
          continue;
        revert(SIt->second);
        Saved.erase(SIt);
        Reverted = true;
      }
      Any |= Reverted;
      if (!Reverted) {
        // Nothing near it changed: undo everything rather than guess.
        for (auto &[B, S] : Saved)
          revert(S);
        Saved.clear();
        return false;
      }
    }
    if (!Any)
      return true;
  }
  if (!Saved.empty() && !Introduced().empty()) {
    for (auto &[B, S] : Saved)
      revert(S);
    Saved.clear();
    return false;
  }
  return !Saved.empty();
}

void FunctionScheduler::scheduleBlock(MachineBasicBlock &MBB,
                                      bool EntryPending, bool EntryLgkm) {
  std::vector<MachineInstr *> L;
  for (MachineInstr &MI : MBB)
    L.push_back(&MI);
  auto ED = EntryLoadDefs.find(&MBB);
  CurEntryDefs = ED != EntryLoadDefs.end() ? &ED->second : &LoadDefs;
  // lgkmcnt completes in order only while every operation on it is a DS
  // operation: SMEM (and messages, generic FLAT) return out of order.
  bool LgkmOK = !EntryLgkm;
  for (MachineInstr *MI : L) {
    const OpcodeFacts &OF = F.get(MI->getOpcode());
    if ((OF.Counters & cnt::LGKM) && !OF.is(ic::DS))
      LgkmOK = false;
    if (OF.is(ic::GDS))
      LgkmOK = false;
  }
  size_t Pos = 0;
  while (Pos < L.size()) {
    if (isFence(*L[Pos], F.get(L[Pos]->getOpcode()))) {
      ++Pos;
      continue;
    }
    size_t E = Pos;
    while (E < L.size() && !isFence(*L[E], F.get(L[E]->getOpcode())) &&
           E - Pos < WindowSize)
      ++E;
    if (E - Pos >= 2) {
      int Added = scheduleRegion(MBB, L, Pos, E, EntryPending, LgkmOK);
      if (Added >= 0) {
        L.clear();
        for (MachineInstr &MI : MBB)
          L.push_back(&MI);
        E += Added;
      }
    }
    Pos = E;
  }
}

bool FunctionScheduler::renumber(const std::vector<const InstrRecord *> &Cur,
                                 const std::vector<const InstrRecord *> &New,
                                 const std::vector<int> &CurOfNew,
                                 std::vector<uint16_t> &Imms, bool LgkmOK) {
  // Position in the new order of each current instruction.
  std::vector<int> NewPos(Cur.size(), -1);
  for (unsigned I = 0; I < New.size(); ++I)
    if (CurOfNew[I] >= 0)
      NewPos[CurOfNew[I]] = I;
  Imms.resize(New.size());
  for (unsigned I = 0; I < New.size(); ++I)
    Imms[I] = (uint16_t)New[I]->Imm;
  for (unsigned W = 0; W < Cur.size(); ++W) {
    if (!isPlainWait(*Cur[W]->F))
      continue;
    WaitcntValue V = WaitcntValue::decode(uint64_t(Cur[W]->Imm));
    WaitcntValue NV = V;
    for (uint8_t C : Counters) {
      unsigned N = V.get(C);
      if (N >= WaitcntValue::max(C))
        continue;
      // The counter's operations before W now and before it after.
      std::vector<unsigned> S;
      for (unsigned I = 0; I < W; ++I)
        if (Cur[I]->F->Counters & C)
          S.push_back(I);
      std::vector<unsigned> S2;
      for (int I = 0; I < NewPos[W]; ++I)
        if (CurOfNew[I] >= 0 && (New[I]->F->Counters & C))
          S2.push_back(CurOfNew[I]);
      unsigned NN;
      if (N >= S.size()) {
        NN = N - S.size() + S2.size();
      } else {
        // W forces S[0 .. S.size()-N): the last of them in the new order
        // must have at most NN newer ones.
        int Last = -1;
        for (unsigned K = 0; K + N < S.size(); ++K) {
          auto It = llvm::find(S2, S[K]);
          if (It == S2.end())
            return false;
          Last = std::max<int>(Last, It - S2.begin());
        }
        NN = S2.size() - 1 - Last;
      }
      bool InOrder = C == cnt::VM ? VmOK : LgkmOK;
      if (NN != N && !InOrder)
        return false;
      if (NN >= WaitcntValue::max(C))
        return false;
      NV.set(C, NN);
    }
    Imms[NewPos[W]] = NV.encode() == V.encode() ? (uint16_t)Cur[W]->Imm
                                                 : NV.encode();
  }
  return true;
}

int FunctionScheduler::scheduleRegion(MachineBasicBlock &MBB,
                                      std::vector<MachineInstr *> &L, size_t B,
                                      size_t E, bool EntryPending,
                                      bool LgkmOK) {
  std::vector<InstrRecord> Recs;
  Recs.reserve(L.size());
  for (MachineInstr *MI : L)
    Recs.push_back(InstrRecord::fromMachineInstr(*MI, F));
  unsigned N = E - B;
  auto R = [&](unsigned I) -> const InstrRecord & { return Recs[B + I]; };

  // Dependencies, as edges I -> J (I < J in the current order).
  std::vector<SmallVector<unsigned, 8>> Succ(N);
  std::vector<unsigned> NumPred(N, 0);
  std::vector<std::vector<bool>> Dep(N, std::vector<bool>(N, false));
  auto AddEdge = [&](unsigned I, unsigned J) {
    if (Dep[I][J])
      return;
    Dep[I][J] = true;
    Succ[I].push_back(J);
    ++NumPred[J];
  };
  // Registers a wait at region index W may still see written (loads in
  // flight) or read (stores in flight): the block's loads and stores
  // before it, and every load's registers when something is in flight at
  // the block's entry.
  auto PendingAt = [&](unsigned W) {
    SlotSet S = EntryPending ? *CurEntryDefs : makeSlotSet();
    for (size_t I = 0; I < B + W; ++I) {
      const InstrRecord &X = Recs[I];
      if (!isMem(X.facts()))
        continue;
      for (const RegAccess &A : X.Regs)
        if (A.Def || isStoreLike(X.facts()))
          addRange(S, A.Slots);
    }
    return S;
  };
  for (unsigned J = 0; J < N; ++J) {
    const OpcodeFacts &FJ = R(J).facts();
    for (unsigned I = 0; I < J; ++I) {
      const OpcodeFacts &FI = R(I).facts();
      bool D = regConflict(R(I), R(J));
      if (!D && isMem(FI) && isMem(FJ) && (spaces(FI) & spaces(FJ)) &&
          (isStoreLike(FI) || isStoreLike(FJ)))
        D = true;
      // A counter that completes out of order keeps its operations in
      // order, so that every wait on it still means what it meant.
      for (uint8_t C : Counters)
        if ((FI.Counters & C) && (FJ.Counters & C) &&
            !(C == cnt::VM ? VmOK : LgkmOK))
          D = true;
      if (FJ.is(ic::Waitcnt))
        D = true; // nothing sinks below a wait
      if (D)
        AddEdge(I, J);
    }
  }
  for (unsigned W = 0; W < N; ++W) {
    if (!R(W).facts().is(ic::Waitcnt))
      continue;
    WaitcntValue V = WaitcntValue::decode(uint64_t(R(W).Imm));
    SlotSet Pend = PendingAt(W);
    for (unsigned J = W + 1; J < N; ++J) {
      const OpcodeFacts &FJ = R(J).facts();
      bool Cross = !FJ.is(ic::Waitcnt) && !touches(R(J), Pend);
      if (Cross && isMem(FJ)) {
        Cross = isPureLoad(FJ);
        for (uint8_t C : Counters)
          if ((FJ.Counters & C) && V.waitsOn(C) &&
              !(C == cnt::VM ? VmOK : (LgkmOK && FJ.is(ic::DS))))
            Cross = false;
      }
      if (!Cross)
        AddEdge(W, J);
    }
  }

  // Priority: the longest latency path to the region's end.
  timing::StaticWave Probe(TC);
  std::vector<double> Height(N, 0);
  for (unsigned I = N; I-- > 0;) {
    double Lat = Probe.resultLatency(R(I));
    for (unsigned J : Succ[I])
      Height[I] = std::max(Height[I], Lat + Height[J]);
    if (Succ[I].empty())
      Height[I] = Lat;
  }

  // The block before the region, as issued.
  timing::StaticWave Wave(TC);
  HazardWindow HW(F);
  int ClauseKind = 0;
  SlotSet ClauseDefs = makeSlotSet(), ClauseUses = makeSlotSet();
  auto KindOf = [](const InstrRecord &X) {
    return X.F->is(ic::SMEM) ? 1 : X.F->is(ic::VMEM) ? 2 : 0;
  };
  auto ClauseBreakNeeded = [&](const InstrRecord &X) {
    if (!F.xnackReplay())
      return false;
    int K = KindOf(X);
    if (!K || K != ClauseKind || ClauseDefs.none())
      return false;
    if (X.F->MayStore && !X.F->is(ic::LDSDMA))
      return true;
    SlotSet D = ClauseDefs, U = ClauseUses;
    for (const RegAccess &A : X.Regs)
      addRange(A.Def ? D : U, A.Slots);
    return D.anyCommon(U);
  };
  auto Issue = [&](const InstrRecord &X) {
    Wave.issue(X);
    HW.issue(X);
    int K = KindOf(X);
    if (!K || K != ClauseKind) {
      ClauseKind = K;
      ClauseDefs.reset();
      ClauseUses.reset();
    }
    for (const RegAccess &A : X.Regs)
      addRange(A.Def ? ClauseDefs : ClauseUses, A.Slots);
  };
  for (size_t I = 0; I < B; ++I)
    Issue(Recs[I]);

  std::vector<Item> Order;
  std::vector<bool> Done(N, false);
  std::vector<unsigned> Preds = NumPred;
  std::deque<InstrRecord> Nops; // kept alive for the cost below
  auto NopRec = [&](unsigned Imm) {
    InstrRecord X;
    X.Opcode = NopOpc;
    X.F = &F.get(NopOpc);
    X.Imm = Imm;
    return X;
  };
  // A wait as it will be renumbered: one more per operation on its
  // counter that has risen above it.
  auto Adjusted = [&](unsigned I) {
    InstrRecord X = R(I);
    if (!X.F->is(ic::Waitcnt))
      return X;
    WaitcntValue V = WaitcntValue::decode(uint64_t(X.Imm));
    for (uint8_t C : Counters) {
      if (V.get(C) >= WaitcntValue::max(C))
        continue;
      unsigned Up = 0;
      for (unsigned J = I + 1; J < N; ++J)
        Up += Done[J] && (R(J).F->Counters & C);
      V.set(C, std::min(V.get(C) + Up, WaitcntValue::max(C) - 1));
    }
    X.Imm = V.encode();
    return X;
  };
  for (unsigned Step = 0; Step < N; ++Step) {
    std::vector<unsigned> Ready;
    for (unsigned I = 0; I < N; ++I)
      if (!Done[I] && Preds[I] == 0)
        Ready.push_back(I);
    if (Ready.empty())
      return -1; // cannot happen: edges go forward
    std::vector<std::pair<double, unsigned>> Cand;
    for (unsigned I : Ready)
      Cand.push_back({Wave.earliest(Adjusted(I)), I});
    // Ties last: the region index, or with a jitter seed a hash of it, so
    // that --evolve can try other orders among equally good choices.
    auto TieKey = [&](unsigned I) -> uint64_t {
      if (!Jitter)
        return I;
      uint64_t Key[3] = {Jitter, B, I};
      return xxh3_64bits(ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(Key), sizeof(Key)));
    };
    auto MemFirst = [&](unsigned I) {
      return Priority == 2 && isPureLoad(R(I).facts());
    };
    llvm::sort(Cand, [&](const auto &X, const auto &Y) {
      if (MemFirst(X.second) != MemFirst(Y.second))
        return MemFirst(X.second);
      bool ByHeight = Priority != 3;
      if (Priority == 1 && Height[X.second] != Height[Y.second])
        return Height[X.second] > Height[Y.second];
      if (X.first != Y.first)
        return X.first < Y.first;
      if (ByHeight && Height[X.second] != Height[Y.second])
        return Height[X.second] > Height[Y.second];
      uint64_t KX = TieKey(X.second), KY = TieKey(Y.second);
      if (KX != KY)
        return KX < KY;
      return X.second < Y.second;
    });
    // The first candidate that needs no wait states; else the one that
    // needs the fewest, after s_nops.
    int Pick = -1, PickMissing = 0;
    bool PickBreak = false;
    for (auto &[T, I] : Cand) {
      int Missing = 0;
      for (const HazardHit &H : HW.check(R(I)))
        Missing = std::max(Missing, H.Missing);
      bool Break = ClauseBreakNeeded(R(I));
      if (Missing == 0 && !Break) {
        Pick = I;
        PickMissing = 0;
        PickBreak = false;
        break;
      }
      int Cost = std::max(Missing, Break ? 1 : 0);
      if (Pick < 0 || Cost < std::max(PickMissing, PickBreak ? 1 : 0)) {
        Pick = I;
        PickMissing = Missing;
        PickBreak = Break;
      }
    }
    int Need = std::max(PickMissing, PickBreak ? 1 : 0);
    while (Need > 0) {
      unsigned W = std::min(Need, 16);
      Nops.push_back(NopRec(W - 1));
      Issue(Nops.back());
      Order.push_back({-1, W - 1});
      Need -= W;
    }
    Issue(Adjusted(Pick));
    Order.push_back({Pick, 0});
    Done[Pick] = true;
    for (unsigned J : Succ[Pick])
      --Preds[J];
  }
  bool Same = Order.size() == N;
  for (unsigned I = 0; Same && I < N; ++I)
    Same = Order[I].Idx == (int)I;
  if (ScheduleWindowTrace)
    errs() << "schedule-window: region of " << N << " at "
           << LM.addressOf(*L[B]).value_or(0) << (Same ? ": same order\n" : ": reordered\n");
  if (Same)
    return -1;

  // The whole block in both orders; waits renumbered for the new one.
  std::vector<const InstrRecord *> Cur, New;
  std::vector<int> CurOfNew;
  for (const InstrRecord &X : Recs)
    Cur.push_back(&X);
  for (size_t I = 0; I < B; ++I) {
    New.push_back(&Recs[I]);
    CurOfNew.push_back(I);
  }
  unsigned NopK = 0;
  for (const Item &It : Order) {
    if (It.Idx < 0) {
      New.push_back(&Nops[NopK++]);
      CurOfNew.push_back(-1);
    } else {
      New.push_back(&Recs[B + It.Idx]);
      CurOfNew.push_back(B + It.Idx);
    }
  }
  for (size_t I = E; I < L.size(); ++I) {
    New.push_back(&Recs[I]);
    CurOfNew.push_back(I);
  }
  std::vector<uint16_t> Imms;
  if (!renumber(Cur, New, CurOfNew, Imms, LgkmOK)) {
    if (ScheduleWindowTrace)
      errs() << "  waits cannot be renumbered\n";
    return -1;
  }
  std::vector<InstrRecord> NewWaits;
  NewWaits.reserve(New.size());
  for (unsigned I = 0; I < New.size(); ++I)
    if (isPlainWait(*New[I]->F) && Imms[I] != (uint16_t)New[I]->Imm) {
      NewWaits.push_back(*New[I]);
      NewWaits.back().Imm = Imms[I];
      New[I] = &NewWaits.back();
    }
  timing::StaticCost C0 = timing::staticCost(TC, Cur);
  timing::StaticCost C1 = timing::staticCost(TC, New);
  if (ScheduleWindowTrace)
    errs() << "  cost " << C0.Cycles << "/" << C0.MemDone << " -> " << C1.Cycles
           << "/" << C1.MemDone << "\n";
  if (!C1.betterThan(C0))
    return -1;
  if (!P.shouldRewrite())
    return -1;

  BlockSave &S = Saved[&MBB];
  if (!S.MBB) {
    S.MBB = &MBB;
    S.Order = L;
    for (MachineInstr *MI : L)
      if (F.get(MI->getOpcode()).is(ic::Waitcnt) && MI->getNumOperands() &&
          MI->getOperand(0).isImm())
        S.Imms.push_back({MI, MI->getOperand(0).getImm()});
  }
  const TargetInstrInfo &TII = *LF.MF->getSubtarget().getInstrInfo();
  MachineBasicBlock::iterator At = E < L.size() ? L[E]->getIterator() : MBB.end();
  int Added = 0;
  for (unsigned I = 0; I < Order.size(); ++I) {
    const Item &It = Order[I];
    MachineInstr *MI;
    if (It.Idx < 0) {
      MI = BuildMI(MBB, At, DebugLoc(), TII.get(NopOpc)).addImm(It.NopImm);
      S.Inserted.push_back(MI);
      ++Added;
    } else {
      MI = L[B + It.Idx];
      MBB.splice(At, &MBB, MI->getIterator());
    }
  }
  // Every wait of the block gets its renumbered value.
  for (unsigned I = 0; I < New.size(); ++I) {
    int C = CurOfNew[I];
    if (C < 0 || !isPlainWait(*New[I]->F) || !L[C]->getNumOperands() ||
        !L[C]->getOperand(0).isImm())
      continue;
    if (Imms[I] != (uint16_t)L[C]->getOperand(0).getImm())
      L[C]->getOperand(0).setImm(Imms[I]);
  }
  return Added;
}

} // namespace

Expected<bool> ScheduleWindowPass::run(LiftedModule &LM, LiftedFunction &LF) {
  if (FactsFor != &LM) {
    Facts = std::make_unique<ISAFacts>(LM.target());
    FactsFor = &LM;
  }
  FunctionScheduler S(*this, LM, LF, *Facts);
  return S.run();
}
