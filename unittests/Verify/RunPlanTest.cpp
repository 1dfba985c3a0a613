//===- RunPlanTest.cpp - Seeds, sizes, drawn scalars, input variation -----===//
#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Verify/EditSet.h"
#include "asmevo/Verify/InputVariation.h"
#include "asmevo/Verify/RunPlan.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>
#include <string>

using namespace asmevo::emu;
using namespace asmevo::verify;

namespace {

LaunchSpec spec() {
  LaunchSpec S;
  S.Path = "t.yaml";
  S.Seed = 1;
  SpecScalar N;
  N.Name = "n";
  N.Type = ElemType::I32;
  N.Value = "1000";
  N.Range = {{1, 1000000}};
  SpecScalar Ld;
  Ld.Name = "ld";
  Ld.Type = ElemType::I32;
  Ld.Value = "n + 7";
  SpecScalar M;
  M.Name = "m";
  M.Type = ElemType::I32;
  M.Value = "4";
  M.Range = {{1, 64}};
  SpecScalar A;
  A.Name = "alpha";
  A.Type = ElemType::F32;
  A.Value = "1";
  A.Range = {{0.5, 2}};
  S.Scalars = {N, Ld, M, A};
  SpecBuffer B;
  B.Name = "x";
  B.Type = ElemType::F32;
  B.Count = "ld * 2";
  S.Buffers = {B};
  SpecLaunch L;
  L.Kernel = "k";
  L.Grid[0] = "ceil_div(n, 256)";
  S.Launches = {L};
  S.Variants = {{{"n", "5000"}}};
  return S;
}

TEST(RunPlan, SizeScalarsFollowDerivedOnes) {
  auto Sizes = sizeScalars(spec());
  EXPECT_TRUE(Sizes.count("n"));  // via ld = n + 7 and the grid
  EXPECT_TRUE(Sizes.count("ld"));
  EXPECT_FALSE(Sizes.count("m"));
  EXPECT_FALSE(Sizes.count("alpha"));
  EXPECT_FALSE(Sizes.count("ceil_div"));
}

TEST(RunPlan, SeedsSizesAndDraws) {
  LaunchSpec S = spec();
  PlanOptions O;
  O.Seeds = 3;
  O.RandomSizes = 2;
  auto Plan = planRuns(S, O);
  ASSERT_TRUE(bool(Plan));
  // 2 listed sizes x 3 seeds + 2 random sizes.
  ASSERT_EQ(Plan->size(), 8u);
  for (const RunConfig &R : *Plan) {
    if (R.RandomSize) {
      // Sizes are drawn, but never beyond the largest listed (5000).
      ASSERT_TRUE(R.Drawn.count("n"));
      int64_t N = std::stoll(R.Drawn.at("n"));
      EXPECT_GE(N, 1);
      EXPECT_LE(N, 5000);
      continue;
    }
    // A listed size keeps its size scalars; later seeds draw the rest.
    EXPECT_FALSE(R.Drawn.count("n"));
    EXPECT_FALSE(R.Drawn.count("ld"));
    bool First = R.InputSeed == S.Seed;
    EXPECT_EQ(R.Drawn.count("alpha"), First ? 0u : 1u);
    EXPECT_EQ(R.Inputs.isIdentity(), First);
    if (!First) {
      double A = std::stod(R.Drawn.at("alpha"));
      EXPECT_GE(A, 0.5);
      EXPECT_LE(A, 2.0);
    }
  }
  // Deterministic: the same spec gives the same plan.
  auto Again = planRuns(S, O);
  ASSERT_TRUE(bool(Again));
  for (size_t I = 0; I < Plan->size(); ++I)
    EXPECT_EQ((*Plan)[I].Drawn, (*Again)[I].Drawn);
}

TEST(InputVariation, CoversScalesSignsAndSpecials) {
  bool Big = false, Small = false, Neg = false, Special = false,
       Normal = false;
  for (unsigned K = 0; K < 5; ++K) {
    InputVariation V = variationForSeed(K);
    Big |= V.Scale > 1;
    Small |= V.Scale < 1;
    Neg |= V.Negate;
    Special |= V.SpecialEvery != 0;
    Normal |= V.Normal;
  }
  EXPECT_TRUE(variationForSeed(0).isIdentity());
  EXPECT_TRUE(Big && Small && Neg && Special && Normal);
  // The default three seeds already cover both scales, a sign flip and
  // special values.
  EXPECT_EQ(variationForSeed(1).Scale, 3);
  EXPECT_TRUE(variationForSeed(1).Negate);
  EXPECT_EQ(variationForSeed(2).Scale, 0.01);
  EXPECT_NE(variationForSeed(2).SpecialEvery, 0u);
}

TEST(InputVariation, OnlyDistributionFloatInputs) {
  SpecBuffer B;
  B.Type = ElemType::F32;
  B.R = SpecBuffer::In;
  EXPECT_TRUE(isVaried(B));
  B.Init.K = InitSpec::File;
  EXPECT_FALSE(isVaried(B));
  B.Init.K = InitSpec::Uniform;
  B.R = SpecBuffer::Out;
  EXPECT_FALSE(isVaried(B));
  B.R = SpecBuffer::InOut;
  B.Type = ElemType::I32;
  EXPECT_FALSE(isVaried(B));
}

TEST(InputVariation, ScalesNegatesAndSpecials) {
  SpecBuffer SB;
  SB.Name = "x";
  SB.Type = ElemType::F32;
  SB.R = SpecBuffer::In;
  HostBuffer B;
  B.Spec = &SB;
  B.Count = 64;
  B.Initial.resize(64 * 4);
  for (unsigned I = 0; I < 64; ++I) {
    float F = 0.5f;
    std::memcpy(&B.Initial[4 * I], &F, 4);
  }
  InputVariation V;
  V.Scale = 3;
  V.Negate = true;
  applyVariation(V, B, 7);
  for (unsigned I = 0; I < 64; ++I)
    EXPECT_EQ(decodeElement(ElemType::F32, &B.Initial[4 * I]), -1.5);
  V = InputVariation();
  V.SpecialEvery = 1;
  applyVariation(V, B, 7);
  unsigned NonFinite = 0;
  for (unsigned I = 0; I < 64; ++I)
    NonFinite += !std::isfinite(decodeElement(ElemType::F32, &B.Initial[4 * I]));
  EXPECT_GT(NonFinite, 0u);
}

TEST(EditSet, AlignSequences) {
  std::string A = "abcxdefg", B = "abcdeyfgz";
  auto P = alignSequences(A.size(), B.size(),
                          [&](size_t X, size_t Y) { return A[X] == B[Y]; });
  std::string Common;
  size_t LastX = 0, LastY = 0;
  bool First = true;
  for (auto [X, Y] : P) {
    EXPECT_EQ(A[X], B[Y]);
    if (!First) {
      EXPECT_GT(X, LastX);
      EXPECT_GT(Y, LastY);
    }
    First = false;
    LastX = X;
    LastY = Y;
    Common += A[X];
  }
  EXPECT_EQ(Common, "abcdefg");
  // Nothing in common; empty inputs.
  EXPECT_TRUE(alignSequences(3, 2, [](size_t, size_t) { return false; })
                  .empty());
  EXPECT_TRUE(alignSequences(0, 4, [](size_t, size_t) { return true; })
                  .empty());
}

TEST(EditSet, AlignSequencesMany) {
  // One inserted element every 10: the alignment still pairs all of A.
  std::vector<int> A, B;
  for (int I = 0; I < 2000; ++I) {
    A.push_back(I);
    B.push_back(I);
    if (I % 10 == 0)
      B.push_back(-1);
  }
  auto P = alignSequences(A.size(), B.size(),
                          [&](size_t X, size_t Y) { return A[X] == B[Y]; });
  EXPECT_EQ(P.size(), A.size());
}

} // namespace
