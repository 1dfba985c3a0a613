//===- CUModel.cpp - One compute unit replaying traced waves --------------===//
//
// Event-driven over cycles: SIMD s is considered on cycles t = s (mod 4)
// (pipeline-descriptions.rst: the scheduler visits one SIMD per cycle in
// turn); on its cycle, each of its waves whose next instruction can issue
// does so, oldest first, at most one instruction per wave and one per
// category (VALU incl. MFMA, VMEM, SALU/SMEM, LDS, branch; s_nop, s_waitcnt,
// s_barrier, s_sleep and s_endpgm are internal and take no category).
// Cycles in which nothing can issue are skipped.
//
//===----------------------------------------------------------------------===//
#include "MemorySystem.h"
#include "asmevo/Timing/Timeline.h"
#include "asmevo/Analysis/InstrRecord.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>
#include <cmath>
#include <deque>
#include <ctime>
#include <limits>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::timing;

namespace {

enum class Kind : uint8_t {
  Valu, Mfma, Salu, Smem, Vmem, Lds, Branch, Nop, Waitcnt, Barrier, Sleep,
  EndPgm, Internal
};
enum Cat : uint8_t {
  CatNone = 0, CatValu = 1, CatVmem = 2, CatSalu = 4, CatLds = 8,
  CatBranch = 16
};

/// What the model needs of one static instruction.
struct SInst {
  Kind K = Kind::Internal;
  uint8_t C = CatNone;
  double Cycles = 0;      ///< VALU pipe occupancy, or MFMA passes x 4.
  bool BlocksValu = false; ///< FP32/FP64 MFMA: no VALU co-issue.
  bool IsF64 = false;
  int64_t Imm = 0;
  SmallVector<uint16_t, 8> Uses, Defs;
};

bool isQuarterRate(StringRef N) {
  for (StringRef P : {"V_MUL_LO_U32", "V_MUL_HI_U32", "V_MUL_HI_I32",
                      "V_MUL_LO_I32", "V_MAD_U64_U32", "V_MAD_I64_I32"})
    if (N.starts_with(P))
      return true;
  return false;
}

/// FP32 or FP64 inputs (v_mfma_f32_32x32x2f32, v_mfma_f64_*): these cannot
/// co-issue with VALU (matrix instruction calculator).
bool mfmaBlocksValu(StringRef N) {
  if (N.starts_with("V_MFMA_F64"))
    return true;
  size_t X = N.rfind('X');
  if (X == StringRef::npos)
    return false;
  StringRef Tail = N.substr(X + 1);
  Tail = Tail.drop_while([](char Ch) { return isDigit(Ch); });
  return Tail.starts_with("F32");
}

SInst classify(const InstrRecord &R, const TimingConfig &C) {
  SInst S;
  if (!R.F)
    return S;
  const OpcodeFacts &F = *R.F;
  S.Imm = R.Imm;
  StringRef N = F.Name;
  bool Mem = F.is(ic::VMEM | ic::DS | ic::SMEM);
  for (const RegAccess &A : R.Regs) {
    for (unsigned K = 0; K < A.Slots.Count; ++K) {
      unsigned Sl = A.Slots.First + K;
      if (Sl >= slot::NumSlots)
        continue;
      if (A.Def) {
        if (!Mem)
          S.Defs.push_back(uint16_t(Sl));
      } else {
        S.Uses.push_back(uint16_t(Sl));
      }
    }
  }
  if (F.is(ic::EndPgm)) {
    S.K = Kind::EndPgm;
  } else if (F.is(ic::Nop)) {
    S.K = Kind::Nop;
  } else if (F.is(ic::Waitcnt)) {
    S.K = Kind::Waitcnt;
  } else if (F.is(ic::Barrier)) {
    S.K = Kind::Barrier;
  } else if (F.is(ic::Sleep)) {
    S.K = Kind::Sleep;
  } else if (F.is(ic::MFMA)) {
    S.K = Kind::Mfma;
    S.C = CatValu;
    S.Cycles = std::max<unsigned>(1, R.Passes) * C.MfmaCyclesPerPass;
    S.BlocksValu = mfmaBlocksValu(N.upper());
  } else if (F.is(ic::DS)) {
    S.K = Kind::Lds;
    S.C = CatLds;
  } else if (F.is(ic::VMEM)) {
    S.K = Kind::Vmem;
    S.C = CatVmem;
  } else if (F.is(ic::SMEM)) {
    S.K = Kind::Smem;
    S.C = CatSalu;
  } else if (F.is(ic::Branch)) {
    S.K = Kind::Branch;
    S.C = CatBranch;
  } else if (F.is(ic::VALU)) {
    S.K = Kind::Valu;
    S.C = CatValu;
    std::string U = N.upper();
    if (F.is(ic::Trans))
      S.Cycles = C.TransCycles;
    else if (isQuarterRate(U))
      S.Cycles = C.QuarterRateCycles;
    else if (StringRef(U).contains("F64"))
      S.Cycles = C.F64Cycles;
    else
      S.Cycles = C.ValuCycles;
  } else if (F.is(ic::SALU)) {
    S.K = Kind::Salu;
    S.C = CatSalu;
  }
  return S;
}

constexpr double Never = std::numeric_limits<double>::infinity();
/// How far ahead of a wave's position its trace is prefetched (events).
constexpr size_t PrefetchEvents = 32;

enum Reason : uint8_t {
  RIssue, RDep, RPipe, RMem0, RMem1, RMem2, RMem3, RLds, RScalar, RBarrier,
  RNop, RBranch
};

/// The report's wave_cycles keys, by Reason (the timeline's stall names).
const char *const ReasonKeys[] = {
    "issue",  "dependency", "pipeline", "mem_L1",  "mem_L2",    "mem_infinity_cache",
    "mem_hbm", "lds",       "scalar",   "barrier", "nop_sleep", "branch"};
/// The timeline's issue slices, by Kind.
const char *const KindNames[] = {
    "issue VALU",    "issue MFMA",      "issue SALU",    "issue SMEM",
    "issue VMEM",    "issue LDS",       "issue branch",  "issue s_nop",
    "issue s_waitcnt", "issue s_barrier", "issue s_sleep", "issue s_endpgm",
    "issue other"};
const char *const MemNames[] = {"L1", "L2", "infinity cache", "HBM"};

struct Pending {
  double T;
  uint8_t Why; ///< Reason when waited on.
};

/// What the arbiter looks at on every step, per wave, 16 bytes apart: the
/// earliest cycle of the wave's next instruction from the wave's own state
/// (ReadyAt, operands, s_waitcnt), which changes only when the wave issues
/// or its group passes a barrier, so it is computed then (refresh()), not
/// on every look. A VALU or MFMA instruction also waits for its SIMD's
/// pipes, which change on most steps: raised to them when looked at.
struct HotWave {
  double Own = Never; ///< Never: done, at a barrier or out of events.
  uint8_t Why = RBarrier;
  uint8_t Pipes = 0; ///< 1: VALU pipe, 2: VALU and MFMA pipes.
  uint8_t Cat = CatNone; ///< Issue category of the next instruction.
};

/// The fields looked at when the wave issues come first.
struct alignas(64) WaveState {
  // T->Events, without going through T on every look at the wave.
  const TraceEvent *Ev = nullptr;
  size_t NumEv = 0;
  size_t Pos = 0;
  unsigned Simd = 0;
  bool AtBarrier = false, Done = false;
  const WaveTrace *T = nullptr;
  size_t MemPos = 0; ///< Into T->Memory: the next event with memory.
  unsigned Group = 0; ///< Index into the groups in flight.
  uint64_t Age = 0;
  double ReadyAt = 0;
  uint8_t ReadyWhy = RIssue;
  double Last = 0; ///< Cycle the wave last issued (or started).
  std::vector<double> Reg;
  /// vmcnt operations in flight, in issue order, from VmHead on (a vector
  /// with a moving head: a deque allocated and freed a chunk every few
  /// hundred operations).
  std::vector<Pending> Vm;
  size_t VmHead = 0;
  std::vector<Pending> Lgkm;
  double LastVm = 0, LastLds = 0, MaxMem = 0;
};

struct GroupState {
  std::vector<unsigned> Waves;
  unsigned Live = 0;
};

class CUSim {
public:
  CUSim(const LaunchTrace &T, const TimingConfig &C, LaunchTiming &Out,
        uint64_t ActiveCUs, uint64_t InXCD, Timeline *TL = nullptr)
      : T(T), C(C), Out(Out),
        Mem(C, ActiveCUs, InXCD, T.FootprintBytes, &T.Sharing,
            Out.GroupsPerCU),
        TL(TL) {}
  /// Runs the first \p Limit sampled groups (all when 0).
  void run(unsigned WavesPerSIMD, unsigned GroupsPerCU, size_t Limit = 0);

private:
  /// Earliest cycle of wave \p H (on SIMD \p Sm) and why not before.
  std::pair<double, uint8_t> earliest(const HotWave &H, unsigned Sm) const;
  /// The cycle alone, for the SIMD's minimum.
  double earliestCycle(const HotWave &H, unsigned Sm) const;
  /// Hot[Wi] from the wave's state, after the wave changed.
  void refresh(unsigned Wi);
  void issue(WaveState &W, double Now);
  bool tryDispatch(double Now);
  void releaseBarrier(GroupState &G, double Now);
  void account(WaveState &W, double Now, double E, uint8_t Why);

  const LaunchTrace &T;
  const TimingConfig &C;
  LaunchTiming &Out;
  MemorySystem Mem;
  Timeline *TL; ///< Optional: what --timeline writes.
  std::vector<SInst> Insts;
  std::vector<WaveState> Waves;
  std::vector<HotWave> Hot; ///< By wave, as Waves.
  std::vector<GroupState> Groups;
  std::vector<std::vector<const WaveTrace *>> ByGroup; ///< Sample order.
  size_t NextGroup = 0;
  unsigned GroupsLive = 0, MaxGroups = 1, SlotLimit = 8;
  std::vector<unsigned> SimdWaves;
  std::vector<double> ValuFree, MfmaFree, PortFree;
  uint64_t AgeCounter = 0;
  double EndTime = 0;
  unsigned Rotate = 0;
  struct PerInst {
    uint64_t Issued = 0;
    double Cycles = 0;
    double Stall[RBranch + 1] = {};
  };
  std::vector<PerInst> Costs; ///< By instruction index.
  std::vector<unsigned> Live; ///< Waves not done (when !LiveDirty).
  bool LiveDirty = true;
  unsigned FirstLive = 0;
  std::vector<uint64_t> SimdEpoch; ///< Bumped by every issue on the SIMD.
  std::vector<std::vector<unsigned>> SimdLive; ///< Live, by SIMD.
  std::vector<double> MinE; ///< Per SIMD: its waves' earliest cycle.
  std::vector<uint64_t> MinKey, MinGlobal; ///< Epochs MinE was taken at.
  uint64_t GlobalEpoch = 0;
  std::vector<Pending> Scratch; ///< refresh()'s lgkm copy.
  unsigned NumDenseSlots = 0;
};

void CUSim::account(WaveState &W, double Now, double E, uint8_t Why) {
  double Gap = Now - W.Last;
  if (Gap <= 0)
    return;
  double Blocked = std::clamp(E - W.Last, 0.0, Gap);
  PerInst &P = Costs[W.Ev[W.Pos].index()];
  P.Cycles += Gap;
  P.Stall[Why] += Blocked;
  double *Slot = nullptr;
  Breakdown &B = Out.B;
  switch (Why) {
  case RIssue: Slot = &B.Issue; break;
  case RDep: Slot = &B.Dependency; break;
  case RPipe: Slot = &B.Pipeline; break;
  case RMem0: case RMem1: case RMem2: case RMem3:
    Slot = &B.MemWait[Why - RMem0];
    break;
  case RLds: Slot = &B.LdsWait; break;
  case RScalar: Slot = &B.ScalarWait; break;
  case RBarrier: Slot = &B.Barrier; break;
  case RNop: Slot = &B.NopSleep; break;
  case RBranch: Slot = &B.Branch; break;
  }
  *Slot += Blocked;
  B.Issue += Gap - Blocked;
  if (TL) {
    unsigned Id = unsigned(&W - Waves.data());
    // Blocked by the wave's own one-issue-per-cycle rule counts as issue,
    // as in the breakdown.
    double Stall = Why == RIssue ? 0 : Blocked;
    TL->slice(Id, W.Last, Stall, ReasonKeys[Why], true);
    TL->slice(Id, W.Last + Stall, Gap - Stall,
              KindNames[unsigned(Insts[W.Ev[W.Pos].index()].K)], false);
  }
}

/// The VALU pipe, then the MFMA pipe, as the issue rules check them: a
/// later, equal cycle does not change the reason.
inline std::pair<double, uint8_t> CUSim::earliest(const HotWave &H,
                                                  unsigned Sm) const {
  double T0 = H.Own;
  uint8_t Why = H.Why;
  if (H.Pipes) {
    if (ValuFree[Sm] > T0) {
      T0 = ValuFree[Sm];
      Why = RPipe;
    }
    if (H.Pipes == 2 && MfmaFree[Sm] > T0) {
      T0 = MfmaFree[Sm];
      Why = RPipe;
    }
  }
  return {T0, Why};
}

inline double CUSim::earliestCycle(const HotWave &H, unsigned Sm) const {
  if (!H.Pipes)
    return H.Own;
  double P = H.Pipes == 2 ? std::max(ValuFree[Sm], MfmaFree[Sm]) : ValuFree[Sm];
  return std::max(H.Own, P);
}

void CUSim::refresh(unsigned Wi) {
  WaveState &W = Waves[Wi];
  HotWave &H = Hot[Wi];
  if (W.Done || W.AtBarrier || W.Pos >= W.NumEv) {
    H = HotWave();
    return;
  }
  const TraceEvent &E = W.Ev[W.Pos];
  const SInst &S = Insts[E.index()];
  double T0 = W.ReadyAt;
  uint8_t Why = W.ReadyWhy;
  auto Need = [&](double X, uint8_t R) {
    if (X > T0) {
      T0 = X;
      Why = R;
    }
  };
  for (uint16_t U : S.Uses)
    Need(W.Reg[U], RDep);
  if (S.K == Kind::Waitcnt) {
    WaitcntValue V = WaitcntValue::decode(uint64_t(S.Imm));
    if (W.Vm.size() - W.VmHead > V.VM) {
      const Pending &P = W.Vm[W.Vm.size() - V.VM - 1];
      Need(P.T, P.Why);
    }
    if (W.Lgkm.size() > V.Lgkm) {
      std::vector<Pending> &Tmp = Scratch;
      Tmp.assign(W.Lgkm.begin(), W.Lgkm.end());
      size_t K = Tmp.size() - V.Lgkm - 1;
      std::nth_element(Tmp.begin(), Tmp.begin() + K, Tmp.end(),
                       [](const Pending &A, const Pending &B) {
                         return A.T < B.T;
                       });
      Need(Tmp[K].T, Tmp[K].Why);
    }
  }
  H.Own = T0;
  H.Why = Why;
  H.Pipes = S.K == Kind::Mfma ? 2 : S.K == Kind::Valu ? 1 : 0;
  H.Cat = S.C;
}

void CUSim::releaseBarrier(GroupState &G, double Now) {
  bool All = true, Any = false;
  for (unsigned Wi : G.Waves) {
    WaveState &X = Waves[Wi];
    if (X.Done)
      continue;
    All &= X.AtBarrier;
    Any |= X.AtBarrier;
  }
  if (!All || !Any)
    return;
  ++GlobalEpoch;
  for (unsigned Wi : G.Waves) {
    WaveState &X = Waves[Wi];
    if (X.Done)
      continue;
    X.AtBarrier = false;
    X.ReadyAt = Now + C.BarrierCycles;
    X.ReadyWhy = RBarrier;
    refresh(Wi);
  }
}

void CUSim::issue(WaveState &W, double Now) {
  const TraceEvent &E = W.Ev[W.Pos++];
  const SInst &S = Insts[E.index()];
  // A launch's trace is far larger than the cache and each wave reads its
  // own stretch of it: fetch the events a few lines ahead.
  if (W.Pos + PrefetchEvents < W.NumEv)
    __builtin_prefetch(W.Ev + W.Pos + PrefetchEvents);
  static const MemoryEvent NoMemory;
  const MemoryEvent &M =
      E.hasMemory() ? W.T->Memory[W.MemPos++] : NoMemory;
  ++SimdEpoch[W.Simd];
  ++Out.Instructions;
  ++Costs[E.index()].Issued;
  W.ReadyAt = Now + 1; // one instruction per wave per cycle
  W.ReadyWhy = RIssue;
  double DefReady = Now + C.SaluLatency;
  switch (S.K) {
  case Kind::Valu: {
    ValuFree[W.Simd] = Now + S.Cycles;
    DefReady = Now + std::max(S.Cycles, C.ValuLatency);
    break;
  }
  case Kind::Mfma:
    MfmaFree[W.Simd] = Now + S.Cycles;
    ValuFree[W.Simd] = Now + (S.BlocksValu ? S.Cycles : C.MfmaCoIssueCycles);
    DefReady = Now + S.Cycles;
    break;
  case Kind::Smem:
    W.Lgkm.push_back({Now + C.ScalarLatency, RScalar});
    if (TL)
      TL->memory(unsigned(&W - Waves.data()), Now, Now + C.ScalarLatency,
                 "scalar");
    break;
  case Kind::Vmem:
  case Kind::Lds: {
    bool Store = E.flags() & TraceEvent::Store;
    if (S.K == Kind::Lds || ((E.flags() & TraceEvent::Lds) &&
                             !(E.flags() & TraceEvent::Global))) {
      double Bytes = M.LdsBytes ? M.LdsBytes : 4.0 * M.Lanes;
      double Ideal = std::ceil(Bytes / C.LdsBytesPerClkPerPort);
      double Conf = M.LdsCycles;
      double Cyc = std::max(Ideal, Conf);
      double Free = Bytes / (C.LdsBanks * C.LdsBankBytes);
      if (Conf > std::ceil(Free))
        Out.LdsConflictCycles += uint64_t(Conf - std::ceil(Free));
      double &Port = PortFree[W.Simd / 2];
      double St = std::max(Now, Port);
      Port = St + Cyc;
      double Done = std::max(St + Cyc + C.LdsLatency, W.LastLds);
      W.LastLds = Done;
      W.MaxMem = std::max(W.MaxMem, Done);
      if (TL)
        TL->memory(unsigned(&W - Waves.data()), Now, Done, "LDS");
      if (S.K == Kind::Lds)
        W.Lgkm.push_back({Done, RLds});
      else {
        Done = std::max(Done, W.LastVm);
        W.LastVm = Done;
        W.Vm.push_back({Done, RLds});
        W.Lgkm.push_back({Done, RLds});
      }
      break;
    }
    double Done;
    Level Lv = L1;
    if (M.NumLines)
      Done = Mem.access(Now, &W.T->Lines[M.LineBegin], M.NumLines, Store, Lv,
                        W.T->Group);
    else
      Done = Now + C.L1Latency;
    Done = std::max(Done, W.LastVm); // vmcnt returns in order
    W.LastVm = Done;
    W.MaxMem = std::max(W.MaxMem, Done);
    W.Vm.push_back({Done, uint8_t(RMem0 + Lv)});
    if (TL)
      TL->memory(unsigned(&W - Waves.data()), Now, Done, MemNames[Lv]);
    break;
  }
  case Kind::Branch:
    if (E.flags() & TraceEvent::Taken) {
      W.ReadyAt = Now + C.BranchTakenCycles;
      W.ReadyWhy = RBranch;
    }
    break;
  case Kind::Nop:
    W.ReadyAt = Now + double((S.Imm & 0xf) + 1) * C.NopCyclesPerWaitState;
    W.ReadyWhy = RNop;
    break;
  case Kind::Sleep:
    W.ReadyAt = Now + std::max(1.0, double(S.Imm & 0x7f) *
                                        C.SleepCyclesPerUnit);
    W.ReadyWhy = RNop;
    break;
  case Kind::Waitcnt: {
    while (W.VmHead < W.Vm.size() && W.Vm[W.VmHead].T <= Now)
      ++W.VmHead;
    if (W.VmHead == W.Vm.size()) {
      W.Vm.clear();
      W.VmHead = 0;
    } else if (W.VmHead > 64 && 2 * W.VmHead > W.Vm.size()) {
      W.Vm.erase(W.Vm.begin(), W.Vm.begin() + W.VmHead);
      W.VmHead = 0;
    }
    W.Lgkm.erase(std::remove_if(W.Lgkm.begin(), W.Lgkm.end(),
                                [&](const Pending &P) { return P.T <= Now; }),
                 W.Lgkm.end());
    break;
  }
  case Kind::Barrier:
    W.AtBarrier = true;
    releaseBarrier(Groups[W.Group], Now);
    break;
  case Kind::EndPgm:
  case Kind::Salu:
  case Kind::Internal:
    break;
  }
  for (uint16_t D : S.Defs)
    W.Reg[D] = DefReady;
  if (S.K == Kind::EndPgm || W.Pos >= W.NumEv) {
    W.Done = true;
    LiveDirty = true;
    EndTime = std::max({EndTime, Now + 1, W.MaxMem});
    --SimdWaves[W.Simd];
    GroupState &G = Groups[W.Group];
    if (--G.Live == 0)
      --GroupsLive;
    else
      releaseBarrier(G, Now); // an ended wave counts as arrived
  }
  refresh(unsigned(&W - Waves.data()));
}

bool CUSim::tryDispatch(double Now) {
  bool Any = false;
  while (NextGroup < ByGroup.size() && GroupsLive < MaxGroups) {
    const auto &WS = ByGroup[NextGroup];
    // Every wave needs a slot on some SIMD (least-loaded first). Called on
    // most issue cycles while the CU is full: no heap allocation.
    SmallVector<unsigned, 8> Load(SimdWaves.begin(), SimdWaves.end());
    SmallVector<unsigned, 16> Pick;
    for (size_t K = 0; K < WS.size(); ++K) {
      unsigned Best = 0;
      for (unsigned S = 1; S < Load.size(); ++S)
        if (Load[S] < Load[Best])
          Best = S;
      if (Load[Best] >= SlotLimit)
        return Any;
      ++Load[Best];
      Pick.push_back(Best);
    }
    GroupState G;
    unsigned GI = unsigned(Groups.size());
    for (size_t K = 0; K < WS.size(); ++K) {
      WaveState W;
      W.T = WS[K];
      W.Ev = W.T->Events.data();
      W.NumEv = W.T->Events.size();
      W.Simd = Pick[K];
      W.Group = GI;
      W.Age = AgeCounter++;
      W.ReadyAt = W.Last = Now + C.DispatchCyclesPerGroup;
      W.Reg.assign(NumDenseSlots, 0);
      ++SimdWaves[Pick[K]];
      if (TL)
        TL->wave(unsigned(Waves.size()), Pick[K], W.T->Group, W.T->Wave);
      G.Waves.push_back(unsigned(Waves.size()));
      Waves.push_back(std::move(W));
      Hot.emplace_back();
      refresh(unsigned(Waves.size() - 1));
    }
    G.Live = unsigned(WS.size());
    Groups.push_back(std::move(G));
    LiveDirty = true;
    ++GlobalEpoch;
    ++GroupsLive;
    ++NextGroup;
    Any = true;
  }
  return Any;
}

void CUSim::run(unsigned WavesPerSIMD, unsigned GroupsPerCU, size_t Limit) {
  for (const InstrRecord &R : T.Info.Instrs)
    Insts.push_back(classify(R, C));
  // Register slots renumbered densely over the ones the kernel touches:
  // every wave keeps a ready time per slot, and most kernels touch a few
  // dozen of the 774.
  {
    std::vector<int> Dense(slot::NumSlots, -1);
    auto Map = [&](uint16_t &Sl) {
      if (Dense[Sl] < 0)
        Dense[Sl] = int(NumDenseSlots++);
      Sl = uint16_t(Dense[Sl]);
    };
    for (SInst &S : Insts) {
      for (uint16_t &U : S.Uses)
        Map(U);
      for (uint16_t &D : S.Defs)
        Map(D);
    }
  }
  Costs.assign(Insts.size(), PerInst());
  // Waves by sampled group, in dispatch order.
  {
    std::vector<uint64_t> Order = T.Sampled;
    if (Limit && Limit < Order.size())
      Order.resize(Limit);
    for (uint64_t G : Order) {
      std::vector<const WaveTrace *> WS;
      for (const auto &W : T.Waves)
        if (W->Group == G)
          WS.push_back(W.get());
      std::sort(WS.begin(), WS.end(),
                [](const WaveTrace *A, const WaveTrace *B) {
                  return A->Wave < B->Wave;
                });
      if (!WS.empty())
        ByGroup.push_back(std::move(WS));
    }
  }
  unsigned NS = std::max(1u, unsigned(C.SIMDsPerCU));
  SimdWaves.assign(NS, 0);
  SimdEpoch.assign(NS, 0);
  SimdLive.assign(NS, {});
  MinE.assign(NS, Never);
  MinKey.assign(NS, ~uint64_t(0));
  MinGlobal.assign(NS, ~uint64_t(0));
  ValuFree.assign(NS, 0);
  MfmaFree.assign(NS, 0);
  PortFree.assign((NS + 1) / 2, 0);
  SlotLimit = WavesPerSIMD;
  MaxGroups = std::max(1u, GroupsPerCU);
  Waves.reserve(ByGroup.size() * 16 + 16);
  Hot.reserve(Waves.capacity());
  double Now = 0;
  tryDispatch(Now);
  bool Oldest = C.ArbiterOldestFirst >= 0.5;
  uint64_t NSMask = isPowerOf2_32(NS) ? NS - 1 : 0;
  std::vector<unsigned> Cand;
  while (true) {
    // The next cycle some SIMD has an issuable wave.
    double Best = Never;
    unsigned BestSimd = 0;
    if (LiveDirty) {
      Live.clear();
      for (auto &L : SimdLive)
        L.clear();
      // Waves before FirstLive are all done: a long launch dispatches
      // thousands, and this runs at every dispatch and wave end.
      while (FirstLive < Waves.size() && Waves[FirstLive].Done)
        ++FirstLive;
      for (unsigned Wi = FirstLive; Wi < Waves.size(); ++Wi)
        if (!Waves[Wi].Done) {
          Live.push_back(Wi);
          SimdLive[Waves[Wi].Simd].push_back(Wi);
        }
      std::fill(MinKey.begin(), MinKey.end(), ~uint64_t(0));
      LiveDirty = false;
    }
    bool AnyLive = !Live.empty();
    // The aligned issue cycle grows with a wave's earliest cycle, so a
    // SIMD's first chance is that of its earliest wave; it changes only
    // when that SIMD issued or a barrier or dispatch happened.
    for (unsigned Sm = 0; Sm < NS; ++Sm) {
      if (SimdLive[Sm].empty())
        continue;
      if (MinKey[Sm] != SimdEpoch[Sm] || MinGlobal[Sm] != GlobalEpoch) {
        double M = Never;
        for (unsigned Wi : SimdLive[Sm])
          M = std::min(M, earliestCycle(Hot[Wi], Sm));
        MinE[Sm] = M;
        MinKey[Sm] = SimdEpoch[Sm];
        MinGlobal[Sm] = GlobalEpoch;
      }
      double E = MinE[Sm];
      if (E == Never)
        continue;
      // ceil() of a finite cycle >= 0 (below 2^63), without a libm call.
      double Tm = std::max(E, Now);
      int64_t IT = int64_t(Tm);
      if (double(IT) < Tm)
        ++IT;
      double T = double(IT);
      // Align to the SIMD's cycle (t mod NS == simd). Cycles are whole
      // numbers far below 2^53, so integer arithmetic gives what fmod did
      // (and a mask what the divisions did, for the usual 4 SIMDs).
      uint64_t UT = uint64_t(IT);
      uint64_t Off = NSMask ? (Sm + NS - (UT & NSMask)) & NSMask
                            : (Sm + NS - UT % NS) % NS;
      double Al = T + double(Off);
      if (Al < Best) {
        Best = Al;
        BestSimd = Sm;
      }
    }
    if (!AnyLive) {
      if (NextGroup >= ByGroup.size())
        break;
      tryDispatch(Now);
      continue;
    }
    if (Best == Never) // every wave at a barrier that cannot complete
      break;
    Now = Best;
    // SimdLive lists waves by index, and waves get their age in index
    // order (dispatch appends them): already oldest first.
    // Oldest first: SimdLive as it is (issuing changes no other wave's
    // Done, and SimdLive is rebuilt only above); rotating: a copy.
    const std::vector<unsigned> *Order = &SimdLive[BestSimd];
    if (!Oldest) {
      Cand.clear();
      for (unsigned Wi : SimdLive[BestSimd])
        if (!Waves[Wi].Done)
          Cand.push_back(Wi);
      if (!Cand.empty())
        std::rotate(Cand.begin(), Cand.begin() + (Rotate++ % Cand.size()),
                    Cand.end());
      Order = &Cand;
    }
    uint8_t Used = 0;
    // The SIMD's next minimum, taken on the way: its waves' own parts
    // after this step, by the pipes they wait for (the minimum of a
    // maximum with the pipes is the maximum of the minimum), so that the
    // next step need not look at them all again.
    double OwnMin[3] = {Never, Never, Never};
    uint64_t Epoch0 = GlobalEpoch;
    for (unsigned Wi : *Order) {
      // Done and out-of-events waves are Never.
      const HotWave &H = Hot[Wi];
      auto [E, Why] = earliest(H, BestSimd);
      if (E <= Now && !(H.Cat & Used)) {
        Used |= H.Cat;
        WaveState &W = Waves[Wi];
        account(W, Now, E, Why);
        W.Last = Now;
        issue(W, Now); // refreshes H
      }
      OwnMin[H.Pipes] = std::min(OwnMin[H.Pipes], H.Own);
    }
    // A barrier released in the step changed waves already looked at;
    // a wave that ended rebuilds the lists.
    if (GlobalEpoch == Epoch0 && !LiveDirty) {
      double VF = ValuFree[BestSimd];
      double MF = std::max(VF, MfmaFree[BestSimd]);
      MinE[BestSimd] = std::min(
          {OwnMin[0], std::max(OwnMin[1], VF), std::max(OwnMin[2], MF)});
      MinKey[BestSimd] = SimdEpoch[BestSimd];
      MinGlobal[BestSimd] = GlobalEpoch;
    }
    if (GroupsLive < MaxGroups && NextGroup < ByGroup.size())
      tryDispatch(Now + 1);
  }
  Out.SampleCycles = std::max(EndTime, Now);
  for (unsigned L = 0; L < NumLevels; ++L) {
    Out.LevelBytes[L] = Mem.Bytes[L];
    Out.LevelLines[L] = Mem.LinesAt[L];
  }
  Out.StoreLines = Mem.StoreLines;
  Out.SharedL2Lines = Mem.SharedL2Lines;
  static const char *Names[] = {"issue",       "dependency", "pipeline",
                                "L1",          "L2",         "infinity cache",
                                "HBM",         "LDS",        "scalar memory",
                                "barrier",     "nop/sleep",  "taken branch"};
  for (size_t I = 0; I < Costs.size(); ++I) {
    const PerInst &P = Costs[I];
    if (!P.Issued)
      continue;
    InstrCost IC;
    IC.Addr = T.Info.Instrs[I].Addr;
    IC.Issued = P.Issued;
    IC.Cycles = P.Cycles;
    unsigned Best = RIssue;
    for (unsigned R = 0; R <= RBranch; ++R) {
      if (R != RIssue)
        IC.Stalled += P.Stall[R];
      if (R != RIssue && P.Stall[R] > P.Stall[Best])
        Best = R;
    }
    IC.Reason = IC.Stalled > 0 ? Names[Best] : "";
    Out.Instrs.push_back(IC);
  }
}

unsigned roundUp(unsigned X, unsigned G) { return (X + G - 1) / G * G; }

} // namespace

double Breakdown::total() const {
  double S = Issue + Dependency + Pipeline + LdsWait + ScalarWait + Barrier +
             NopSleep + Branch;
  for (double M : MemWait)
    S += M;
  return S;
}

LaunchTiming timing::simulateLaunch(const LaunchTrace &T,
                                    const TimingConfig &C, Timeline *TL) {
  LaunchTiming Out;
  Out.Kernel = T.Info.Kernel;
  Out.Groups = T.Groups;
  Out.GroupsOnCU = T.GroupsOnCU;
  Out.SampledGroups = T.Sampled.size();
  Out.SharerGroups = T.Sharing.tracedGroups();
  Out.VGPRs = T.Info.VGPRs;
  Out.SGPRs = T.Info.SGPRs;
  Out.LdsBytes = T.Info.LdsBytes;
  Out.WavesPerGroup = T.Info.WavesPerGroup;
  if (!T.NotModelable.empty()) {
    Out.Modelable = false;
    Out.NotModelable = T.NotModelable;
    return Out;
  }
  // Occupancy (waves/SIMD from the unified register file, SGPRs; groups
  // from LDS, workgroup slots and wave slots).
  unsigned Slots = unsigned(C.WaveSlotsPerSIMD);
  unsigned V = roundUp(std::max(1u, T.Info.VGPRs), unsigned(C.VGPRGranule));
  unsigned ByV = unsigned(C.VGPRsPerLane) / V;
  unsigned ByS = T.Info.SGPRs ? unsigned(C.SGPRsPerSIMD) / T.Info.SGPRs
                              : Slots;
  Out.WavesPerSIMD = std::min({Slots, ByV, ByS});
  std::string Lim = ByV < Slots && ByV <= ByS ? "VGPRs"
                    : ByS < Slots             ? "SGPRs"
                                              : "wave slots";
  unsigned NS = unsigned(C.SIMDsPerCU);
  unsigned ByWaves = Out.WavesPerSIMD * NS / std::max(1u, T.Info.WavesPerGroup);
  unsigned ByLds = T.Info.LdsBytes
                       ? unsigned(C.LDSBytesPerCU / T.Info.LdsBytes)
                       : ~0u;
  unsigned BySlots = unsigned(C.GroupsPerCU);
  Out.GroupsPerCU = std::min({ByWaves, ByLds, BySlots});
  if (Out.GroupsPerCU == ByLds && ByLds < ByWaves)
    Lim = "LDS";
  else if (Out.GroupsPerCU == BySlots && BySlots < ByWaves)
    Lim = "workgroup slots";
  Out.Limiter = Lim;
  if (Out.WavesPerSIMD == 0 || Out.GroupsPerCU == 0) {
    Out.Modelable = false;
    Out.NotModelable = "a workgroup does not fit on one CU (registers, LDS "
                       "or wave slots)";
    return Out;
  }
  uint64_t Total = uint64_t(C.totalCUs());
  Out.ActiveCUs = std::min<uint64_t>(Total, T.Groups);
  uint64_t XCDs = uint64_t(C.XCDs);
  uint64_t InXCD = std::min<uint64_t>(uint64_t(C.CUsPerXCD),
                                      (T.Groups + XCDs - 1) / XCDs);
  CUSim Sim(T, C, Out, Out.ActiveCUs, std::max<uint64_t>(1, InXCD), TL);
  Sim.run(Out.WavesPerSIMD, Out.GroupsPerCU);
  Out.Scale = Out.SampledGroups
                  ? double(Out.GroupsOnCU) / double(Out.SampledGroups)
                  : 1;
  Out.Cycles = Out.SampleCycles * Out.Scale;
  if (Out.SampledGroups < Out.GroupsOnCU && Out.SampledGroups >= 4) {
    // Extrapolate from the steady state: the cost of the second half of
    // the sample per group, for every group not sampled (a plain scale
    // would repeat the sample's start-up and drain once per sample).
    LaunchTiming Half;
    CUSim H(T, C, Half, Out.ActiveCUs, std::max<uint64_t>(1, InXCD));
    size_t HalfN = Out.SampledGroups / 2;
    H.run(Out.WavesPerSIMD, Out.GroupsPerCU, HalfN);
    double PerGroup = (Out.SampleCycles - Half.SampleCycles) /
                      double(Out.SampledGroups - HalfN);
    if (PerGroup > 0) {
      Out.Cycles = Out.SampleCycles +
                   PerGroup * double(Out.GroupsOnCU - Out.SampledGroups);
      Out.Extrapolated = true;
    }
  }
  Out.Microseconds = Out.Cycles / C.ClockMHz;
  double Sec = Out.Microseconds * 1e-6;
  if (Sec > 0) {
    double Mult = Out.Scale * double(Out.ActiveCUs);
    Out.HbmTBs = Out.LevelBytes[HBM] * Mult / Sec / 1e12;
    double L2Bytes = (Out.LevelBytes[L2] + Out.LevelBytes[MALL] +
                      Out.LevelBytes[HBM]) * Mult;
    Out.L2TBs = L2Bytes / Sec / 1e12;
  }
  return Out;
}

TimingReport timing::simulate(const std::vector<LaunchTrace> &Launches,
                              const TimingConfig &C, Timeline *TL,
                              StringRef Label) {
  auto CpuNow = [] {
    timespec T;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &T);
    return double(T.tv_sec) + double(T.tv_nsec) * 1e-9;
  };
  double T0 = CpuNow();
  TimingReport R;
  R.Config = C.Name;
  R.Validated = C.Validated;
  R.ClockMHz = C.ClockMHz;
  for (const LaunchTrace &T : Launches) {
    if (TL)
      TL->beginLaunch(formatv("{0}launch {1} '{2}'",
                              Label.empty() ? "" : (Label + " ").str(),
                              R.Launches.size(), T.Info.Kernel)
                          .str(),
                      C.ClockMHz);
    R.Launches.push_back(simulateLaunch(T, C, TL));
    const LaunchTiming &L = R.Launches.back();
    R.Modelable &= L.Modelable;
    R.Cycles += L.Cycles;
    R.Microseconds += L.Microseconds;
  }
  R.ModelSeconds = CpuNow() - T0;
  return R;
}
