//===- TraceCollector.cpp - The timing model's view of a launch -----------===//
#include "asmevo/Timing/Trace.h"
#include "L2Sharing.h"
#include "asmevo/Analysis/InstrRecord.h"
#include "llvm/Support/MathExtras.h"
#include <algorithm>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::timing;

/// Workgroups go to XCDs round-robin (group g to XCD g mod X), and within
/// an XCD to its CUs in turn; the modelled CU is CU 0 of XCD 0, so it gets
/// groups 0, X*N, 2*X*N, ... (N CUs per XCD). Slots freeing up in another
/// order would change which groups, not how many.
void TraceCollector::beginLaunch(const emu::TraceLaunchInfo &L) {
  LaunchTrace T;
  T.Info = L;
  T.Groups = uint64_t(L.Grid[0]) * L.Grid[1] * L.Grid[2];
  T.FootprintBytes = Footprint;
  uint64_t Stride = uint64_t(C.totalCUs());
  T.GroupsOnCU = (T.Groups + Stride - 1) / Stride;
  Want.assign(T.Groups, 0);
  for (uint64_t K = 0; K < T.GroupsOnCU && K < MaxSample; ++K) {
    T.Sampled.push_back(K * Stride);
    Want[K * Stride] = 1;
  }
  planSharers(C, T, Want);
  IsDS.assign(L.Instrs.size(), 0);
  for (size_t I = 0; I < L.Instrs.size(); ++I)
    IsDS[I] = L.Instrs[I].F && L.Instrs[I].F->is(ic::DS);
  if (L.Instrs.size() > TraceEvent::MaxIndex)
    T.NotModelable = "more instructions than a trace event can index";
  for (const InstrRecord &R : L.Instrs)
    if (T.NotModelable.empty() && R.F && R.F->is(ic::VMEM) &&
        ((R.F->TSFlags >> tsflag::IsAtomicRet) & 1)) {
      T.NotModelable = "global atomics that return a value: the time may "
                       "depend on the order of atomics across workgroups "
                       "(or on a spin-wait), which the model does not know";
      break;
    }
  Launches.push_back(std::move(T));
  HintEvents = 64;
  HintMemory = 16;
  HintLines = 32;
}

bool TraceCollector::wantGroup(uint64_t Group) {
  return Group < Want.size() && Want[Group];
}

void *TraceCollector::beginWave(uint64_t Group, unsigned Wave) {
  auto W = std::make_unique<WaveTrace>();
  W->Group = Group;
  W->Wave = Wave;
  W->Events.reserve(HintEvents);
  W->Memory.reserve(HintMemory);
  W->Lines.reserve(HintLines);
  WaveTrace *P = W.get();
  if (Want[Group] == 2)
    SharerWaves.push_back(std::move(W));
  else
    Launches.back().Waves.push_back(std::move(W));
  return P;
}

void TraceCollector::endWave(void *WP) {
  const WaveTrace &W = *static_cast<WaveTrace *>(WP);
  HintEvents = std::max(HintEvents, W.Events.size());
  HintMemory = std::max(HintMemory, W.Memory.size());
  HintLines = std::max(HintLines, W.Lines.size());
  if (Want[W.Group] != 2)
    return;
  // Another CU's group: only the lines it touched are kept.
  for (uint64_t L : W.Lines)
    SharerLines.push_back({L, W.Group});
  auto It = std::find_if(SharerWaves.begin(), SharerWaves.end(),
                         [&](const auto &P) { return P.get() == &W; });
  std::swap(*It, SharerWaves.back());
  SharerWaves.pop_back();
}

void TraceCollector::endLaunch() {
  SharerWaves.clear();
  if (!Launches.empty())
    finishSharers(Launches.back().Sharing, SharerLines);
}

void TraceCollector::instruction(void *WP, uint32_t Index, uint64_t Exec,
                                 uint32_t Next) {
  WaveTrace &W = *static_cast<WaveTrace *>(WP);
  uint8_t Flags = W.CurFlags;
  if (Next != Index + 1)
    Flags |= TraceEvent::Taken;
  if ((Flags & (TraceEvent::Global | TraceEvent::Lds)) ||
      (Index < IsDS.size() && IsDS[Index])) {
    Flags |= TraceEvent::Memory;
    MemoryEvent M;
    if (!W.CurLines.empty()) {
      if (W.CurUnsorted)
        std::sort(W.CurLines.begin(), W.CurLines.end());
      W.CurUnsorted = false;
      W.CurLines.erase(std::unique(W.CurLines.begin(), W.CurLines.end()),
                       W.CurLines.end());
      M.LineBegin = uint32_t(W.Lines.size());
      M.NumLines = uint32_t(W.CurLines.size());
      W.Lines.insert(W.Lines.end(), W.CurLines.begin(), W.CurLines.end());
      W.CurLines.clear();
    }
    M.LdsBytes = W.CurLdsBytes;
    M.LdsCycles = uint16_t(std::min<uint32_t>(W.CurLdsCycles, 65535));
    M.Lanes = uint8_t(__builtin_popcountll(Exec));
    W.Memory.push_back(M);
  }
  W.CurLdsCycles = W.CurLdsBytes = 0;
  W.CurFlags = 0;
  W.Events.push_back(TraceEvent(Index, Flags));
}

/// LDS: 32 banks of 4 bytes serve 128 bytes per clock; the lanes of an
/// access are taken in groups that move 128 bytes (32 lanes of b32, 16 of
/// b64, 8 of b128), and a group takes as many cycles as the most distinct
/// dwords any one bank holds (same dword: broadcast, no conflict).
static uint32_t ldsConflictCycles(const uint64_t *Addr, uint64_t Mask,
                                  uint32_t Bytes, unsigned Banks,
                                  unsigned BankBytes) {
  unsigned Dw = std::max(1u, Bytes / BankBytes);
  unsigned PerGroup = std::max(1u, Banks / Dw);
  // Banks and bank width are powers of two in every configuration we
  // ship: shifts and masks then, without a division per lane.
  bool Pow2 = isPowerOf2_32(Banks) && isPowerOf2_32(BankBytes);
  unsigned BankSh = Log2_32(BankBytes), BankMask = Banks - 1;
  // Only banks 0..NB-1 can be hit (the bank index is masked to 127).
  unsigned NB = std::min(Banks, 128u);
  uint64_t GroupMask =
      PerGroup >= 64 ? ~uint64_t(0) : (uint64_t(1) << PerGroup) - 1;
  uint32_t Cycles = 0;
  for (unsigned G0 = 0; G0 < 64; G0 += PerGroup) {
    if (!((Mask >> G0) & GroupMask))
      continue; // no active lane: no cycle
    unsigned LEnd = std::min(G0 + PerGroup, 64u);
    if (Pow2 && Banks <= 128) {
      // The usual access: every dword the group touches within Banks
      // consecutive dwords. Distinct dwords then fall in distinct banks
      // (repeats are broadcasts): one cycle, whatever the lane order.
      uint64_t Lo = ~uint64_t(0), Hi = 0;
      for (unsigned L = G0; L < LEnd; ++L) {
        if (!((Mask >> L) & 1))
          continue;
        uint64_t D0 = Addr[L] >> BankSh;
        Lo = std::min(Lo, D0);
        Hi = std::max(Hi, D0);
      }
      if (Hi + Dw > Hi && Hi + Dw - Lo <= Banks) {
        Cycles += 1;
        continue;
      }
    }
    // The distinct dwords, chained by bank: a dword has one bank, so a
    // repeat is found among its bank's dwords (conflict-free accesses and
    // broadcasts: one each) instead of among all the group's.
    constexpr unsigned Cap = 64 * 4;
    uint64_t Seen[Cap];
    int16_t Next[Cap];
    int16_t Head[128];
    unsigned Count[128];
    std::fill(Head, Head + NB, int16_t(-1));
    std::fill(Count, Count + NB, 0u);
    unsigned NSeen = 0;
    unsigned Max = 0;
    bool HavePrev = false;
    uint64_t PrevD0 = 0;
    for (unsigned L = G0; L < LEnd; ++L) {
      if (!((Mask >> L) & 1))
        continue;
      uint64_t D0 = Pow2 ? Addr[L] >> BankSh : Addr[L] / BankBytes;
      // The same dwords as the previous active lane (a broadcast): all
      // repeats, which add nothing.
      if (HavePrev && D0 == PrevD0)
        continue;
      HavePrev = true;
      PrevD0 = D0;
      for (unsigned K = 0; K < Dw; ++K) {
        uint64_t D = D0 + K;
        unsigned B = unsigned(Pow2 ? D & BankMask : D % Banks) & 127;
        bool Dup = false;
        for (int S = Head[B]; S >= 0; S = Next[S])
          if (Seen[S] == D) {
            Dup = true;
            break;
          }
        if (Dup || NSeen == Cap)
          continue;
        Seen[NSeen] = D;
        Next[NSeen] = Head[B];
        Head[B] = int16_t(NSeen);
        ++NSeen;
        Max = std::max(Max, ++Count[B]);
      }
    }
    Cycles += Max;
  }
  return Cycles;
}

void TraceCollector::memory(void *WP, uint32_t Index, const uint64_t *Addr,
                            uint64_t Mask, uint32_t Bytes, bool Lds,
                            bool Write) {
  WaveTrace &W = *static_cast<WaveTrace *>(WP);
  if (Write)
    W.CurFlags |= TraceEvent::Store;
  if (Lds) {
    W.CurFlags |= TraceEvent::Lds;
    W.CurLdsCycles += ldsConflictCycles(Addr, Mask, Bytes, unsigned(C.LdsBanks),
                                        unsigned(C.LdsBankBytes));
    W.CurLdsBytes += Bytes * unsigned(__builtin_popcountll(Mask));
    return;
  }
  W.CurFlags |= TraceEvent::Global;
  uint64_t LB = uint64_t(C.LineBytes);
  if (isPowerOf2_64(LB)) {
    // The usual case, without a 64-bit division per lane.
    unsigned Sh = Log2_64(LB);
    if (!Mask)
      return;
    // A coalesced access spans one or two lines: then the lines of its
    // lowest and highest addresses are all it touches, found in one pass
    // without a list entry per lane.
    uint64_t Lo = ~uint64_t(0), Hi = 0;
    if (Mask == ~uint64_t(0)) {
      // Every lane: a loop without the chain of bit scans.
      for (unsigned L = 0; L < 64; ++L) {
        Lo = std::min(Lo, Addr[L]);
        Hi = std::max(Hi, Addr[L]);
      }
    } else {
      for (uint64_t Bits = Mask; Bits; Bits &= Bits - 1) {
        uint64_t A = Addr[__builtin_ctzll(Bits)];
        Lo = std::min(Lo, A);
        Hi = std::max(Hi, A);
      }
    }
    uint64_t First = Lo >> Sh, Last = (Hi + Bytes - 1) >> Sh;
    if (Last - First <= 1) {
      if (!W.CurLines.empty() && W.CurLines.back() > First)
        W.CurUnsorted = true;
      W.CurLines.push_back(First);
      if (Last != First)
        W.CurLines.push_back(Last);
      return;
    }
    // Lanes mostly run up or down a strided column: note whether the list
    // stays ascending, so that instruction() need not sort it.
    for (uint64_t Bits = Mask; Bits; Bits &= Bits - 1) {
      uint64_t A = Addr[__builtin_ctzll(Bits)];
      uint64_t L0 = A >> Sh, L1 = (A + Bytes - 1) >> Sh;
      if (W.CurLines.empty() || W.CurLines.back() != L0) {
        if (!W.CurLines.empty() && W.CurLines.back() > L0)
          W.CurUnsorted = true;
        W.CurLines.push_back(L0);
      }
      if (L1 != L0)
        W.CurLines.push_back(L1);
    }
    return;
  }
  // Neighbouring lanes mostly share a line: skipping a repeat of the line
  // just added keeps the list (sorted and made unique at instruction())
  // a few entries long instead of one or two per lane.
  for (uint64_t Bits = Mask; Bits; Bits &= Bits - 1) {
    uint64_t A = Addr[__builtin_ctzll(Bits)];
    uint64_t L0 = A / LB, L1 = (A + Bytes - 1) / LB;
    for (uint64_t L = L0; L <= L1 && L <= L0 + 1; ++L)
      if (W.CurLines.empty() || W.CurLines.back() != L) {
        if (!W.CurLines.empty() && W.CurLines.back() > L)
          W.CurUnsorted = true;
        W.CurLines.push_back(L);
      }
  }
}
