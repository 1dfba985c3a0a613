//===- Reductions.cpp - References of the row-wise reduction kernels ------===//
#include "Reference.h"
#include <algorithm>
#include <numeric>

using namespace llvm;
using namespace asmevo::suite;

static double asF32(double V) { return (double)(float)V; }

Error asmevo::suite::reduce_sum_rowsRef(RefContext &C) {
  int64_t Rows = C.i("rows"), Cols = C.i("cols");
  auto X = C.in<float>("x", Rows * Cols);
  auto Out = C.out("out", Rows);
  auto S = C.scale("out");
  if (Error E = C.takeError())
    return E;
  for (int64_t R = 0; R < Rows; ++R) {
    double Sum = 0, Abs = 0;
    for (int64_t Col = 0; Col < Cols; ++Col) {
      Sum += X[R * Cols + Col];
      Abs += std::fabs(X[R * Cols + Col]);
    }
    Out[R] = Sum;
    S[R] = Abs;
  }
  return Error::success();
}

Error asmevo::suite::reduce_max_rowsRef(RefContext &C) {
  int64_t Rows = C.i("rows"), Cols = C.i("cols");
  auto X = C.in<float>("x", Rows * Cols);
  auto Out = C.out("out", Rows);
  if (Error E = C.takeError())
    return E;
  for (int64_t R = 0; R < Rows; ++R) {
    float M = -INFINITY;
    for (int64_t Col = 0; Col < Cols; ++Col)
      M = std::fmax(M, X[R * Cols + Col]);
    Out[R] = M;
  }
  return Error::success();
}

Error asmevo::suite::argmax_rowsRef(RefContext &C) {
  int64_t Rows = C.i("rows"), Cols = C.i("cols");
  auto X = C.in<float>("x", Rows * Cols);
  auto Out = C.out("out", Rows);
  if (Error E = C.takeError())
    return E;
  for (int64_t R = 0; R < Rows; ++R) {
    int64_t Best = 0;
    for (int64_t Col = 1; Col < Cols; ++Col)
      if (X[R * Cols + Col] > X[R * Cols + Best])
        Best = Col; // strict: the first of equal maxima wins
    Out[R] = (double)Best;
  }
  return Error::success();
}

Error asmevo::suite::softmax_rowsRef(RefContext &C) {
  int64_t Rows = C.i("rows"), Cols = C.i("cols");
  auto X = C.in<float>("x", Rows * Cols);
  auto Y = C.out("y", Rows * Cols);
  if (Error E = C.takeError())
    return E;
  for (int64_t R = 0; R < Rows; ++R) {
    const float *In = &X[R * Cols];
    double M = *std::max_element(In, In + Cols);
    double Sum = 0;
    for (int64_t Col = 0; Col < Cols; ++Col)
      Sum += std::exp(In[Col] - M);
    for (int64_t Col = 0; Col < Cols; ++Col)
      Y[R * Cols + Col] = std::exp(In[Col] - M) / Sum;
  }
  return Error::success();
}

Error asmevo::suite::layernormRef(RefContext &C) {
  int64_t Rows = C.i("rows"), Cols = C.i("cols");
  double Eps = asF32(C.f("eps"));
  auto X = C.in<float>("x", Rows * Cols);
  auto G = C.in<float>("gamma", Cols);
  auto B = C.in<float>("beta", Cols);
  auto Y = C.out("y", Rows * Cols);
  auto S = C.scale("y");
  if (Error E = C.takeError())
    return E;
  for (int64_t R = 0; R < Rows; ++R) {
    const float *In = &X[R * Cols];
    double Mean = std::accumulate(In, In + Cols, 0.0) / Cols;
    double Var = 0;
    for (int64_t Col = 0; Col < Cols; ++Col)
      Var += (In[Col] - Mean) * (In[Col] - Mean);
    double Rstd = 1.0 / std::sqrt(Var / Cols + Eps);
    for (int64_t Col = 0; Col < Cols; ++Col) {
      Y[R * Cols + Col] = (In[Col] - Mean) * Rstd * G[Col] + B[Col];
      // x - mean inherits the absolute error of the mean (about |x| ulps).
      S[R * Cols + Col] =
          (std::fabs(In[Col]) + std::fabs(Mean)) * Rstd * std::fabs(G[Col]) +
          std::fabs(B[Col]);
    }
  }
  return Error::success();
}

Error asmevo::suite::rmsnormRef(RefContext &C) {
  int64_t Rows = C.i("rows"), Cols = C.i("cols");
  double Eps = asF32(C.f("eps"));
  auto X = C.in<float>("x", Rows * Cols);
  auto W = C.in<float>("weight", Cols);
  auto Y = C.out("y", Rows * Cols);
  if (Error E = C.takeError())
    return E;
  for (int64_t R = 0; R < Rows; ++R) {
    const float *In = &X[R * Cols];
    double SS = 0;
    for (int64_t Col = 0; Col < Cols; ++Col)
      SS += (double)In[Col] * In[Col];
    double Inv = 1.0 / std::sqrt(SS / Cols + Eps);
    for (int64_t Col = 0; Col < Cols; ++Col)
      Y[R * Cols + Col] = In[Col] * Inv * W[Col];
  }
  return Error::success();
}

Error asmevo::suite::softmax_maskRef(RefContext &C) {
  int64_t Rows = C.i("rows"), Cols = C.i("cols");
  // The kernel scales in float: x * scale is rounded before the max.
  float Scale = (float)C.f("scale");
  auto X = C.in<float>("x", Rows * Cols);
  auto Mask = C.in<uint8_t>("mask", Rows * Cols);
  auto Y = C.out("y", Rows * Cols);
  if (Error E = C.takeError())
    return E;
  for (int64_t R = 0; R < Rows; ++R) {
    double M = -INFINITY;
    for (int64_t Col = 0; Col < Cols; ++Col)
      if (!Mask[R * Cols + Col])
        M = std::max(M, (double)X[R * Cols + Col] * Scale);
    if (M == -INFINITY)
      continue; // fully masked row: zeros
    double Sum = 0;
    for (int64_t Col = 0; Col < Cols; ++Col)
      if (!Mask[R * Cols + Col])
        Sum += std::exp((double)X[R * Cols + Col] * Scale - M);
    for (int64_t Col = 0; Col < Cols; ++Col)
      Y[R * Cols + Col] =
          Mask[R * Cols + Col]
              ? 0.0
              : std::exp((double)X[R * Cols + Col] * Scale - M) / Sum;
  }
  return Error::success();
}

Error asmevo::suite::block_scanRef(RefContext &C) {
  const int64_t Block = 256;
  int64_t N = C.i("n");
  int64_t Blocks = (N + Block - 1) / Block;
  auto In = C.in<int32_t>("in", N);
  auto Out = C.out("out", N);
  auto Sums = C.out("block_sums", Blocks);
  if (Error E = C.takeError())
    return E;
  for (int64_t B = 0; B < Blocks; ++B) {
    uint32_t Acc = 0; // int32 arithmetic wraps on the GPU
    for (int64_t I = B * Block; I < std::min(N, (B + 1) * Block); ++I) {
      Acc += (uint32_t)In[I];
      Out[I] = (double)(int32_t)Acc;
    }
    Sums[B] = (double)(int32_t)Acc;
  }
  return Error::success();
}

Error asmevo::suite::topk_rowsRef(RefContext &C) {
  const int64_t K = 8;
  int64_t Rows = C.i("rows"), Cols = C.i("cols");
  auto X = C.in<float>("x", Rows * Cols);
  auto Values = C.out("values", Rows * K);
  auto Indices = C.out("indices", Rows * K);
  if (Error E = C.takeError())
    return E;
  std::vector<int64_t> Order;
  for (int64_t R = 0; R < Rows; ++R) {
    const float *In = &X[R * Cols];
    Order.resize(Cols);
    std::iota(Order.begin(), Order.end(), 0);
    // Descending by value, earlier column first among equal values.
    std::sort(Order.begin(), Order.end(), [&](int64_t A, int64_t B) {
      return In[A] != In[B] ? In[A] > In[B] : A < B;
    });
    for (int64_t J = 0; J < K; ++J) {
      bool Have = J < Cols;
      Values[R * K + J] = Have ? (double)In[Order[J]] : -INFINITY;
      Indices[R * K + J] = Have ? (double)Order[J] : -1.0;
    }
  }
  return Error::success();
}
