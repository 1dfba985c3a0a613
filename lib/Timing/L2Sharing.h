//===- L2Sharing.h - The L2 the modelled CU shares with its XCD -*- C++ -*-===//
//
// The model simulates one CU, but MI300X has one L2 per XCD, shared by its
// 38 CUs: a line that a workgroup on another CU of the XCD fetched a moment
// earlier (a GEMM's B tile, read by every group of a column) is an L2 hit.
// The trace therefore also runs a bounded number of workgroups that other
// CUs of the XCD hold at the same time as the sampled ones (the same
// dispatch rounds), for their addresses only. An L2 miss of the modelled
// CU on a line that k workgroups co-resident on the XCD also touch is a
// hit unless the modelled CU is the first of the k + 1 to fetch it, which
// it is 1 / (k + 1) of the time; k is scaled from the traced groups to
// the XCD's real co-resident count, and a hash of the line decides, so
// the model stays deterministic.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_TIMING_L2SHARING_H
#define ASMEVO_LIB_TIMING_L2SHARING_H

#include "asmevo/Timing/Trace.h"
#include <cstdint>
#include <utility>
#include <vector>

namespace asmevo {
namespace timing {

/// Chooses the other-CU workgroups to trace for \p T's sampled rounds (at
/// most the configuration's l2_sharer_groups; none when l2_sharing is 0
/// or an XCD has one CU) and marks them 2 in \p Want.
void planSharers(const TimingConfig &C, LaunchTrace &T,
                 std::vector<uint8_t> &Want);

/// Builds S.Touches from (line, linear group) pairs of the traced groups.
void finishSharers(XCDSharing &S,
                   std::vector<std::pair<uint64_t, uint64_t>> &Lines);

/// The lookup MemorySystem makes on an L2 miss.
class L2Sharers {
public:
  /// \p GroupsPerCU: the modelled occupancy; rounds that far apart or
  /// nearer are co-resident on the XCD.
  L2Sharers(const XCDSharing *S, unsigned GroupsPerCU);
  bool empty() const { return !S || S->Touches.empty(); }
  /// Whether another CU of the XCD has already brought \p Line into L2
  /// when sampled group \p Group misses on it.
  bool fetchedByOthers(uint64_t Line, uint64_t Group) const;

private:
  const XCDSharing *S;
  uint64_t Window;
  /// Per sampled round: other-CU groups co-resident with it on the XCD,
  /// and how many of those the trace ran.
  std::vector<double> Resident, Traced;
};

} // namespace timing
} // namespace asmevo

#endif
