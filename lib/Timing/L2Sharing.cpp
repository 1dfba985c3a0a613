//===- L2Sharing.cpp - The L2 the modelled CU shares with its XCD ---------===//
#include "L2Sharing.h"
#include <algorithm>
#include <random>

using namespace asmevo;
using namespace asmevo::timing;

uint64_t XCDSharing::tracedGroups() const {
  uint64_t N = 0;
  for (uint32_t T : Traced)
    N += T;
  return N;
}

uint64_t XCDSharing::others(uint64_t R) const {
  if (CUs * R >= GroupsOnXCD)
    return 0;
  return std::min(CUs, GroupsOnXCD - CUs * R) - 1;
}

void timing::planSharers(const TimingConfig &C, LaunchTrace &T,
                         std::vector<uint8_t> &Want) {
  XCDSharing &S = T.Sharing;
  S.XCDs = uint64_t(C.XCDs);
  S.CUs = uint64_t(C.CUsPerXCD);
  S.GroupsOnXCD = (T.Groups + S.XCDs - 1) / S.XCDs;
  uint64_t Budget = C.L2Sharing >= 0.5 ? uint64_t(C.L2SharerGroups) : 0;
  uint64_t Rounds = T.Sampled.size();
  if (!Budget || S.CUs < 2 || !Rounds)
    return;
  S.Traced.assign(Rounds, 0);
  // The budget spread evenly over the sampled rounds; in each, a seeded
  // uniform choice among the other CUs (a fixed set would favour the
  // groups next to the sampled one, which share its grid row).
  for (uint64_t R = 0; R < Rounds; ++R) {
    uint64_t N = S.others(R);
    uint64_t Q = Budget / Rounds + (R < Budget % Rounds);
    Q = std::min(Q, N);
    std::vector<uint64_t> CU(N);
    for (uint64_t K = 0; K < N; ++K)
      CU[K] = K + 1;
    std::mt19937_64 Rng(0x5ca1ab1e + R);
    for (uint64_t K = 0; K < Q; ++K) {
      std::swap(CU[K], CU[K + Rng() % (N - K)]);
      uint64_t G = S.XCDs * (S.CUs * R + CU[K]);
      if (G < Want.size() && !Want[G]) {
        Want[G] = 2;
        ++S.Traced[R];
      }
    }
  }
}

void timing::finishSharers(XCDSharing &S,
                           std::vector<std::pair<uint64_t, uint64_t>> &L) {
  // One entry per (line, group): a group's waves touch its lines several
  // times. Rounds grow with the linear id, so (line, group) order is
  // (line, round) order.
  std::sort(L.begin(), L.end());
  L.erase(std::unique(L.begin(), L.end()), L.end());
  S.Touches.clear();
  for (const auto &[Line, Group] : L) {
    uint32_t R = uint32_t(S.roundOf(Group));
    if (!S.Touches.empty() && S.Touches.back().Line == Line &&
        S.Touches.back().Round == R)
      ++S.Touches.back().Groups;
    else
      S.Touches.push_back({Line, R, 1});
  }
  L.clear();
  L.shrink_to_fit();
}

L2Sharers::L2Sharers(const XCDSharing *S, unsigned GroupsPerCU)
    : S(S), Window(std::max(1u, GroupsPerCU)) {
  if (empty())
    return;
  // A CU holds GroupsPerCU groups at once and the XCD's CUs advance
  // together, so the group of round R overlaps rounds R - W + 1 .. R + W - 1.
  uint64_t Rounds = S->Traced.size();
  uint64_t XCDRounds = (S->GroupsOnXCD + S->CUs - 1) / S->CUs;
  Resident.assign(Rounds, 0);
  Traced.assign(Rounds, 0);
  for (uint64_t R = 0; R < Rounds; ++R) {
    uint64_t Lo = R >= Window ? R - Window + 1 : 0;
    for (uint64_t Q = Lo; Q < R + Window && Q < XCDRounds; ++Q) {
      Resident[R] += double(S->others(Q));
      if (Q < Rounds)
        Traced[R] += S->Traced[Q];
    }
  }
}

bool L2Sharers::fetchedByOthers(uint64_t Line, uint64_t Group) const {
  if (empty())
    return false;
  uint64_t R = S->roundOf(Group);
  if (R >= Traced.size() || Traced[R] <= 0)
    return false;
  auto It = std::lower_bound(
      S->Touches.begin(), S->Touches.end(), Line,
      [](const XCDSharing::Touch &T, uint64_t L) { return T.Line < L; });
  uint64_t Lo = R >= Window ? R - Window + 1 : 0, Hi = R + Window;
  double M = 0;
  for (; It != S->Touches.end() && It->Line == Line; ++It)
    if (It->Round >= Lo && It->Round < Hi)
      M += It->Groups;
  if (M == 0)
    return false;
  // k sharers among the co-resident groups, scaled from those traced; the
  // modelled CU fetches first 1 / (k + 1) of the time.
  double K = M * Resident[R] / Traced[R];
  uint64_t H = (Line ^ (R * 0xD6E8FEB86659FD93ull)) * 0x9E3779B97F4A7C15ull;
  H ^= H >> 29;
  H *= 0xBF58476D1CE4E5B9ull;
  H ^= H >> 32;
  double U = double(H >> 11) / double(1ull << 53);
  return U * (K + 1) >= 1;
}
