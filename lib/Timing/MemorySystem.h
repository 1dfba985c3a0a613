//===- MemorySystem.h - One CU's view of the memory hierarchy ---*- C++ -*-===//
//
// Caches are LRU set-associative on line numbers. The modelled CU sees its
// own L1 and its share of L2 (capacity and bandwidth divided among the
// active CUs of its XCD), of the Infinity Cache and of HBM bandwidth
// (divided among all active CUs). Each level is a server: a line occupies
// it for line-bytes / bandwidth cycles, and a request completes the level's
// latency after it was served.
//
// Launches are timed as the published benchmarks measure them: warm,
// repeated. L1 and L2 start empty (invalidated at kernel start); a line the
// Infinity Cache has not seen in the sample is a hit there when the launch's
// footprint fits in it, and comes from HBM otherwise. A load missing the
// CU's L2 share hits when another CU of the XCD has fetched the line
// (L2Sharing.h).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_TIMING_MEMORYSYSTEM_H
#define ASMEVO_LIB_TIMING_MEMORYSYSTEM_H

#include "L2Sharing.h"
#include "asmevo/Timing/Model.h"
#include <cstdint>
#include <vector>

namespace asmevo {
namespace timing {

class LRUCache {
public:
  LRUCache(uint64_t Lines, unsigned Ways);
  /// True on a hit; installs the line on a miss when \p Allocate.
  bool access(uint64_t Line, bool Allocate);

private:
  unsigned Ways;
  uint64_t Sets;
  uint64_t SetMask = 0; ///< Sets - 1 when a power of two (no division).
  uint64_t Clock = 0;
  std::vector<uint64_t> Tag;   ///< Line + 1 (0 = empty).
  std::vector<uint64_t> Stamp;
};

class MemorySystem {
public:
  MemorySystem(const TimingConfig &C, uint64_t ActiveCUs,
               uint64_t ActiveCUsInXCD, uint64_t Footprint,
               const XCDSharing *Sharing = nullptr, unsigned GroupsPerCU = 1);

  /// Vector memory instruction of sampled workgroup \p Group issued at
  /// \p T touching \p Lines; returns its completion time and the slowest
  /// level it reached.
  double access(double T, const uint64_t *Lines, unsigned N, bool Store,
                Level &Slowest, uint64_t Group = 0);

  double Bytes[NumLevels] = {0, 0, 0, 0};
  uint64_t LinesAt[NumLevels] = {0, 0, 0, 0};
  uint64_t StoreLines = 0;
  uint64_t SharedL2Lines = 0; ///< L2 hits on lines other CUs fetched.

private:
  const TimingConfig &C;
  LRUCache L1C, L2C, MallC;
  L2Sharers Sharers;
  bool MallWarm;
  double LB;
  double L1Cyc, L2Cyc, MallCyc, HbmCyc; ///< Cycles per line at each level.
  double L1Free = 0, L2Free = 0, MallFree = 0, HbmFree = 0;
};

} // namespace timing
} // namespace asmevo

#endif
