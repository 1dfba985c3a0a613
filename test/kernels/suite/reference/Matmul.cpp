//===- Matmul.cpp - References of the matrix kernels ----------------------===//
//
// Dot products are summed exactly enough in double; the error scale of each
// output is sum |a_i b_i| (plus |bias| or |beta c|), which bounds the fp32
// rounding error of any summation order (Higham, "Accuracy and Stability of
// Numerical Algorithms", 2nd ed., section 3.1).
//
//===----------------------------------------------------------------------===//
#include "Reference.h"

using namespace llvm;
using namespace asmevo::suite;

static double asF32(double V) { return (double)(float)V; }

namespace {
/// C (M x N) = A (M x K) * B (K x N), row-major, with error scales.
template <typename T>
void matmul(ArrayRef<T> A, ArrayRef<T> B, int64_t M, int64_t N, int64_t K,
            MutableArrayRef<double> C, MutableArrayRef<double> S) {
  auto Val = [](T V) -> double {
    if constexpr (std::is_same_v<T, float>)
      return V;
    else
      return toDouble(V);
  };
  for (int64_t R = 0; R < M; ++R)
    for (int64_t Col = 0; Col < N; ++Col) {
      double Sum = 0, Abs = 0;
      for (int64_t I = 0; I < K; ++I) {
        double P = Val(A[R * K + I]) * Val(B[I * N + Col]);
        Sum += P;
        Abs += std::fabs(P);
      }
      C[R * N + Col] = Sum;
      S[R * N + Col] = Abs;
    }
}

Error plainMatmul(RefContext &C) {
  int64_t M = C.i("M"), N = C.i("N"), K = C.i("K");
  auto A = C.in<float>("A", M * K);
  auto B = C.in<float>("B", K * N);
  auto Out = C.out("C", M * N);
  auto S = C.scale("C");
  if (Error E = C.takeError())
    return E;
  matmul(A, B, M, N, K, Out, S);
  return Error::success();
}
} // namespace

Error asmevo::suite::matmul_naiveRef(RefContext &C) { return plainMatmul(C); }
Error asmevo::suite::matmul_tiledRef(RefContext &C) { return plainMatmul(C); }

Error asmevo::suite::gemm_mfma_f16Ref(RefContext &C) {
  int64_t M = C.i("M"), N = C.i("N"), K = C.i("K");
  auto A = C.in<Half>("A", M * K);
  auto B = C.in<Half>("B", K * N);
  auto Out = C.out("C", M * N);
  auto S = C.scale("C");
  if (Error E = C.takeError())
    return E;
  matmul(A, B, M, N, K, Out, S);
  return Error::success();
}

Error asmevo::suite::gemm_mfma_bf16Ref(RefContext &C) {
  int64_t M = C.i("M"), N = C.i("N"), K = C.i("K");
  double Alpha = asF32(C.f("alpha")), Beta = asF32(C.f("beta"));
  auto A = C.in<BFloat16>("A", M * K);
  auto B = C.in<BFloat16>("B", K * N);
  auto Out = C.out("C", M * N); // inout: holds the initial C
  auto S = C.scale("C");
  if (Error E = C.takeError())
    return E;
  std::vector<double> AB(M * N), ABScale(M * N);
  matmul(A, B, M, N, K, AB, ABScale);
  for (int64_t I = 0; I < M * N; ++I) {
    double C0 = Out[I];
    Out[I] = Alpha * AB[I] + Beta * C0;
    S[I] = std::fabs(Alpha) * ABScale[I] + std::fabs(Beta * C0);
  }
  return Error::success();
}

Error asmevo::suite::batched_matmulRef(RefContext &C) {
  int64_t Batch = C.i("batch"), M = C.i("M"), N = C.i("N"), K = C.i("K");
  auto A = C.in<float>("A", Batch * M * K);
  auto B = C.in<float>("B", Batch * K * N);
  auto Out = C.out("C", Batch * M * N);
  auto S = C.scale("C");
  if (Error E = C.takeError())
    return E;
  for (int64_t I = 0; I < Batch; ++I)
    matmul(A.slice(I * M * K, M * K), B.slice(I * K * N, K * N), M, N, K,
           Out.slice(I * M * N, M * N), S.slice(I * M * N, M * N));
  return Error::success();
}

Error asmevo::suite::matmul_bias_reluRef(RefContext &C) {
  int64_t M = C.i("M"), N = C.i("N"), K = C.i("K");
  auto A = C.in<float>("A", M * K);
  auto B = C.in<float>("B", K * N);
  auto Bias = C.in<float>("bias", N);
  auto Out = C.out("C", M * N);
  auto S = C.scale("C");
  if (Error E = C.takeError())
    return E;
  matmul(A, B, M, N, K, Out, S);
  for (int64_t R = 0; R < M; ++R)
    for (int64_t Col = 0; Col < N; ++Col) {
      double V = Out[R * N + Col] + Bias[Col];
      Out[R * N + Col] = V > 0 ? V : 0.0;
      S[R * N + Col] += std::fabs(Bias[Col]);
    }
  return Error::success();
}

Error asmevo::suite::gemvRef(RefContext &C) {
  int64_t M = C.i("m"), N = C.i("n");
  auto A = C.in<float>("A", M * N);
  auto X = C.in<float>("x", N);
  auto Y = C.out("y", M);
  auto S = C.scale("y");
  if (Error E = C.takeError())
    return E;
  matmul(A, X, M, 1, N, Y, S);
  return Error::success();
}

Error asmevo::suite::transposeRef(RefContext &C) {
  int64_t Rows = C.i("rows"), Cols = C.i("cols");
  auto In = C.in<float>("in", Rows * Cols);
  auto Out = C.out("out", Rows * Cols);
  if (Error E = C.takeError())
    return E;
  for (int64_t R = 0; R < Rows; ++R)
    for (int64_t Col = 0; Col < Cols; ++Col)
      Out[Col * Rows + R] = In[R * Cols + Col];
  return Error::success();
}
