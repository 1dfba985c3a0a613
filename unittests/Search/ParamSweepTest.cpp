//===- ParamSweepTest.cpp -------------------------------------------------===//
#include "asmevo/Search/ParamSweep.h"
#include "llvm/ADT/StringExtras.h"
#include "gtest/gtest.h"

using namespace asmevo;

namespace {

std::vector<std::string>
joined(const std::vector<std::vector<std::string>> &Lists) {
  std::vector<std::string> Out;
  for (const auto &L : Lists)
    Out.push_back(llvm::join(L, ","));
  return Out;
}

TEST(ParamSweepTest, LoopStructureFirstAndOnlyActivePasses) {
  auto N = joined(
      sweepNeighbours({"loop-unroll", "redundancy-elim", "schedule-window"},
                      {"loop-unroll", "schedule-window"}));
  ASSERT_GE(N.size(), 6u);
  EXPECT_EQ(N[0], "loop-unroll<factor=8>,redundancy-elim,schedule-window");
  EXPECT_EQ(N[1], "loop-unroll<factor=2>,redundancy-elim,schedule-window");
  EXPECT_EQ(N[2],
            "loop-unroll<occupancy-drop=4>,redundancy-elim,schedule-window");
  EXPECT_EQ(N[3],
            "loop-unroll<occupancy-drop=2>,redundancy-elim,schedule-window");
  // Then the joint step: more copies with the waves their registers cost.
  EXPECT_EQ(N[4], "loop-unroll<factor=8;occupancy-drop=4>,redundancy-elim,"
                  "schedule-window");
  EXPECT_EQ(N[5], "loop-unroll,redundancy-elim,schedule-window<order=1>");
  // redundancy-elim has no swept parameter; setprio is not in the list.
  for (const std::string &S : N) {
    EXPECT_EQ(S.find("redundancy-elim<"), std::string::npos) << S;
    EXPECT_EQ(S.find("setprio"), std::string::npos) << S;
  }
}

TEST(ParamSweepTest, EveryPassWhenNoneIsKnownActive) {
  auto N = joined(sweepNeighbours({"exec-loop-pipeline", "sink-waitcnt"}, {}));
  EXPECT_EQ(N.front(), "exec-loop-pipeline<depth=8>,sink-waitcnt");
  EXPECT_NE(
      std::find(N.begin(), N.end(), "exec-loop-pipeline,sink-waitcnt<reach=8>"),
      N.end());
}

TEST(ParamSweepTest, DefaultComesBackAndTheMovedCoordinateGoesLast) {
  std::vector<std::string> Parent = {"loop-unroll<factor=8>",
                                     "schedule-window"};
  std::vector<std::string> Grand = {"loop-unroll", "schedule-window"};
  auto N = joined(sweepNeighbours(Parent, {}, Grand));
  // The parent's own value is never proposed; the default (unset) is.
  EXPECT_EQ(
      std::find(N.begin(), N.end(), "loop-unroll<factor=8>,schedule-window"),
      N.end());
  ASSERT_GE(N.size(), 2u);
  EXPECT_EQ(N[N.size() - 2], "loop-unroll<factor=2>,schedule-window");
  EXPECT_EQ(N.back(), "loop-unroll,schedule-window");
  // Loop structure still first: the other loop-unroll parameter.
  EXPECT_EQ(N.front(),
            "loop-unroll<factor=8;occupancy-drop=4>,schedule-window");
  EXPECT_NE(std::find(N.begin(), N.end(),
                      "loop-unroll<factor=8>,schedule-window<order=1>"),
            N.end());
  // Without the grandparent the factor comes first again.
  auto M = joined(sweepNeighbours(Parent, {}));
  EXPECT_EQ(M.front(), "loop-unroll<factor=2>,schedule-window");
}

TEST(ParamSweepTest, UnparsableListGivesNothing) {
  EXPECT_TRUE(sweepNeighbours({"no-such-pass"}, {}).empty());
}

} // namespace
