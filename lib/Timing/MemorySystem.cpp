//===- MemorySystem.cpp - One CU's view of the memory hierarchy -----------===//
#include "MemorySystem.h"
#include <algorithm>

using namespace asmevo;
using namespace asmevo::timing;

LRUCache::LRUCache(uint64_t Lines, unsigned W) : Ways(std::max(1u, W)) {
  Sets = std::max<uint64_t>(1, Lines / Ways);
  if ((Sets & (Sets - 1)) == 0)
    SetMask = Sets - 1;
  Tag.assign(Sets * Ways, 0);
  Stamp.assign(Sets * Ways, 0);
}

bool LRUCache::access(uint64_t Line, bool Allocate) {
  // Spread the set index so strided footprints do not alias one set.
  uint64_t H = Line * 0x9E3779B97F4A7C15ull;
  uint64_t S = SetMask || Sets == 1 ? (H >> 20) & SetMask : (H >> 20) % Sets;
  uint64_t *T = &Tag[S * Ways], *St = &Stamp[S * Ways];
  ++Clock;
  unsigned Victim = 0;
  for (unsigned K = 0; K < Ways; ++K) {
    if (T[K] == Line + 1) {
      St[K] = Clock;
      return true;
    }
    if (St[K] < St[Victim])
      Victim = K;
  }
  if (Allocate) {
    T[Victim] = Line + 1;
    St[Victim] = Clock;
  }
  return false;
}

static uint64_t linesOf(double Bytes, double LineBytes) {
  return std::max<uint64_t>(1, uint64_t(Bytes / LineBytes));
}

MemorySystem::MemorySystem(const TimingConfig &C, uint64_t ActiveCUs,
                           uint64_t InXCD, uint64_t Footprint,
                           const XCDSharing *Sharing, unsigned GroupsPerCU)
    : C(C), L1C(linesOf(C.L1Bytes, C.LineBytes), unsigned(C.L1Ways)),
      L2C(linesOf(C.L2BytesPerXCD / double(InXCD), C.LineBytes),
          unsigned(C.L2Ways)),
      // The Infinity Cache share is simulated only when the footprint does
      // not fit (otherwise every line hits there); keep it small then.
      MallC(Footprint > C.MallBytes
                ? linesOf(C.MallBytes / double(ActiveCUs), C.LineBytes)
                : 1,
            16),
      Sharers(Sharing, GroupsPerCU), MallWarm(Footprint <= C.MallBytes),
      LB(C.LineBytes) {
  L1Cyc = LB / C.L1BytesPerClk;
  L2Cyc = LB / (C.L2BytesPerClkPerXCD / double(InXCD));
  MallCyc =
      LB / (C.bytesPerCycle(C.MallTBs * C.MallEfficiency) / double(ActiveCUs));
  HbmCyc = LB / (C.bytesPerCycle(C.HbmTBs) / double(ActiveCUs));
}

double MemorySystem::access(double T, const uint64_t *Lines, unsigned N,
                            bool Store, Level &Slowest, uint64_t Group) {
  double Done = T;
  Slowest = L1;
  for (unsigned K = 0; K < N; ++K) {
    uint64_t Line = Lines[K];
    // The texture addresser and L1 take the lines one after another.
    double S1 = std::max(T, L1Free);
    L1Free = S1 + L1Cyc;
    Level Lv;
    double End;
    if (Store) {
      // Write-no-allocate L1; the line goes to L2 (write-back), and its
      // write-back costs Infinity Cache or HBM bandwidth.
      ++StoreLines;
      double S2 = std::max(S1, L2Free);
      L2Free = S2 + L2Cyc;
      L2C.access(Line, true);
      if (MallWarm || MallC.access(Line, true)) {
        MallFree = std::max(MallFree, S2) + MallCyc;
        Lv = MALL;
      } else {
        HbmFree = std::max(HbmFree, S2) + HbmCyc;
        Lv = HBM;
      }
      End = S2 + C.StoreAckLatency;
      Bytes[Lv] += LB;
      ++LinesAt[Lv];
      Lv = L2;
    } else if (L1C.access(Line, true)) {
      Lv = L1;
      End = S1 + C.L1Latency;
    } else {
      double S2 = std::max(S1, L2Free);
      L2Free = S2 + L2Cyc;
      bool Hit = L2C.access(Line, true);
      if (!Hit && !Sharers.empty() && Sharers.fetchedByOthers(Line, Group)) {
        Hit = true;
        ++SharedL2Lines;
      }
      if (Hit) {
        Lv = L2;
        End = S2 + C.L2Latency;
      } else if (MallWarm || MallC.access(Line, true)) {
        double S3 = std::max(S2, MallFree);
        MallFree = S3 + MallCyc;
        Lv = MALL;
        End = S3 + C.MallLatency;
      } else {
        double S4 = std::max(S2, HbmFree);
        HbmFree = S4 + HbmCyc;
        Lv = HBM;
        End = S4 + C.HbmLatency;
      }
      Bytes[Lv] += LB;
      ++LinesAt[Lv];
    }
    if (Lv > Slowest)
      Slowest = Lv;
    Done = std::max(Done, End);
  }
  return Done;
}
