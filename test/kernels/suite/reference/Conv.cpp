//===- Conv.cpp - References of the convolution and pooling kernels -------===//
#include "Reference.h"

using namespace llvm;
using namespace asmevo::suite;

static double asF32(double V) { return (double)(float)V; }

Error asmevo::suite::conv1dRef(RefContext &C) {
  int64_t Batch = C.i("batch"), Cin = C.i("cin"), Cout = C.i("cout"),
          Len = C.i("len"), KLen = C.i("klen");
  int64_t OLen = Len - KLen + 1;
  auto X = C.in<float>("x", Batch * Cin * Len);
  auto W = C.in<float>("w", Cout * Cin * KLen);
  auto Bias = C.in<float>("bias", Cout);
  auto Y = C.out("y", Batch * Cout * OLen);
  auto S = C.scale("y");
  if (Error E = C.takeError())
    return E;
  for (int64_t B = 0; B < Batch; ++B)
    for (int64_t Co = 0; Co < Cout; ++Co)
      for (int64_t T = 0; T < OLen; ++T) {
        double Sum = Bias[Co], Abs = std::fabs(Bias[Co]);
        for (int64_t Ci = 0; Ci < Cin; ++Ci)
          for (int64_t K = 0; K < KLen; ++K) {
            double P = (double)X[(B * Cin + Ci) * Len + T + K] *
                       W[(Co * Cin + Ci) * KLen + K];
            Sum += P;
            Abs += std::fabs(P);
          }
        int64_t O = (B * Cout + Co) * OLen + T;
        Y[O] = Sum;
        S[O] = Abs;
      }
  return Error::success();
}

namespace {
struct Conv2dShape {
  int64_t N, C, H, W, K, R, S, Pad;
  int64_t ho() const { return H + 2 * Pad - R + 1; }
  int64_t wo() const { return W + 2 * Pad - S + 1; }
};

/// Zero-padded, stride-1 NCHW convolution without bias: values and
/// sum |x w| per output.
void conv2d(const Conv2dShape &Sh, ArrayRef<float> X, ArrayRef<float> Wt,
            std::vector<double> &Out, std::vector<double> &Abs) {
  int64_t Ho = Sh.ho(), Wo = Sh.wo();
  Out.assign(Sh.N * Sh.K * Ho * Wo, 0.0);
  Abs.assign(Out.size(), 0.0);
  for (int64_t Img = 0; Img < Sh.N; ++Img)
    for (int64_t Oc = 0; Oc < Sh.K; ++Oc)
      for (int64_t Oy = 0; Oy < Ho; ++Oy)
        for (int64_t Ox = 0; Ox < Wo; ++Ox) {
          double Sum = 0, A = 0;
          for (int64_t Ic = 0; Ic < Sh.C; ++Ic)
            for (int64_t Dy = 0; Dy < Sh.R; ++Dy) {
              int64_t Iy = Oy + Dy - Sh.Pad;
              if (Iy < 0 || Iy >= Sh.H)
                continue;
              for (int64_t Dx = 0; Dx < Sh.S; ++Dx) {
                int64_t Ix = Ox + Dx - Sh.Pad;
                if (Ix < 0 || Ix >= Sh.W)
                  continue;
                double P =
                    (double)X[((Img * Sh.C + Ic) * Sh.H + Iy) * Sh.W + Ix] *
                    Wt[((Oc * Sh.C + Ic) * Sh.R + Dy) * Sh.S + Dx];
                Sum += P;
                A += std::fabs(P);
              }
            }
          int64_t O = ((Img * Sh.K + Oc) * Ho + Oy) * Wo + Ox;
          Out[O] = Sum;
          Abs[O] = A;
        }
}
} // namespace

Error asmevo::suite::conv2dRef(RefContext &C) {
  Conv2dShape Sh{C.i("n"), C.i("c"), C.i("h"), C.i("w"),
                 C.i("k"), C.i("r"), C.i("s"), C.i("pad")};
  int64_t Ho = Sh.ho(), Wo = Sh.wo();
  auto X = C.in<float>("x", Sh.N * Sh.C * Sh.H * Sh.W);
  auto Wt = C.in<float>("wt", Sh.K * Sh.C * Sh.R * Sh.S);
  auto Bias = C.in<float>("bias", Sh.K);
  auto Y = C.out("y", Sh.N * Sh.K * Ho * Wo);
  auto S = C.scale("y");
  if (Error E = C.takeError())
    return E;
  std::vector<double> Conv, Abs;
  conv2d(Sh, X, Wt, Conv, Abs);
  for (size_t O = 0; O < Conv.size(); ++O) {
    int64_t Oc = (O / (Ho * Wo)) % Sh.K;
    Y[O] = Conv[O] + Bias[Oc];
    S[O] = Abs[O] + std::fabs(Bias[Oc]);
  }
  return Error::success();
}

Error asmevo::suite::conv_bn_reluRef(RefContext &C) {
  Conv2dShape Sh{C.i("n"), C.i("c"), C.i("h"), C.i("w"), C.i("k"), 3, 3, 1};
  double Eps = asF32(C.f("eps"));
  auto X = C.in<float>("x", Sh.N * Sh.C * Sh.H * Sh.W);
  auto Wt = C.in<float>("wt", Sh.K * Sh.C * 9);
  auto Gamma = C.in<float>("gamma", Sh.K);
  auto Beta = C.in<float>("beta", Sh.K);
  auto Mean = C.in<float>("mean", Sh.K);
  auto Var = C.in<float>("var", Sh.K);
  auto Y = C.out("y", Sh.N * Sh.K * Sh.H * Sh.W);
  auto S = C.scale("y");
  if (Error E = C.takeError())
    return E;
  std::vector<double> Conv, Abs;
  conv2d(Sh, X, Wt, Conv, Abs);
  int64_t HW = Sh.H * Sh.W;
  for (size_t O = 0; O < Conv.size(); ++O) {
    int64_t Oc = (O / HW) % Sh.K;
    double Scale = Gamma[Oc] / std::sqrt((double)Var[Oc] + Eps);
    double V = (Conv[O] - Mean[Oc]) * Scale + Beta[Oc];
    Y[O] = V > 0 ? V : 0.0;
    S[O] =
        (Abs[O] + std::fabs(Mean[Oc])) * std::fabs(Scale) + std::fabs(Beta[Oc]);
  }
  return Error::success();
}

Error asmevo::suite::maxpool2dRef(RefContext &C) {
  int64_t NC = C.i("nc"), H = C.i("h"), W = C.i("w"), Kern = C.i("kernel"),
          Stride = C.i("stride");
  int64_t Ho = (H - Kern) / Stride + 1, Wo = (W - Kern) / Stride + 1;
  auto X = C.in<float>("x", NC * H * W);
  auto Y = C.out("y", NC * Ho * Wo);
  if (Error E = C.takeError())
    return E;
  for (int64_t Ch = 0; Ch < NC; ++Ch)
    for (int64_t Oy = 0; Oy < Ho; ++Oy)
      for (int64_t Ox = 0; Ox < Wo; ++Ox) {
        float M = -INFINITY;
        for (int64_t Dy = 0; Dy < Kern; ++Dy)
          for (int64_t Dx = 0; Dx < Kern; ++Dx)
            M = std::fmax(
                M, X[(Ch * H + Oy * Stride + Dy) * W + Ox * Stride + Dx]);
        Y[(Ch * Ho + Oy) * Wo + Ox] = M;
      }
  return Error::success();
}

Error asmevo::suite::avgpool2dRef(RefContext &C) {
  int64_t NC = C.i("nc"), H = C.i("h"), W = C.i("w"), Kern = C.i("kernel"),
          Stride = C.i("stride"), Pad = C.i("pad"),
          IncludePad = C.i("count_include_pad");
  int64_t Ho = (H + 2 * Pad - Kern) / Stride + 1;
  int64_t Wo = (W + 2 * Pad - Kern) / Stride + 1;
  auto X = C.in<float>("x", NC * H * W);
  auto Y = C.out("y", NC * Ho * Wo);
  auto S = C.scale("y");
  if (Error E = C.takeError())
    return E;
  for (int64_t Ch = 0; Ch < NC; ++Ch)
    for (int64_t Oy = 0; Oy < Ho; ++Oy)
      for (int64_t Ox = 0; Ox < Wo; ++Ox) {
        double Sum = 0, Abs = 0;
        int64_t Count = 0;
        for (int64_t Dy = 0; Dy < Kern; ++Dy)
          for (int64_t Dx = 0; Dx < Kern; ++Dx) {
            int64_t Iy = Oy * Stride - Pad + Dy, Ix = Ox * Stride - Pad + Dx;
            if (Iy < 0 || Iy >= H || Ix < 0 || Ix >= W)
              continue;
            Sum += X[(Ch * H + Iy) * W + Ix];
            Abs += std::fabs(X[(Ch * H + Iy) * W + Ix]);
            ++Count;
          }
        double Div = IncludePad ? (double)(Kern * Kern) : (double)Count;
        int64_t O = (Ch * Ho + Oy) * Wo + Ox;
        Y[O] = Sum / Div;
        S[O] = Abs / Div;
      }
  return Error::success();
}
