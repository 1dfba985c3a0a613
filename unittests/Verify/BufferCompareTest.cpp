//===- BufferCompareTest.cpp - Exact and tolerant element comparison ------===//
#include "asmevo/Verify/BufferCompare.h"
#include "gtest/gtest.h"
#include <cmath>
#include <cstring>

using namespace asmevo::emu;
using namespace asmevo::verify;

namespace {

bool matchF32(float A, float B, const Tolerance &T) {
  uint8_t X[4], Y[4];
  std::memcpy(X, &A, 4);
  std::memcpy(Y, &B, 4);
  return elementsMatch(ElemType::F32, T, X, Y);
}

TEST(BufferCompare, ExactByDefault) {
  Tolerance None;
  EXPECT_TRUE(matchF32(1.0f, 1.0f, None));
  EXPECT_FALSE(matchF32(1.0f, std::nextafter(1.0f, 2.0f), None));
  // Bit-exact: the zeros differ, and NaN payloads differ.
  EXPECT_FALSE(matchF32(0.0f, -0.0f, None));
  uint32_t N1 = 0x7fc00000, N2 = 0x7fc00001;
  EXPECT_FALSE(elementsMatch(ElemType::F32, None,
                             reinterpret_cast<uint8_t *>(&N1),
                             reinterpret_cast<uint8_t *>(&N2)));
}

TEST(BufferCompare, Ulps) {
  Tolerance T;
  T.Ulp = 2;
  float One = 1.0f;
  float Up2 = std::nextafter(std::nextafter(One, 2.0f), 2.0f);
  EXPECT_TRUE(matchF32(One, Up2, T));
  EXPECT_FALSE(matchF32(One, std::nextafter(Up2, 2.0f), T));
  // Across zero: -denormal_min and +denormal_min are 2 ulps apart.
  float D = std::nextafter(0.0f, 1.0f);
  EXPECT_TRUE(matchF32(-D, D, T));
  EXPECT_TRUE(matchF32(0.0f, -0.0f, T));
  EXPECT_TRUE(matchF32(NAN, -NAN, T));
  EXPECT_FALSE(matchF32(NAN, 1.0f, T));
  EXPECT_FALSE(matchF32(INFINITY, -INFINITY, T));
}

TEST(BufferCompare, Relative) {
  Tolerance T;
  T.Rel = 1e-3;
  EXPECT_TRUE(matchF32(1000.0f, 1000.9f, T));
  EXPECT_FALSE(matchF32(1000.0f, 1001.1f, T));
  EXPECT_TRUE(matchF32(INFINITY, INFINITY, T));
  EXPECT_FALSE(matchF32(INFINITY, 1e38f, T));
  T.Abs = 0.5;
  EXPECT_TRUE(matchF32(0.0f, 0.4f, T));
}

TEST(BufferCompare, IntegersIgnoreTolerance) {
  Tolerance T;
  T.Ulp = 100;
  int32_t A = 5, B = 6;
  EXPECT_FALSE(elementsMatch(ElemType::I32, T, reinterpret_cast<uint8_t *>(&A),
                             reinterpret_cast<uint8_t *>(&B)));
}

TEST(BufferCompare, HalfUlps) {
  Tolerance T;
  T.Ulp = 1;
  uint16_t A = 0x3c00, B = 0x3c01, C = 0x3c02;
  auto P = [](uint16_t &X) { return reinterpret_cast<uint8_t *>(&X); };
  EXPECT_TRUE(elementsMatch(ElemType::F16, T, P(A), P(B)));
  EXPECT_FALSE(elementsMatch(ElemType::F16, T, P(A), P(C)));
}

TEST(BufferCompare, FirstMismatch) {
  std::vector<uint8_t> X(16, 0), Y(16, 0);
  EXPECT_FALSE(firstMismatch(ElemType::F32, Tolerance(), X, Y));
  Y[9] = 1;
  EXPECT_EQ(firstMismatch(ElemType::F32, Tolerance(), X, Y), 2u);
}

} // namespace
