//===- Elementwise.cpp - References of the element-wise kernels -----------===//
#include "Reference.h"

using namespace llvm;
using namespace asmevo::suite;

// Float kernel arguments reach the kernel as float.
static double asF32(double V) { return (double)(float)V; }

Error asmevo::suite::reluRef(RefContext &C) {
  int64_t N = C.i("n");
  auto X = C.in<float>("x", N);
  auto Y = C.out("y", N);
  if (Error E = C.takeError())
    return E;
  for (int64_t I = 0; I < N; ++I)
    Y[I] = X[I] > 0.0f ? X[I] : 0.0;
  return Error::success();
}

Error asmevo::suite::gelu_tanhRef(RefContext &C) {
  int64_t N = C.i("n");
  auto X = C.in<float>("x", N);
  auto Y = C.out("y", N);
  auto S = C.scale("y");
  if (Error E = C.takeError())
    return E;
  const double Sqrt2OverPi = std::sqrt(2.0 / M_PI);
  for (int64_t I = 0; I < N; ++I) {
    double V = X[I];
    Y[I] =
        0.5 * V * (1.0 + std::tanh(Sqrt2OverPi * (V + 0.044715 * V * V * V)));
    // 1 + tanh cancels for x << 0: the error follows 0.5 |x| ulp(tanh).
    S[I] = std::fabs(V);
  }
  return Error::success();
}

Error asmevo::suite::siluRef(RefContext &C) {
  int64_t N = C.i("n");
  auto X = C.in<float>("x", N);
  auto Y = C.out("y", N);
  if (Error E = C.takeError())
    return E;
  for (int64_t I = 0; I < N; ++I)
    Y[I] = X[I] / (1.0 + std::exp(-(double)X[I]));
  return Error::success();
}

Error asmevo::suite::axpby_vec4Ref(RefContext &C) {
  int64_t N = C.i("n");
  double A = asF32(C.f("a")), B = asF32(C.f("b"));
  auto X = C.in<float>("x", N);
  auto Yin = C.in<float>("y", N);
  auto Out = C.out("out", N);
  auto S = C.scale("out");
  if (Error E = C.takeError())
    return E;
  for (int64_t I = 0; I < N; ++I) {
    Out[I] = A * X[I] + B * Yin[I];
    S[I] = std::fabs(A * X[I]) + std::fabs(B * Yin[I]);
  }
  return Error::success();
}

Error asmevo::suite::scale_residual_f16Ref(RefContext &C) {
  int64_t N = C.i("n");
  // The kernel rounds the float argument to half once.
  double Alpha = halfToDouble(doubleToHalf(asF32(C.f("alpha"))));
  auto X = C.in<Half>("x", N);
  auto R = C.in<Half>("res", N);
  auto Out = C.out("out", N);
  auto S = C.scale("out");
  if (Error E = C.takeError())
    return E;
  for (int64_t I = 0; I < N; ++I) {
    double Prod = Alpha * toDouble(X[I]);
    Out[I] = Prod + toDouble(R[I]);
    S[I] = std::fabs(Prod) + std::fabs(toDouble(R[I]));
  }
  return Error::success();
}
