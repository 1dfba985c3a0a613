//===- Waitcnt.cpp - Score brackets over the CFG --------------------------===//
//
// Each counter keeps an upper bound UB (operations issued) and a lower
// bound LB (operations known complete); an operation's score is its UB at
// issue and it is complete once score <= LB. Each register slot (and one
// extra slot for "LDS memory") keeps the score of the last operation that
// writes it. Entry states are normalized (UB = Base, old completed scores
// clamped) so the fixpoint is finite.
//
// Slack: when an s_waitcnt W would force an operation (if the waits before
// it were relaxed, W alone would still force it), W becomes its "forcer";
// a later use of the operation's result demands W to keep forcing it, i.e.
// W's counter value may rise to the number of operations issued after it.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Analysis/Waitcnt.h"
#include "llvm/ADT/bit.h"

using namespace llvm;
using namespace asmevo;

namespace {
constexpr unsigned NumCnt = 3;
constexpr uint8_t CntBit[NumCnt] = {cnt::VM, cnt::LGKM, cnt::EXP};
constexpr unsigned LDSSlot = slot::NumSlots;
constexpr unsigned NumTracked = slot::NumSlots + 1;
constexpr uint32_t Base = 1u << 12;
constexpr unsigned OldestKept = 255;

// Event kinds per counter.
enum : uint8_t { KVmem = 1, KFlatVM = 2 };
enum : uint8_t { KSmem = 1, KLds = 2, KMsg = 4, KFlatLgkm = 8 };

unsigned maxCount(unsigned C) { return WaitcntValue::max(CntBit[C]); }

struct State {
  uint32_t UB[NumCnt] = {Base, Base, Base};
  uint32_t LB[NumCnt] = {Base, Base, Base};
  uint8_t Kinds[NumCnt] = {0, 0, 0};
  std::vector<uint32_t> Score;
  std::vector<int32_t> Forcer;
  std::vector<uint8_t> Newer;
  bool Valid = false;

  void init() {
    Score.assign(NumTracked * NumCnt, 0);
    Forcer.assign(NumTracked * NumCnt, -1);
    Newer.assign(NumTracked * NumCnt, 0);
    Valid = true;
  }
  uint32_t &score(unsigned S, unsigned C) { return Score[S * NumCnt + C]; }
  bool outOfOrder(unsigned C) const {
    if (C == 0)
      return Kinds[0] & KFlatVM;
    if (C == 1)
      return (Kinds[1] & (KSmem | KFlatLgkm)) || llvm::popcount(Kinds[1]) > 1;
    return llvm::popcount(Kinds[2]) > 1;
  }
  bool pending(unsigned S, unsigned C) const {
    uint32_t Sc = Score[S * NumCnt + C];
    return Sc > LB[C];
  }
  void clampPending(unsigned C) {
    // As LLVM's SIInsertWaitcnts: only expcnt is taken to saturate (issue
    // stalls); vmcnt and lgkmcnt may have more operations in flight than
    // they can count, so none is assumed complete. The large cap only
    // bounds the fixpoint.
    unsigned Cap = C == 2 ? maxCount(C) : 250;
    if (UB[C] - LB[C] > Cap)
      LB[C] = UB[C] - Cap;
    if (UB[C] == LB[C])
      Kinds[C] = 0;
  }
  /// Rebases every counter so UB == Base.
  void normalize() {
    for (unsigned C = 0; C < NumCnt; ++C) {
      int64_t Shift = (int64_t)Base - UB[C];
      uint32_t NewLB = (uint32_t)((int64_t)LB[C] + Shift);
      for (unsigned S = 0; S < NumTracked; ++S) {
        uint32_t &Sc = Score[S * NumCnt + C];
        if (!Sc)
          continue;
        int64_t V = (int64_t)Sc + Shift;
        if (Sc <= LB[C])
          V = std::max<int64_t>(std::min<int64_t>(V, NewLB),
                                Base - OldestKept);
        Sc = (uint32_t)std::max<int64_t>(V, 1);
      }
      UB[C] = Base;
      LB[C] = NewLB;
    }
  }
  /// Joins \p O (both normalized).
  bool merge(const State &O) {
    if (!Valid) {
      *this = O;
      return true;
    }
    bool Changed = false;
    uint32_t OldLB[NumCnt];
    for (unsigned C = 0; C < NumCnt; ++C) {
      OldLB[C] = LB[C];
      if (O.LB[C] < LB[C]) {
        LB[C] = O.LB[C];
        Changed = true;
      }
      if ((Kinds[C] | O.Kinds[C]) != Kinds[C]) {
        Kinds[C] |= O.Kinds[C];
        Changed = true;
      }
    }
    for (unsigned I = 0; I < Score.size(); ++I) {
      unsigned C = I % NumCnt;
      uint32_t A = Score[I], B = O.Score[I];
      if (A == 0 && B == 0)
        continue;
      bool PA = A > OldLB[C], PB = B > O.LB[C];
      // Pending on either path stays pending; operations complete on both
      // paths stay complete under the joined (lower) LB.
      bool TakeO;
      uint32_t V;
      if (PA || PB) {
        TakeO = PB && (!PA || B > A);
        V = TakeO ? B : A;
      } else {
        TakeO = B > A || (B == A && Forcer[I] < 0);
        V = std::min(std::max(A, B), LB[C]);
      }
      if (V != Score[I]) {
        Score[I] = V;
        Changed = true;
      }
      if (TakeO) {
        Forcer[I] = O.Forcer[I];
        Newer[I] = O.Newer[I];
      }
    }
    return Changed;
  }
  bool sameFlow(const State &O) const {
    for (unsigned C = 0; C < NumCnt; ++C)
      if (LB[C] != O.LB[C] || UB[C] != O.UB[C] || Kinds[C] != O.Kinds[C])
        return false;
    return Score == O.Score;
  }
};

class Analyzer {
public:
  Analyzer(const InstrSeq &Seq, const ISAFacts &F, const WaitcntOptions &O)
      : Seq(Seq), Opts(O) {}

  WaitcntResult run() {
    unsigned NB = Seq.BlockBegin.size();
    WaitIndex.assign(Seq.Instrs.size(), -1);
    for (unsigned I = 0; I < Seq.Instrs.size(); ++I)
      if (Seq.Instrs[I].F->is(ic::Waitcnt)) {
        WaitIndex[I] = R.Waits.size();
        WaitSlack W;
        W.Instr = I;
        W.Actual = WaitcntValue::decode(Seq.Instrs[I].Imm);
        R.Waits.push_back(W);
      }
    Demand.assign(R.Waits.size() * NumCnt, 0xff);
    Exit.assign(NB, State());
    computeOrder();
    // Fixpoint of block exit states, then one recording pass.
    bool Changed = true;
    for (unsigned Iter = 0; Changed && Iter < 64; ++Iter) {
      Changed = false;
      ++R.Iterations;
      for (unsigned B : Order) {
        State S = entryState(B);
        runBlock(B, S, /*Record=*/false);
        if (!Exit[B].Valid || !S.sameFlow(Exit[B])) {
          Changed = true;
          Exit[B] = std::move(S);
        } else {
          Exit[B] = std::move(S);
        }
      }
    }
    R.PendingVM.assign(Seq.Instrs.size(), 0);
    R.PendingLgkm.assign(Seq.Instrs.size(), 0);
    // Two recording rounds let forcers carried around loop back edges
    // reach their uses; only the last round's violations are kept.
    for (unsigned Round = 0; Round < 2; ++Round) {
      Viol.clear();
      for (unsigned B : Order) {
        State S = entryState(B);
        runBlock(B, S, /*Record=*/true);
        Exit[B] = std::move(S);
      }
    }
    R.Violations = std::move(Viol);
    for (unsigned W = 0; W < R.Waits.size(); ++W)
      for (unsigned C = 0; C < NumCnt; ++C) {
        uint8_t D = Demand[W * NumCnt + C];
        unsigned Max = maxCount(C);
        unsigned Act = R.Waits[W].Actual.get(CntBit[C]);
        unsigned Need = D == 0xff ? Max : std::min<unsigned>(D, Max - 1);
        R.Waits[W].Needed.set(CntBit[C], std::max(Act, Need));
      }
    return std::move(R);
  }

private:
  void computeOrder() {
    unsigned NB = Seq.BlockBegin.size();
    std::vector<uint8_t> Seen(NB, 0);
    std::vector<unsigned> Post;
    auto DFS = [&](unsigned Root) {
      if (Seen[Root])
        return;
      std::vector<std::pair<unsigned, unsigned>> Stack{{Root, 0}};
      Seen[Root] = 1;
      while (!Stack.empty()) {
        auto &[B, I] = Stack.back();
        if (I < Seq.Succs[B].size()) {
          unsigned S = Seq.Succs[B][I++];
          if (!Seen[S]) {
            Seen[S] = 1;
            Stack.push_back({S, 0});
          }
          continue;
        }
        Post.push_back(B);
        Stack.pop_back();
      }
    };
    if (NB)
      DFS(0);
    for (unsigned B = 0; B < NB; ++B)
      if (Seq.Preds[B].empty())
        DFS(B);
    for (unsigned B = 0; B < NB; ++B)
      DFS(B);
    Order.assign(Post.rbegin(), Post.rend());
  }

  State entryState(unsigned B) {
    State S;
    for (unsigned P : Seq.Preds[B])
      if (Exit[P].Valid)
        S.merge(Exit[P]);
    if (!S.Valid || Seq.Preds[B].empty()) {
      // Function entries (and the preload entry) start with nothing in
      // flight.
      State E;
      E.init();
      if (!S.Valid)
        S = std::move(E);
      else
        S.merge(E);
    }
    return S;
  }

  void need(State &S, unsigned Idx, unsigned Slot, unsigned C,
            WaitNeedKind K, SlotRange Reg, bool Record) {
    uint32_t Sc = S.score(Slot, C);
    if (!Sc)
      return;
    if (Sc > S.LB[C]) {
      if (!Record)
        return;
      // A wait can name at most max-1 operations still in flight.
      unsigned N = S.outOfOrder(C)
                       ? 0
                       : std::min<unsigned>(S.UB[C] - Sc, maxCount(C) - 1);
      addViolation(Idx, K, C, N, Reg);
      return;
    }
    int32_t W = S.Forcer[Slot * NumCnt + C];
    if (Record && W >= 0) {
      uint8_t &D = Demand[W * NumCnt + C];
      D = std::min(D, S.Newer[Slot * NumCnt + C]);
    }
  }

  void addViolation(unsigned Idx, WaitNeedKind K, unsigned C, unsigned N,
                    SlotRange Reg) {
    if (!Viol.empty() && Viol.back().Instr == Idx && Viol.back().Kind == K) {
      WaitcntValue &V = Viol.back().Needed;
      V.set(CntBit[C], std::min(V.get(CntBit[C]), N));
      return;
    }
    WaitViolation V;
    V.Instr = Idx;
    V.Kind = K;
    V.Needed.set(CntBit[C], N);
    V.Reg = Reg;
    Viol.push_back(V);
  }

  void runBlock(unsigned B, State &S, bool Record) {
    for (unsigned I = Seq.BlockBegin[B], E = Seq.blockEnd(B); I < E; ++I)
      step(S, I, Record);
    S.normalize();
  }

  void step(State &S, unsigned Idx, bool Record) {
    const InstrRecord &In = Seq.Instrs[Idx];
    const OpcodeFacts &F = *In.F;
    if (Record) {
      R.PendingVM[Idx] = std::min<uint32_t>(S.UB[0] - S.LB[0], 255);
      R.PendingLgkm[Idx] = std::min<uint32_t>(S.UB[1] - S.LB[1], 255);
    }
    // Reads and writes of registers a pending operation will write.
    for (const RegAccess &A : In.Regs) {
      for (unsigned Sl = A.Slots.First; Sl < A.Slots.end(); ++Sl)
        for (unsigned C = 0; C < NumCnt; ++C) {
          if (A.Def) {
            // Same-counter in-order writes land in issue order.
            if ((F.Counters & CntBit[C]) && !S.outOfOrder(C))
              continue;
            need(S, Idx, Sl, C, WaitNeedKind::WriteAfterWrite, A.Slots,
                 Record);
          } else {
            need(S, Idx, Sl, C, WaitNeedKind::Read, A.Slots, Record);
          }
        }
    }
    // DS writes must land before other waves read after the barrier. LDS
    // DMA is not required here: pipelines fill one LDS buffer by DMA while
    // the waves synchronise on another, and addresses are not known.
    if (F.is(ic::Barrier))
      need(S, Idx, LDSSlot, 1, WaitNeedKind::Barrier, SlotRange(), Record);
    if (Opts.LDSDMABeforeDSRead && F.readsLDS())
      need(S, Idx, LDSSlot, 0, WaitNeedKind::Read, SlotRange(), Record);

    if (F.is(ic::Waitcnt))
      applyWait(S, Idx, WaitcntValue::decode(In.Imm), Record);

    // New operations.
    if (F.Counters) {
      for (unsigned C = 0; C < NumCnt; ++C) {
        if (!(F.Counters & CntBit[C]))
          continue;
        ++S.UB[C];
        S.Kinds[C] |= kindOf(F, C);
        S.clampPending(C);
      }
    }
    for (const RegAccess &A : In.Regs) {
      if (!A.Def)
        continue;
      for (unsigned Sl = A.Slots.First; Sl < A.Slots.end(); ++Sl)
        for (unsigned C = 0; C < NumCnt; ++C) {
          unsigned I = Sl * NumCnt + C;
          bool Loads = (F.Counters & CntBit[C]) && F.is(ic::MemLoad);
          S.Score[I] = Loads ? S.UB[C] : 0;
          S.Forcer[I] = -1;
          S.Newer[I] = 0;
        }
    }
    if (F.writesLDS() || (F.is(ic::FLAT) && F.MayStore)) {
      for (unsigned C = 0; C < NumCnt; ++C) {
        bool Carries = F.is(ic::LDSDMA) ? C == 0
                       : F.is(ic::FLAT) ? (C == 0 || C == 1)
                                        : C == 1;
        if (!Carries || !(F.Counters & CntBit[C]))
          continue;
        unsigned I = LDSSlot * NumCnt + C;
        S.Score[I] = S.UB[C];
        S.Forcer[I] = -1;
      }
    }
    if (F.Flow == FlowKind::Call) {
      // The callee waits for everything before it returns (LLVM's
      // SIInsertWaitcnts callWaitsOnFunctionReturn).
      for (unsigned C = 0; C < NumCnt; ++C) {
        S.LB[C] = S.UB[C];
        S.Kinds[C] = 0;
      }
    }
  }

  static uint8_t kindOf(const OpcodeFacts &F, unsigned C) {
    if (C == 0)
      return F.is(ic::FLAT) ? KFlatVM : KVmem;
    if (C == 1) {
      if (F.is(ic::FLAT))
        return KFlatLgkm;
      if (F.is(ic::SMEM))
        return KSmem;
      if (F.is(ic::DS))
        return KLds;
      return KMsg;
    }
    return 1;
  }

  void applyWait(State &S, unsigned Idx, const WaitcntValue &W,
                 bool Record) {
    int32_t WI = WaitIndex[Idx];
    for (unsigned C = 0; C < NumCnt; ++C) {
      unsigned N = W.get(CntBit[C]);
      if (N >= maxCount(C))
        continue;
      bool OOO = S.outOfOrder(C);
      // Forcer bookkeeping: every tracked operation this wait would force
      // on its own.
      for (unsigned Sl = 0; Record && Sl < NumTracked; ++Sl) {
        unsigned I = Sl * NumCnt + C;
        uint32_t Sc = S.Score[I];
        if (!Sc)
          continue;
        uint32_t Newer = S.UB[C] - Sc;
        bool Forces = OOO ? N == 0 : Newer >= N;
        if (!Forces)
          continue;
        S.Forcer[I] = WI;
        S.Newer[I] = OOO ? 0 : (uint8_t)std::min<uint32_t>(Newer, 254);
      }
      if (N == 0)
        S.LB[C] = S.UB[C];
      else if (!OOO)
        S.LB[C] = std::max(S.LB[C], S.UB[C] - N);
      if (S.LB[C] == S.UB[C])
        S.Kinds[C] = 0;
    }
  }

  const InstrSeq &Seq;
  const WaitcntOptions &Opts;
  WaitcntResult R;
  std::vector<State> Exit;
  std::vector<unsigned> Order;
  std::vector<int32_t> WaitIndex;
  std::vector<uint8_t> Demand;
  std::vector<WaitViolation> Viol;
};
} // namespace

WaitcntResult asmevo::analyzeWaitcnts(const InstrSeq &Seq, const ISAFacts &F,
                                      const WaitcntOptions &Opts) {
  return Analyzer(Seq, F, Opts).run();
}
