//===- Waitcnt.cpp - Score brackets over the CFG --------------------------===//
//
// Each counter keeps an upper bound UB (operations issued) and a lower
// bound LB (operations known complete); an operation's score is its UB at
// issue and it is complete once score <= LB. Each register slot (and one
// extra slot for "LDS memory") keeps the score of the last operation that
// writes it. Entry states are normalized (UB = Base, old completed scores
// clamped) so the fixpoint is finite.
//
// LDS operations complete in order among themselves even while SMEM (or a
// message) makes lgkmcnt as a whole out of order (AMDGPUUsage, memory model
// GFX942: LDS operations are performed "in a global order ... Completion is
// reported to a wavefront in execution order"; LLVM's SIInsertWaitcnts
// names this refinement in its TODO). So
// DS operations also keep a timeline of their own: lgkmcnt(N) leaves at
// most N operations of any kind in flight, hence at most N DS operations,
// hence every DS operation with N or more newer DS operations complete.
// A DS load or write is judged on that timeline unless a FLAT operation
// (which may access LDS too) is pending.
//
// Slack: when an s_waitcnt W would force an operation (if the waits before
// it were relaxed, W alone would still force it), W becomes its "forcer";
// a later use of the operation's result demands W to keep forcing it, i.e.
// W's counter value may rise to the number of operations issued after it.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Analysis/Waitcnt.h"
#include "Uncached.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/bit.h"

using namespace llvm;
using namespace asmevo;

namespace {
constexpr unsigned NumCnt = 3;
constexpr uint8_t CntBit[NumCnt] = {cnt::VM, cnt::LGKM, cnt::EXP};
constexpr unsigned LDSSlot = slot::NumSlots;
/// Every vector memory operation: what a release must see complete.
constexpr unsigned VMemSlot = slot::NumSlots + 1;
constexpr unsigned NumTracked = slot::NumSlots + 2;
/// Raisers kept per counter before the rest are pinned at once.
constexpr unsigned MaxRaisers = 8;

/// A wait (index) and the value it waits for on one counter.
using Raiser = std::pair<int32_t, uint8_t>;
using RaiserSet = SmallVector<Raiser, 2>;
constexpr uint32_t Base = 1u << 12;
constexpr unsigned OldestKept = 255;

// Event kinds per counter.
enum : uint8_t { KVmem = 1, KFlatVM = 2 };
enum : uint8_t { KSmem = 1, KLds = 2, KMsg = 4, KFlatLgkm = 8 };

unsigned maxCount(unsigned C) { return WaitcntValue::max(CntBit[C]); }

/// Score, forcer and demand bookkeeping of one tracked slot.
struct Entry {
  uint16_t Slot = 0;
  uint32_t Score[NumCnt] = {0, 0, 0};
  int32_t Forcer[NumCnt] = {-1, -1, -1};
  uint8_t Newer[NumCnt] = {0, 0, 0};
  /// Position on the DS-only timeline of the DS operation that writes this
  /// slot (0: not a DS operation, or none pending). Counter 1's Forcer and
  /// Newer then describe that timeline.
  uint32_t DsScore = 0;
  bool zero() const {
    return !Score[0] && !Score[1] && !Score[2] && !DsScore;
  }
};

/// A forcer a join lost: the other path's entry was kept, so no later use
/// will name this wait, although on its path it forced the operation.
struct LostForcer {
  int32_t Wait;
  unsigned Counter;
  uint8_t Newer;
};

/// Sparse: only slots some memory operation wrote are present, so copies
/// and joins cost what the kernel has in flight, not the register file.
struct State {
  uint32_t UB[NumCnt] = {Base, Base, Base};
  uint32_t LB[NumCnt] = {Base, Base, Base};
  uint8_t Kinds[NumCnt] = {0, 0, 0};
  uint32_t DsUB = Base, DsLB = Base; ///< The DS-only timeline.
  /// An s_barrier passed with DS writes in flight (-1: none), and the
  /// lgkmcnt it needed. Reported at the first LDS access after it, where
  /// another wave could read the unpublished data or write under it.
  int32_t RelBarrier = -1;
  uint8_t RelNeed = 0;
  /// A buffer_wbl2 began a release: the next store or atomic publishes.
  bool ReleasePending = false;
  /// Per counter, the waits that raised LB to where it is (one per path
  /// joined here): a place that needs every operation complete that is
  /// complete, without reading any of them (a barrier, an atomic), keeps
  /// those waits as they are. DsRaisers: the same for the DS timeline.
  RaiserSet Raisers[NumCnt];
  RaiserSet DsRaisers;
  std::vector<Entry> E;
  bool Valid = false;

  void init() { Valid = true; }
  bool outOfOrder(unsigned C) const {
    if (C == 0)
      return Kinds[0] & KFlatVM;
    if (C == 1)
      return (Kinds[1] & (KSmem | KFlatLgkm)) || llvm::popcount(Kinds[1]) > 1;
    return llvm::popcount(Kinds[2]) > 1;
  }
  void clampPending(unsigned C) {
    // As LLVM's SIInsertWaitcnts: only expcnt is taken to saturate (issue
    // stalls); vmcnt and lgkmcnt may have more operations in flight than
    // they can count, so none is assumed complete. The large cap only
    // bounds the fixpoint. (If the hardware stalls issue at a full counter,
    // 108 read reports on aiter fmoe/pa/mla objects are not real; but then a
    // compiled Triton mutant, lgkmcnt(14) after 18 ds_reads, is not real
    // either; kept pessimistic until a source settles it.)
    unsigned Cap = C == 2 ? maxCount(C) : 250;
    if (UB[C] - LB[C] > Cap)
      LB[C] = UB[C] - Cap;
    if (UB[C] == LB[C])
      Kinds[C] = 0;
    if (C == 1 && DsUB - DsLB > Cap)
      DsLB = DsUB - Cap;
  }
  /// The DS timeline decides for \p En (a DS operation's slot).
  bool dsOrdered(const Entry &En) const {
    return En.DsScore && !(Kinds[1] & KFlatLgkm);
  }
  /// Rebases every counter so UB == Base, drops empty entries, sorts.
  void normalize() {
    for (unsigned C = 0; C < NumCnt; ++C) {
      int64_t Shift = (int64_t)Base - UB[C];
      uint32_t NewLB = (uint32_t)((int64_t)LB[C] + Shift);
      for (Entry &En : E) {
        uint32_t &Sc = En.Score[C];
        if (!Sc)
          continue;
        int64_t V = (int64_t)Sc + Shift;
        if (Sc <= LB[C])
          V = std::max<int64_t>(std::min<int64_t>(V, NewLB), Base - OldestKept);
        Sc = (uint32_t)std::max<int64_t>(V, 1);
      }
      UB[C] = Base;
      LB[C] = NewLB;
    }
    int64_t DsShift = (int64_t)Base - DsUB;
    uint32_t NewDsLB = (uint32_t)((int64_t)DsLB + DsShift);
    for (Entry &En : E) {
      if (!En.DsScore)
        continue;
      int64_t V = (int64_t)En.DsScore + DsShift;
      if (En.DsScore <= DsLB)
        V = std::max<int64_t>(std::min<int64_t>(V, NewDsLB), Base - OldestKept);
      En.DsScore = (uint32_t)std::max<int64_t>(V, 1);
    }
    DsUB = Base;
    DsLB = NewDsLB;
    llvm::erase_if(E, [](const Entry &En) { return En.zero(); });
    llvm::sort(E,
               [](const Entry &A, const Entry &B) { return A.Slot < B.Slot; });
  }
  /// Joins \p O; both normalized (sorted by slot). \p Lost collects the
  /// forcers of entries the join replaced by the other path's.
  bool merge(const State &O, std::vector<LostForcer> *Lost = nullptr) {
    if (!Valid) {
      *this = O;
      return true;
    }
    bool Changed = false;
    for (unsigned C = 0; C <= NumCnt; ++C)
      Changed |= mergeRaisers(C < NumCnt ? Raisers[C] : DsRaisers,
                              C < NumCnt ? O.Raisers[C] : O.DsRaisers,
                              C < NumCnt ? C : 1, Lost);
    if (O.ReleasePending && !ReleasePending) {
      ReleasePending = true;
      Changed = true;
    }
    if (O.RelBarrier >= 0 && (RelBarrier < 0 || O.RelBarrier < RelBarrier)) {
      RelBarrier = O.RelBarrier;
      RelNeed = O.RelNeed;
      Changed = true;
    }
    uint32_t OldDsLB = DsLB;
    if (O.DsLB < DsLB) {
      DsLB = O.DsLB;
      Changed = true;
    }
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
    std::vector<Entry> Out;
    Out.reserve(E.size() + O.E.size());
    size_t I = 0, J = 0;
    static const Entry Zero;
    while (I < E.size() || J < O.E.size()) {
      bool TakeA =
          J == O.E.size() || (I < E.size() && E[I].Slot <= O.E[J].Slot);
      bool TakeB =
          I == E.size() || (J < O.E.size() && O.E[J].Slot <= E[I].Slot);
      const Entry &A = TakeA ? E[I] : Zero;
      const Entry &B = TakeB ? O.E[J] : Zero;
      Entry R = TakeA ? A : B;
      R.Slot = TakeA ? A.Slot : B.Slot;
      for (unsigned C = 0; C < NumCnt; ++C) {
        uint32_t SA = A.Score[C], SB = B.Score[C];
        bool PA = SA > OldLB[C], PB = SB > O.LB[C];
        // Pending on either path stays pending; operations complete on
        // both paths stay complete under the joined (lower) LB.
        bool TakeO;
        uint32_t V;
        if (PA || PB) {
          TakeO = PB && (!PA || SB > SA);
          V = TakeO ? SB : SA;
        } else {
          TakeO = SB > SA || (SB == SA && A.Forcer[C] < 0);
          V = (SA || SB) ? std::min(std::max(SA, SB), LB[C]) : 0;
        }
        if (V != SA)
          Changed = true;
        R.Score[C] = V;
        R.Forcer[C] = TakeO ? B.Forcer[C] : A.Forcer[C];
        R.Newer[C] = TakeO ? B.Newer[C] : A.Newer[C];
        const Entry &Other = TakeO ? A : B;
        if (Lost && TakeA && TakeB && Other.Forcer[C] >= 0 &&
            Other.Forcer[C] != R.Forcer[C])
          Lost->push_back({Other.Forcer[C], C, Other.Newer[C]});
      }
      {
        uint32_t SA = A.DsScore, SB = B.DsScore;
        bool PA = SA > OldDsLB, PB = SB > O.DsLB;
        uint32_t V;
        if (PA || PB) {
          V = PB && (!PA || SB > SA) ? SB : SA;
        } else {
          V = (SA || SB) ? std::min(std::max(SA, SB), DsLB) : 0;
        }
        // A slot one path wrote by DS and the other by something else is
        // not a DS slot after the join.
        if ((SA == 0) != (SB == 0) && TakeA && TakeB)
          V = 0;
        if (V != SA)
          Changed = true;
        R.DsScore = V;
      }
      Out.push_back(R);
      I += TakeA;
      J += TakeB;
    }
    E = std::move(Out);
    return Changed;
  }
  /// Adds \p From's raisers to \p To (kept sorted); past MaxRaisers they
  /// go to \p Lost, to be kept by the caller at once.
  static bool mergeRaisers(RaiserSet &To, const RaiserSet &From,
                           unsigned Counter, std::vector<LostForcer> *Lost) {
    bool Changed = false;
    for (const Raiser &R : From) {
      auto It = llvm::lower_bound(To, R);
      if (It != To.end() && *It == R)
        continue;
      if (To.size() >= MaxRaisers) {
        if (Lost)
          Lost->push_back({R.first, Counter, R.second});
        continue;
      }
      To.insert(It, R);
      Changed = true;
    }
    return Changed;
  }
  /// What sameFlow() leaves out: together they compare everything a
  /// successor's entry can be built from.
  bool sameBookkeeping(const State &O) const {
    if (Valid != O.Valid || RelNeed != O.RelNeed || E.size() != O.E.size())
      return false;
    for (size_t I = 0; I < E.size(); ++I)
      if (!std::equal(E[I].Forcer, E[I].Forcer + NumCnt, O.E[I].Forcer) ||
          !std::equal(E[I].Newer, E[I].Newer + NumCnt, O.E[I].Newer))
        return false;
    return true;
  }
  bool sameFlow(const State &O) const {
    for (unsigned C = 0; C < NumCnt; ++C)
      if (LB[C] != O.LB[C] || UB[C] != O.UB[C] || Kinds[C] != O.Kinds[C])
        return false;
    if (DsLB != O.DsLB || DsUB != O.DsUB || RelBarrier != O.RelBarrier ||
        ReleasePending != O.ReleasePending || E.size() != O.E.size() ||
        DsRaisers != O.DsRaisers)
      return false;
    for (unsigned C = 0; C < NumCnt; ++C)
      if (Raisers[C] != O.Raisers[C])
        return false;
    for (size_t I = 0; I < E.size(); ++I)
      if (E[I].Slot != O.E[I].Slot || E[I].DsScore != O.E[I].DsScore ||
          !std::equal(E[I].Score, E[I].Score + NumCnt, O.E[I].Score))
        return false;
    return true;
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
    // Fixpoint of block exit states, then one recording pass. A block
    // whose predecessors' exits are exactly as when it last ran would give
    // exactly the exit it has (a non-recording run depends on nothing but
    // its entry), so the sweep skips it: the same states, sweeps and
    // results as re-running every block, at the cost of the blocks that
    // can still change.
    std::vector<uint8_t> Stale(NB, 1);
    bool Changed = true;
    for (unsigned Iter = 0; Changed && Iter < 64; ++Iter) {
      Changed = false;
      ++R.Iterations;
      for (unsigned B : Order) {
        if (!Stale[B])
          continue;
        Stale[B] = 0;
        State S = entryState(B);
        runBlock(B, S, /*Record=*/false);
        bool Same = Exit[B].Valid && S.sameFlow(Exit[B]);
        if (!Same)
          Changed = true;
        if (!Same || !S.sameBookkeeping(Exit[B]))
          for (unsigned Succ : Seq.Succs[B])
            Stale[Succ] = 1;
        Exit[B] = std::move(S);
      }
    }
    R.PendingVM.assign(Seq.Instrs.size(), 0);
    R.PendingLgkm.assign(Seq.Instrs.size(), 0);
    // Two recording rounds let forcers carried around loop back edges
    // reach their uses; only the last round's violations are kept.
    for (unsigned Round = 0; Round < 2; ++Round) {
      Viol.clear();
      for (unsigned B : Order) {
        State S = entryState(B, /*Record=*/true);
        runBlock(B, S, /*Record=*/true);
        Exit[B] = std::move(S);
      }
    }
    // Barrier violations are found at the LDS access after them.
    std::vector<std::pair<unsigned, unsigned>> Keys;
    for (unsigned I = 0; I < Viol.size(); ++I)
      Keys.push_back({Viol[I].Instr, I});
    llvm::sort(Keys);
    std::vector<WaitViolation> Sorted;
    for (auto [Instr, I] : Keys)
      Sorted.push_back(Viol[I]);
    Viol = std::move(Sorted);
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

  /// The join of \p B's predecessors' exits. When recording, a wait whose
  /// forcing a join loses keeps what it forced (a later use on its path
  /// may need it, and could no longer say so).
  State entryState(unsigned B, bool Record = false) {
    State S;
    std::vector<LostForcer> Lost;
    for (unsigned P : Seq.Preds[B])
      if (Exit[P].Valid)
        S.merge(Exit[P], Record ? &Lost : nullptr);
    for (const LostForcer &L : Lost) {
      uint8_t &D = Demand[L.Wait * NumCnt + L.Counter];
      D = std::min(D, L.Newer);
    }
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

  /// Entry of \p Slot in the state being stepped, or null.
  Entry *lookup(State &S, unsigned Slot) {
    int32_t P = Pos[Slot];
    return P >= 0 ? &S.E[P] : nullptr;
  }
  Entry &getOrAdd(State &S, unsigned Slot) {
    if (Entry *En = lookup(S, Slot))
      return *En;
    Pos[Slot] = S.E.size();
    Touched.push_back(Slot);
    S.E.emplace_back();
    S.E.back().Slot = Slot;
    return S.E.back();
  }
  void bindPositions(State &S) {
    for (unsigned T : Touched)
      Pos[T] = -1;
    Touched.clear();
    for (unsigned I = 0; I < S.E.size(); ++I) {
      Pos[S.E[I].Slot] = I;
      Touched.push_back(S.E[I].Slot);
    }
  }

  /// Whether the operation writing \p Slot may still be in flight on
  /// counter \p C; \p N receives the wait that would force it (a wait can
  /// name at most max-1 operations still in flight).
  static bool pending(const State &S, const Entry &En, unsigned C,
                      unsigned &N) {
    uint32_t Sc = En.Score[C];
    bool Ds = C == 1 && S.dsOrdered(En);
    if (!Sc || (Ds ? En.DsScore <= S.DsLB : Sc <= S.LB[C]))
      return false;
    N = Ds ? std::min<unsigned>(S.DsUB - En.DsScore, maxCount(C) - 1)
        : S.outOfOrder(C) ? 0
                          : std::min<unsigned>(S.UB[C] - Sc, maxCount(C) - 1);
    return true;
  }

  /// \p Report false: only the demand on the wait that completed it (a
  /// place that may need the operation complete, but need not).
  void need(State &S, unsigned Idx, unsigned Slot, unsigned C, WaitNeedKind K,
            SlotRange Reg, bool Record, bool Report = true) {
    Entry *En = lookup(S, Slot);
    if (!En || !En->Score[C])
      return;
    unsigned N;
    if (pending(S, *En, C, N)) {
      if (Record && Report)
        addViolation(Idx, K, C, N, Reg);
      return;
    }
    int32_t W = En->Forcer[C];
    if (Record && W >= 0) {
      uint8_t &D = Demand[W * NumCnt + C];
      D = std::min(D, En->Newer[C]);
    }
  }

  /// A place needs what is complete to stay complete without reading it:
  /// the waits that made it so stay as they are.
  void keepRaisers(const RaiserSet &Rs, unsigned C) {
    for (const Raiser &R : Rs)
      Demand[R.first * NumCnt + C] =
          std::min(Demand[R.first * NumCnt + C], R.second);
  }

  /// Stores before a release (AMDGPUUsage memory model GFX942: a release
  /// at agent or system scope is `buffer_wbl2`, `s_waitcnt vmcnt(0)`, then
  /// the releasing store or atomic): after a buffer_wbl2, the next vector
  /// store or atomic needs every earlier vector memory operation complete.
  /// gfx90a has no buffer_wbl2 for it, and a relaxed atomic looks like a
  /// release one, so at any other atomic a wait that completed them is kept
  /// (it may be a release) but a missing one is not reported.
  void release(State &S, unsigned Idx, const OpcodeFacts &F, bool Record) {
    bool Publishes = F.Counters & cnt::VM &&
                     (F.is(ic::Atomic) || (F.MayStore && !F.is(ic::CacheCtl)));
    bool Releases = Publishes && (S.ReleasePending || F.is(ic::Atomic));
    if (Publishes && S.ReleasePending) {
      need(S, Idx, VMemSlot, 0, WaitNeedKind::Release, SlotRange(), Record);
      S.ReleasePending = false;
    }
    if (Releases && Record)
      keepRaisers(S.Raisers[0], 0);
    if (F.is(ic::CacheCtl) && F.Name.starts_with("BUFFER_WBL2"))
      S.ReleasePending = true;
  }

  /// DS writes still in flight at an s_barrier are unpublished: another
  /// wave may read LDS right after it (AMDGPUUsage memory model: a
  /// workgroup release needs lgkmcnt(0) before the barrier). They become a
  /// violation only if an LDS access can follow before a barrier that finds
  /// them complete: a read could see stale data, a write could land before
  /// them and be overwritten. Until then no wave touches LDS.
  void barrier(State &S, unsigned Idx, bool Record) {
    const Entry *En = lookup(S, LDSSlot);
    unsigned N;
    if (En && pending(S, *En, 1, N)) {
      if (S.RelBarrier < 0) {
        S.RelBarrier = Idx;
        S.RelNeed = N;
      }
      return;
    }
    // Complete here: this barrier publishes them, and the wait that made
    // them complete is needed (need() records that demand).
    need(S, Idx, LDSSlot, 1, WaitNeedKind::Barrier, SlotRange(), Record);
    S.RelBarrier = -1;
  }

  void addBarrierViolation(unsigned Barrier, unsigned N) {
    for (WaitViolation &V : Viol)
      if (V.Instr == Barrier && V.Kind == WaitNeedKind::Barrier) {
        V.Needed.set(cnt::LGKM, std::min(V.Needed.get(cnt::LGKM), N));
        return;
      }
    WaitViolation V;
    V.Instr = Barrier;
    V.Kind = WaitNeedKind::Barrier;
    V.Needed.set(cnt::LGKM, N);
    Viol.push_back(V);
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
    bindPositions(S);
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
            if (C == 1 && kindOf(F, 1) == KLds) {
              const Entry *En = lookup(S, Sl);
              if (En && S.dsOrdered(*En))
                continue;
            }
            need(S, Idx, Sl, C, WaitNeedKind::WriteAfterWrite, A.Slots, Record);
          } else {
            need(S, Idx, Sl, C, WaitNeedKind::Read, A.Slots, Record);
          }
        }
    }
    // DS writes must land before other waves read after the barrier. LDS
    // DMA is not required here: pipelines fill one LDS buffer by DMA while
    // the waves synchronise on another, and addresses are not known.
    if (F.is(ic::Barrier) && !Opts.WavePrivateLDS)
      barrier(S, Idx, Record);
    // What a barrier may also order, kept when a wait provides it but not
    // reported when missing (it depends on addresses): global memory
    // published to the workgroup's other waves (a workgroup release); LDS
    // reads that another wave's writes after the barrier must not overtake;
    // LDS DMA that another wave's DS reads after it may read.
    if (F.is(ic::Barrier) && Record) {
      keepRaisers(S.Raisers[0], 0);
      if (!Opts.WavePrivateLDS) {
        keepRaisers(S.Raisers[1], 1);
        keepRaisers(S.DsRaisers, 1);
      }
    }
    // Reaching s_endpgm with them unpublished is reported too, though no
    // wave touches LDS again: the memory model asks for the release before
    // the barrier regardless, compilers keep it, and an edit that drops it
    // is not one we can call safe.
    if ((F.readsLDS() || F.writesLDS() || F.is(ic::EndPgm)) &&
        S.RelBarrier >= 0) {
      if (Record)
        addBarrierViolation(S.RelBarrier, S.RelNeed);
      S.RelBarrier = -1;
    }
    // LDS DMA into a buffer this DS read may read: reported only when asked
    // (addresses decide it), but the waits that completed it are kept.
    if (F.readsLDS()) {
      if (Opts.LDSDMABeforeDSRead)
        need(S, Idx, LDSSlot, 0, WaitNeedKind::Read, SlotRange(), Record);
      const Entry *En = lookup(S, LDSSlot);
      if (Record && En && En->Score[0])
        keepRaisers(S.Raisers[0], 0);
    }
    release(S, Idx, F, Record);

    if (F.is(ic::Waitcnt))
      applyWait(S, Idx, WaitcntValue::decode(In.Imm), Record);

    // New operations.
    if (F.Counters) {
      for (unsigned C = 0; C < NumCnt; ++C) {
        if (!(F.Counters & CntBit[C]))
          continue;
        ++S.UB[C];
        S.Kinds[C] |= kindOf(F, C);
        if (C == 1 && kindOf(F, C) == KLds)
          ++S.DsUB;
        S.clampPending(C);
      }
    }
    bool Loads = F.is(ic::MemLoad) && F.Counters;
    for (const RegAccess &A : In.Regs) {
      if (!A.Def)
        continue;
      for (unsigned Sl = A.Slots.First; Sl < A.Slots.end(); ++Sl) {
        Entry *En = Loads ? &getOrAdd(S, Sl) : lookup(S, Sl);
        if (!En)
          continue;
        for (unsigned C = 0; C < NumCnt; ++C) {
          En->Score[C] = Loads && (F.Counters & CntBit[C]) ? S.UB[C] : 0;
          En->Forcer[C] = -1;
          En->Newer[C] = 0;
        }
        En->DsScore = Loads && kindOf(F, 1) == KLds && (F.Counters & cnt::LGKM)
                          ? S.DsUB
                          : 0;
      }
    }
    if (F.Counters & cnt::VM) {
      Entry &En = getOrAdd(S, VMemSlot);
      En.Score[0] = S.UB[0];
      En.Forcer[0] = -1;
    }
    if (F.writesLDS() || (F.is(ic::FLAT) && F.MayStore)) {
      for (unsigned C = 0; C < NumCnt; ++C) {
        bool Carries = F.is(ic::LDSDMA) ? C == 0
                       : F.is(ic::FLAT) ? (C == 0 || C == 1)
                                        : C == 1;
        if (!Carries || !(F.Counters & CntBit[C]))
          continue;
        Entry &En = getOrAdd(S, LDSSlot);
        En.Score[C] = S.UB[C];
        En.Forcer[C] = -1;
        if (C == 1)
          En.DsScore = kindOf(F, 1) == KLds ? S.DsUB : 0;
      }
    }
    if (F.Flow == FlowKind::Call) {
      // The callee waits for everything before it returns (LLVM's
      // SIInsertWaitcnts callWaitsOnFunctionReturn).
      for (unsigned C = 0; C < NumCnt; ++C) {
        S.LB[C] = S.UB[C];
        S.Kinds[C] = 0;
        S.Raisers[C].clear();
      }
      S.DsLB = S.DsUB;
      S.DsRaisers.clear();
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

  void applyWait(State &S, unsigned Idx, const WaitcntValue &W, bool Record) {
    int32_t WI = WaitIndex[Idx];
    for (unsigned C = 0; C < NumCnt; ++C) {
      unsigned N = W.get(CntBit[C]);
      if (N >= maxCount(C))
        continue;
      bool OOO = S.outOfOrder(C);
      // Forcer bookkeeping: every tracked operation this wait would force
      // on its own.
      for (Entry &En : S.E) {
        if (!Record)
          break;
        uint32_t Sc = En.Score[C];
        if (!Sc)
          continue;
        bool Ds = C == 1 && S.dsOrdered(En);
        uint32_t Newer = Ds ? S.DsUB - En.DsScore : S.UB[C] - Sc;
        bool InOrder = Ds || !OOO;
        bool Forces = InOrder ? Newer >= N : N == 0;
        if (!Forces)
          continue;
        En.Forcer[C] = WI;
        En.Newer[C] = InOrder ? (uint8_t)std::min<uint32_t>(Newer, 254) : 0;
      }
      Raiser Me = {WI, (uint8_t)std::min(N, 254u)};
      if (C == 1 && S.DsUB - N > S.DsLB) {
        S.DsLB = S.DsUB - N;
        S.DsRaisers.assign(1, Me);
      }
      uint32_t OldLB = S.LB[C];
      if (N == 0)
        S.LB[C] = S.UB[C];
      else if (!OOO)
        S.LB[C] = std::max(S.LB[C], S.UB[C] - N);
      if (S.LB[C] > OldLB)
        S.Raisers[C].assign(1, Me);
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
  std::vector<int32_t> Pos = std::vector<int32_t>(NumTracked, -1);
  std::vector<unsigned> Touched;
};
} // namespace

WaitcntResult asmevo::uncached::analyzeWaitcnts(const InstrSeq &Seq,
                                                const ISAFacts &F,
                                                const WaitcntOptions &Opts) {
  return Analyzer(Seq, F, Opts).run();
}
