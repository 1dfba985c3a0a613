//===- ExecVALUConv.cpp - Conversions, transcendentals, compares ----------===//
//
// ISA references: CDNA3 ISA 12.8 (VOP1: V_CVT_*, V_EXP_F32, V_LOG_F32,
// V_RCP_F32, V_RSQ_F32, V_SQRT_F32, V_SIN_F32, V_COS_F32, V_FRACT,
// V_FREXP_*), 12.9 (VOPC compares and V_CMP_CLASS), 12.10 (VOP3-only
// conversions: V_CVT_PKRTZ_F16_F32, V_CVT_PK_*), 7.x "FP8 and BF8
// conversions" (gfx940: E4M3FNUZ/E5M2FNUZ).
//
// Transcendental instructions are approximations on the hardware (within
// 1 ulp for f32, 0.51 ulp for f16, 2^29 ulp for f64, as the ISA notes
// state); the emulator computes them with the host's libm, inside those
// bounds (utils/differential/trans_reference.py checks it), and reports
// them as approximated whenever they execute.
//
//===----------------------------------------------------------------------===//
#include "VALUOps.h"
#include <cmath>
#include <limits>

#pragma clang fp contract(off)

using namespace asmevo;
using namespace asmevo::emu;

namespace {

inline float F(uint32_t X) { return asF(X); }
inline uint32_t U(float X) { return asU(X); }
inline double D(uint64_t X) { return asD(X); }
inline uint64_t U64(double X) { return asU64(X); }
inline float H(uint32_t X) { return f16ToF32(uint16_t(X)); }
inline uint32_t HU(float X) { return f32ToF16(X); }
// The f32 transcendentals flush denormals whatever the denormal mode
// ("denormals are flushed", ISA VOP1 notes of V_EXP/LOG/RCP/RSQ/SQRT_F32):
// a denormal source is read as a zero of its sign, a denormal result is
// written as one.
inline float FZ(uint32_t X) {
  return (X & 0x7f800000u) == 0 ? F(X & 0x80000000u) : F(X);
}
inline uint32_t UZ(float X) {
  uint32_t B = U(X);
  return (B & 0x7f800000u) == 0 ? (B & 0x80000000u) : B;
}

template <typename Int, typename Fl> Int cvtToInt(Fl X) {
  if (std::isnan(X))
    return 0;
  Fl T = std::trunc(X);
  if (T <= Fl(std::numeric_limits<Int>::min()))
    return std::numeric_limits<Int>::min();
  if (T >= Fl(std::numeric_limits<Int>::max()))
    return std::numeric_limits<Int>::max();
  return Int(T);
}

// V_FRACT: NaN in, NaN out (std::fmin would return the bound instead).
inline float fract32(float X) {
  if (std::isnan(X)) // quieted, like every float result
    return asF(asU(X) | 0x00400000u);
  if (std::isinf(X))
    return std::numeric_limits<float>::quiet_NaN();
  float R = X - std::floor(X);
  return std::fmin(R, 0x1.fffffep-1f);
}
/// V_FRACT_F16 on the bits: NaN quieted, +-inf gives NaN (as fract32).
inline uint32_t fract16(uint32_t A) {
  if ((A & 0x7fff) > 0x7c00)
    return (A & 0xffff) | 0x200;
  if ((A & 0x7fff) == 0x7c00)
    return 0x7e00;
  float X = f16ToF32(uint16_t(A));
  return f32ToF16(std::fmin(X - std::floor(X), 0x1.ffcp-1f));
}
inline double fract64(double X) {
  if (std::isnan(X))
    return asD(asU64(X) | (1ull << 51));
  if (std::isinf(X))
    return std::numeric_limits<double>::quiet_NaN();
  double R = X - std::floor(X);
  return std::fmin(R, 0x1.fffffffffffffp-1);
}
inline float frexpMant(float X) {
  if (std::isnan(X)) // quieted, like every float result
    return asF(asU(X) | 0x00400000u);
  if (std::isinf(X))
    return X;
  int E;
  return std::frexp(X, &E);
}
inline int32_t frexpExp(float X) {
  if (std::isnan(X) || std::isinf(X))
    return 0;
  int E;
  std::frexp(X, &E);
  return E;
}
inline double frexpMant64(double X) {
  if (std::isnan(X))
    return asD(asU64(X) | (1ull << 51));
  if (std::isinf(X))
    return X;
  int E;
  return std::frexp(X, &E);
}
inline int32_t frexpExp64(double X) {
  if (std::isnan(X) || std::isinf(X))
    return 0;
  int E;
  std::frexp(X, &E);
  return E;
}
/// V_CVT_OFF_F32_I4: a 4-bit signed integer scaled by 1/16.
inline float cvtOffI4(uint32_t X) {
  int V = int(X & 15);
  if (V >= 8)
    V -= 16;
  return float(V) / 16.0f;
}
/// Round half up (V_CVT_RPI_I32_F32: floor(x + 0.5)).
/// floor(S0 + 0.5) of the exact sum: in f32 the add would round
/// 0.49999997 up to 1 and odd integers above 2^23 to the next even one.
inline int32_t cvtRpi(float X) {
  return cvtToInt<int32_t>(std::floor(double(X) + 0.5));
}
inline int32_t cvtFlr(float X) { return cvtToInt<int32_t>(std::floor(X)); }

// clang-format off
ASMEVO_OP32(OpCvtF32I32, Ty::B32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(float(int32_t(a))))
ASMEVO_OP32(OpCvtF32U32, Ty::B32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(float(a)))
ASMEVO_OP32(OpCvtI32F32, Ty::F32, Ty::B32, Ty::B32, Ty::B32, 1, false, uint32_t(cvtToInt<int32_t>(F(a))))
ASMEVO_OP32(OpCvtU32F32, Ty::F32, Ty::B32, Ty::B32, Ty::B32, 1, false, cvtToInt<uint32_t>(F(a)))
ASMEVO_OP32(OpCvtRpiI32F32, Ty::F32, Ty::B32, Ty::B32, Ty::B32, 1, false, uint32_t(cvtRpi(F(a))))
ASMEVO_OP32(OpCvtFlrI32F32, Ty::F32, Ty::B32, Ty::B32, Ty::B32, 1, false, uint32_t(cvtFlr(F(a))))
ASMEVO_OP32(OpCvtF16F32, Ty::F32, Ty::B32, Ty::B32, Ty::F16, 1, false, HU(F(a)))
ASMEVO_OP32(OpCvtF32F16, Ty::F16, Ty::B32, Ty::B32, Ty::F32, 1, false, U(H(a)))
ASMEVO_OP32(OpCvtF16U16, Ty::U16, Ty::B32, Ty::B32, Ty::F16, 1, false, HU(float(a & 0xffff)))
ASMEVO_OP32(OpCvtF16I16, Ty::U16, Ty::B32, Ty::B32, Ty::F16, 1, false, HU(float(int16_t(a))))
ASMEVO_OP32(OpCvtU16F16, Ty::F16, Ty::B32, Ty::B32, Ty::B32, 1, false, uint32_t(cvtToInt<uint16_t>(H(a))))
ASMEVO_OP32(OpCvtI16F16, Ty::F16, Ty::B32, Ty::B32, Ty::B32, 1, false, uint32_t(uint16_t(cvtToInt<int16_t>(H(a)))))
ASMEVO_OP32(OpCvtOffF32I4, Ty::B32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(cvtOffI4(a)))
ASMEVO_OP32(OpCvtF32Ubyte0, Ty::B32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(float(a & 0xff)))
ASMEVO_OP32(OpCvtF32Ubyte1, Ty::B32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(float((a >> 8) & 0xff)))
ASMEVO_OP32(OpCvtF32Ubyte2, Ty::B32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(float((a >> 16) & 0xff)))
ASMEVO_OP32(OpCvtF32Ubyte3, Ty::B32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(float(a >> 24)))
ASMEVO_OP32(OpTruncF32, Ty::F32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(std::trunc(F(a))))
ASMEVO_OP32(OpCeilF32, Ty::F32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(std::ceil(F(a))))
ASMEVO_OP32(OpFloorF32, Ty::F32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(std::floor(F(a))))
ASMEVO_OP32(OpRndneF32, Ty::F32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(std::nearbyint(F(a))))
ASMEVO_OP32(OpFractF32, Ty::F32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(fract32(F(a))))
ASMEVO_OP32(OpFrexpMantF32, Ty::F32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(frexpMant(F(a))))
ASMEVO_OP32(OpFrexpExpF32, Ty::F32, Ty::B32, Ty::B32, Ty::B32, 1, false, uint32_t(frexpExp(F(a))))
ASMEVO_OP32(OpTruncF16, Ty::F16, Ty::B32, Ty::B32, Ty::F16, 1, false, HU(std::trunc(H(a))))
ASMEVO_OP32(OpCeilF16, Ty::F16, Ty::B32, Ty::B32, Ty::F16, 1, false, HU(std::ceil(H(a))))
ASMEVO_OP32(OpFloorF16, Ty::F16, Ty::B32, Ty::B32, Ty::F16, 1, false, HU(std::floor(H(a))))
ASMEVO_OP32(OpRndneF16, Ty::F16, Ty::B32, Ty::B32, Ty::F16, 1, false, HU(std::nearbyint(H(a))))
ASMEVO_OP32(OpFractF16, Ty::F16, Ty::B32, Ty::B32, Ty::F16, 1, false, fract16(a))
// Transcendentals (approximated: see file comment).
ASMEVO_OP32(OpExpF32, Ty::F32, Ty::B32, Ty::B32, Ty::F32, 1, false, UZ(std::exp2(FZ(a))))
ASMEVO_OP32(OpLogF32, Ty::F32, Ty::B32, Ty::B32, Ty::F32, 1, false, UZ(std::log2(FZ(a))))
ASMEVO_OP32(OpRcpF32, Ty::F32, Ty::B32, Ty::B32, Ty::F32, 1, false, UZ(1.0f / FZ(a)))
ASMEVO_OP32(OpRsqF32, Ty::F32, Ty::B32, Ty::B32, Ty::F32, 1, false, UZ(float(1.0 / std::sqrt(double(FZ(a))))))
ASMEVO_OP32(OpSqrtF32, Ty::F32, Ty::B32, Ty::B32, Ty::F32, 1, false, UZ(std::sqrt(FZ(a))))
ASMEVO_OP32(OpSinF32, Ty::F32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(float(std::sin(double(F(a)) * 6.283185307179586))))
ASMEVO_OP32(OpCosF32, Ty::F32, Ty::B32, Ty::B32, Ty::F32, 1, false, U(float(std::cos(double(F(a)) * 6.283185307179586))))
ASMEVO_OP32(OpExpF16, Ty::F16, Ty::B32, Ty::B32, Ty::F16, 1, false, HU(std::exp2(H(a))))
ASMEVO_OP32(OpLogF16, Ty::F16, Ty::B32, Ty::B32, Ty::F16, 1, false, HU(std::log2(H(a))))
ASMEVO_OP32(OpRcpF16, Ty::F16, Ty::B32, Ty::B32, Ty::F16, 1, false, HU(1.0f / H(a)))
ASMEVO_OP32(OpRsqF16, Ty::F16, Ty::B32, Ty::B32, Ty::F16, 1, false, HU(1.0f / std::sqrt(H(a))))
ASMEVO_OP32(OpSqrtF16, Ty::F16, Ty::B32, Ty::B32, Ty::F16, 1, false, HU(std::sqrt(H(a))))
ASMEVO_OP32(OpSinF16, Ty::F16, Ty::B32, Ty::B32, Ty::F16, 1, false, HU(float(std::sin(double(H(a)) * 6.283185307179586))))
ASMEVO_OP32(OpCosF16, Ty::F16, Ty::B32, Ty::B32, Ty::F16, 1, false, HU(float(std::cos(double(H(a)) * 6.283185307179586))))
// VOP3 packs.
ASMEVO_OP32(OpCvtPkrtzF16F32, Ty::F32, Ty::F32, Ty::B32, Ty::B32, 2, false, uint32_t(f32ToF16(F(a), true)) | (uint32_t(f32ToF16(F(b), true)) << 16))
ASMEVO_OP32(OpPackB32F16, Ty::F16, Ty::F16, Ty::B32, Ty::B32, 2, false, (a & 0xffff) | (b << 16))
ASMEVO_OP32(OpCvtPkU16U32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, std::min(a, 0xffffu) | (std::min(b, 0xffffu) << 16))
ASMEVO_OP32(OpCvtPkI16I32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false,
  (uint32_t(std::clamp(int32_t(a), -32768, 32767)) & 0xffff) | (uint32_t(std::clamp(int32_t(b), -32768, 32767)) << 16))
ASMEVO_OP32(OpCvtPkU8F32, Ty::F32, Ty::B32, Ty::B32, Ty::B32, 3, false,
  (c & ~(0xffu << (8 * (b & 3)))) | (uint32_t(std::clamp(std::nearbyint(F(a)), 0.0f, 255.0f)) << (8 * (b & 3))))
ASMEVO_OP32(OpSatPkU8I16, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 1, false,
  uint32_t(std::clamp(int(int16_t(a)), 0, 255)) | (uint32_t(std::clamp(int(int16_t(a >> 16)), 0, 255)) << 8))

// 64-bit.
ASMEVO_OP64(OpCvtF64F32, Ty::F32, Ty::B32, Ty::B32, Ty::F64, 1, U64(double(F(uint32_t(a)))))
ASMEVO_OP64(OpCvtF32F64, Ty::F64, Ty::B32, Ty::B32, Ty::F32, 1, uint64_t(U(float(D(a)))))
ASMEVO_OP64(OpCvtF64I32, Ty::B32, Ty::B32, Ty::B32, Ty::F64, 1, U64(double(int32_t(uint32_t(a)))))
ASMEVO_OP64(OpCvtF64U32, Ty::B32, Ty::B32, Ty::B32, Ty::F64, 1, U64(double(uint32_t(a))))
ASMEVO_OP64(OpCvtI32F64, Ty::F64, Ty::B32, Ty::B32, Ty::B32, 1, uint64_t(uint32_t(cvtToInt<int32_t>(D(a)))))
ASMEVO_OP64(OpCvtU32F64, Ty::F64, Ty::B32, Ty::B32, Ty::B32, 1, uint64_t(cvtToInt<uint32_t>(D(a))))
ASMEVO_OP64(OpTruncF64, Ty::F64, Ty::B32, Ty::B32, Ty::F64, 1, U64(std::trunc(D(a))))
ASMEVO_OP64(OpCeilF64, Ty::F64, Ty::B32, Ty::B32, Ty::F64, 1, U64(std::ceil(D(a))))
ASMEVO_OP64(OpFloorF64, Ty::F64, Ty::B32, Ty::B32, Ty::F64, 1, U64(std::floor(D(a))))
ASMEVO_OP64(OpRndneF64, Ty::F64, Ty::B32, Ty::B32, Ty::F64, 1, U64(std::nearbyint(D(a))))
ASMEVO_OP64(OpFractF64, Ty::F64, Ty::B32, Ty::B32, Ty::F64, 1, U64(fract64(D(a))))
ASMEVO_OP64(OpFrexpMantF64, Ty::F64, Ty::B32, Ty::B32, Ty::F64, 1, U64(frexpMant64(D(a))))
ASMEVO_OP64(OpFrexpExpF64, Ty::F64, Ty::B32, Ty::B32, Ty::B32, 1, uint64_t(uint32_t(frexpExp64(D(a)))))
ASMEVO_OP64(OpRcpF64, Ty::F64, Ty::B32, Ty::B32, Ty::F64, 1, U64(1.0 / D(a)))
ASMEVO_OP64(OpRsqF64, Ty::F64, Ty::B32, Ty::B32, Ty::F64, 1, U64(1.0 / std::sqrt(D(a))))
ASMEVO_OP64(OpSqrtF64, Ty::F64, Ty::B32, Ty::B32, Ty::F64, 1, U64(std::sqrt(D(a))))

// clang-format on

// Compares (ISA 12.9): the 16 float predicates (N* are negations, true
// on unordered; O/U ordered/unordered) and the 8 integer ones.
#define DEF_FCMP(PRED, EXPR)                                                   \
  struct Cmp##PRED##F32 {                                                      \
    static constexpr Ty T0 = Ty::F32, T1 = Ty::F32;                            \
    static bool f(uint32_t x, uint32_t y) {                                    \
      float a = F(x), b = F(y);                                                \
      (void)a;                                                                 \
      (void)b;                                                                 \
      return EXPR;                                                             \
    }                                                                          \
  };                                                                           \
  struct Cmp##PRED##F16 {                                                      \
    static constexpr Ty T0 = Ty::F16, T1 = Ty::F16;                            \
    static bool f(uint32_t x, uint32_t y) {                                    \
      float a = H(x), b = H(y);                                                \
      (void)a;                                                                 \
      (void)b;                                                                 \
      return EXPR;                                                             \
    }                                                                          \
  };                                                                           \
  struct Cmp##PRED##F64 {                                                      \
    static constexpr Ty T0 = Ty::F64, T1 = Ty::F64;                            \
    static bool f(uint64_t x, uint64_t y) {                                    \
      double a = D(x), b = D(y);                                               \
      (void)a;                                                                 \
      (void)b;                                                                 \
      return EXPR;                                                             \
    }                                                                          \
  };
DEF_FCMP(F, false)
DEF_FCMP(Lt, a < b)
DEF_FCMP(Eq, a == b)
DEF_FCMP(Le, a <= b)
DEF_FCMP(Gt, a > b)
DEF_FCMP(Lg, a < b || a > b)
DEF_FCMP(Ge, a >= b)
DEF_FCMP(O, !std::isnan(a) && !std::isnan(b))
DEF_FCMP(U, std::isnan(a) || std::isnan(b))
DEF_FCMP(Nge, !(a >= b))
DEF_FCMP(Nlg, !(a < b || a > b))
DEF_FCMP(Ngt, !(a > b))
DEF_FCMP(Nle, !(a <= b))
DEF_FCMP(Neq, !(a == b))
DEF_FCMP(Nlt, !(a < b))
DEF_FCMP(Tru, true)
#undef DEF_FCMP

#define DEF_ICMP(PRED, EXPR)                                                   \
  struct Cmp##PRED##I32 {                                                      \
    static constexpr Ty T0 = Ty::B32, T1 = Ty::B32;                            \
    static bool f(uint32_t x, uint32_t y) {                                    \
      int32_t a = int32_t(x), b = int32_t(y);                                  \
      (void)a;                                                                 \
      (void)b;                                                                 \
      return EXPR;                                                             \
    }                                                                          \
  };                                                                           \
  struct Cmp##PRED##U32 {                                                      \
    static constexpr Ty T0 = Ty::B32, T1 = Ty::B32;                            \
    static bool f(uint32_t a, uint32_t b) {                                    \
      (void)a;                                                                 \
      (void)b;                                                                 \
      return EXPR;                                                             \
    }                                                                          \
  };                                                                           \
  struct Cmp##PRED##I16 {                                                      \
    static constexpr Ty T0 = Ty::U16, T1 = Ty::U16;                            \
    static bool f(uint32_t x, uint32_t y) {                                    \
      int16_t a = int16_t(x), b = int16_t(y);                                  \
      (void)a;                                                                 \
      (void)b;                                                                 \
      return EXPR;                                                             \
    }                                                                          \
  };                                                                           \
  struct Cmp##PRED##U16 {                                                      \
    static constexpr Ty T0 = Ty::U16, T1 = Ty::U16;                            \
    static bool f(uint32_t x, uint32_t y) {                                    \
      uint16_t a = uint16_t(x), b = uint16_t(y);                               \
      (void)a;                                                                 \
      (void)b;                                                                 \
      return EXPR;                                                             \
    }                                                                          \
  };                                                                           \
  struct Cmp##PRED##I64 {                                                      \
    static constexpr Ty T0 = Ty::B64, T1 = Ty::B64;                            \
    static bool f(uint64_t x, uint64_t y) {                                    \
      int64_t a = int64_t(x), b = int64_t(y);                                  \
      (void)a;                                                                 \
      (void)b;                                                                 \
      return EXPR;                                                             \
    }                                                                          \
  };                                                                           \
  struct Cmp##PRED##U64 {                                                      \
    static constexpr Ty T0 = Ty::B64, T1 = Ty::B64;                            \
    static bool f(uint64_t a, uint64_t b) {                                    \
      (void)a;                                                                 \
      (void)b;                                                                 \
      return EXPR;                                                             \
    }                                                                          \
  };
DEF_ICMP(F, false)
DEF_ICMP(Lt, a < b)
DEF_ICMP(Eq, a == b)
DEF_ICMP(Le, a <= b)
DEF_ICMP(Gt, a > b)
DEF_ICMP(Ne, a != b)
DEF_ICMP(Ge, a >= b)
DEF_ICMP(T, true)
#undef DEF_ICMP

/// V_CMP_CLASS: S1 is a mask of classes (ISA 12.9: bit 0 signaling NaN,
/// 1 quiet NaN, 2 -inf, 3 -normal, 4 -denormal, 5 -0, 6 +0, 7 +denormal,
/// 8 +normal, 9 +inf).
template <typename T> bool classMatch(T X, uint32_t Mask, bool Quiet) {
  unsigned Bit;
  switch (std::fpclassify(X)) {
  case FP_NAN: Bit = Quiet ? 1 : 0; break;
  case FP_INFINITE: Bit = std::signbit(X) ? 2 : 9; break;
  case FP_NORMAL: Bit = std::signbit(X) ? 3 : 8; break;
  case FP_SUBNORMAL: Bit = std::signbit(X) ? 4 : 7; break;
  default: Bit = std::signbit(X) ? 5 : 6; break;
  }
  return (Mask >> Bit) & 1;
}
struct CmpClassF32 {
  static constexpr Ty T0 = Ty::F32, T1 = Ty::B32;
  static bool f(uint32_t x, uint32_t y) {
    return classMatch(F(x), y, (x >> 22) & 1);
  }
};
struct CmpClassF16 {
  static constexpr Ty T0 = Ty::F16, T1 = Ty::B32;
  static bool f(uint32_t x, uint32_t y) {
    // Classified from the f16 bits: widened to f32, an f16 denormal would
    // become an f32 normal and match the "normal" bit instead.
    uint32_t Exp = (x >> 10) & 0x1F, Man = x & 0x3FF;
    if (Exp == 0 && Man != 0)
      return (y >> (((x >> 15) & 1) ? 4 : 7)) & 1;
    return classMatch(H(x), y, (x >> 9) & 1);
  }
};
struct CmpClassF64 {
  static constexpr Ty T0 = Ty::F64, T1 = Ty::B32;
  static bool f(uint64_t x, uint64_t y) {
    return classMatch(D(x), uint32_t(y), (x >> 51) & 1);
  }
};

//===----------------------------------------------------------------------===//
// fp8 / bf8 (gfx942: FNUZ formats)
//===----------------------------------------------------------------------===//

const F8Format &fmtFor(Wave &W, bool BF8) {
  (void)W; // gfx950 (OCP) is not supported by the emulator yet
  return BF8 ? BF8FNUZ : FP8FNUZ;
}

/// V_CVT_PK_FP8_F32 / V_CVT_PK_BF8_F32: two f32 to two 8-bit floats in
/// the low or (op_sel[3], the destination op_sel) high word of vdst; the
/// other word is preserved.
template <bool BF8> void execCvtPkF8(Wave &W, const DInst &I) {
  alignas(64) uint32_t B0[64], B1[64], R[64];
  uint64_t Mask = W.exec();
  const uint32_t *A = src32(W, I, 0, Ty::F32, B0, Mask);
  const uint32_t *B = src32(W, I, 1, Ty::F32, B1, Mask);
  const uint32_t *Old = W.vreg(I.Def[0]);
  bool Hi = I.Src[0].Mods & ModOpSel1;
  const F8Format &Fm = fmtFor(W, BF8);
  // CDNA3 ISA 7.2: round to nearest even, clamp ignored; overflow and
  // infinities saturate when MODE.FP16_OVFL (bit 23) is set, else give
  // NaN (FNUZ has no infinity).
  bool Sat = (W.Mode >> 23) & 1;
  // A finite source above the largest value that rounds down to it: the
  // guide's overflow table ("greater than max" gives NaN) and round to
  // nearest even disagree there.
  if (!Sat) {
    float Max = BF8 ? 57344.0f : 240.0f, Mid = BF8 ? 61440.0f : 248.0f;
    for (unsigned L = 0; L < 64; ++L) {
      if (!((Mask >> L) & 1))
        continue;
      for (float V : {F(A[L]), F(B[L])})
        if (std::fabs(V) > Max && std::fabs(V) < Mid) {
          W.M->report(W, I, Violation::Unimplemented, L,
                      "an f32 source between the largest fp8/bf8 value and "
                      "the rounding midpoint above it with MODE.FP16_OVFL "
                      "clear: the ISA's overflow table and round to "
                      "nearest even disagree");
          return;
        }
    }
  }
  for (unsigned L = 0; L < 64; ++L) {
    uint32_t P = f32ToF8(F(A[L]), Fm, Sat) |
                 (uint32_t(f32ToF8(F(B[L]), Fm, Sat)) << 8);
    R[L] = Hi ? (Old[L] & 0xffff) | (P << 16) : (Old[L] & 0xffff0000u) | P;
  }
  store32(W, I, R, Mask);
}

/// V_CVT_F32_FP8 / V_CVT_F32_BF8: one byte (SDWA src0_sel) to f32.
template <bool BF8> void execCvtF32F8(Wave &W, const DInst &I) {
  if (I.E != Enc::SDWA && (I.Src[0].Mods & (ModOpSel0 | ModOpSel1))) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "op_sel byte select of the VOP3 form is not modelled");
    return;
  }
  alignas(64) uint32_t B0[64], R[64];
  uint64_t Mask = activeMask(W, I); // DPP row/bank masks too
  const uint32_t *A = src32(W, I, 0, Ty::B32, B0, Mask);
  const F8Format &Fm = fmtFor(W, BF8);
  for (unsigned L = 0; L < 64; ++L)
    R[L] = U(f8ToF32(uint8_t(A[L]), Fm));
  outMods32(W, I, R);
  store32(W, I, R, Mask);
}

/// V_CVT_PK_F32_FP8 / BF8: two bytes (word select: SDWA WORD_1 or VOP3
/// op_sel) to two f32 in a register pair.
template <bool BF8> void execCvtPkF32F8(Wave &W, const DInst &I) {
  alignas(64) uint32_t B0[64];
  uint64_t Mask = activeMask(W, I); // DPP row/bank masks too
  const uint32_t *A = src32(W, I, 0, Ty::U16, B0, Mask);
  const F8Format &Fm = fmtFor(W, BF8);
  uint32_t *Lo = W.vreg(I.Def[0], 0), *Hi = W.vreg(I.Def[0], 1);
  for (unsigned L = 0; L < 64; ++L)
    if ((Mask >> L) & 1) {
      Lo[L] = U(f8ToF32(uint8_t(A[L]), Fm));
      Hi[L] = U(f8ToF32(uint8_t(A[L] >> 8), Fm));
    }
}

template <class Op> void trans32(Wave &W, const DInst &I) {
  W.M->ApproxBits |= AX_TRANS;
  vop32<Op>(W, I);
}
template <class Op> void trans64(Wave &W, const DInst &I) {
  W.M->ApproxBits |= AX_TRANS;
  vop64<Op>(W, I);
}

} // namespace

void emu::registerVALUConv(SemRegistry &R) {
  auto A = [&](const char *N, ExecFn F, uint8_t Enc = EncAll,
               uint32_t Flags = 0) { R.add(N, F, Enc, Flags); };
  A("V_CVT_F32_I32", vop32<OpCvtF32I32>);
  A("V_CVT_F32_U32", vop32<OpCvtF32U32>);
  A("V_CVT_I32_F32", vop32<OpCvtI32F32>);
  A("V_CVT_U32_F32", vop32<OpCvtU32F32>);
  A("V_CVT_RPI_I32_F32", vop32<OpCvtRpiI32F32>);
  A("V_CVT_FLR_I32_F32", vop32<OpCvtFlrI32F32>);
  A("V_CVT_F16_F32", vop32<OpCvtF16F32>);
  A("V_CVT_F32_F16", vop32<OpCvtF32F16>);
  A("V_CVT_F16_U16", vop32<OpCvtF16U16>);
  A("V_CVT_F16_I16", vop32<OpCvtF16I16>);
  A("V_CVT_U16_F16", vop32<OpCvtU16F16>);
  A("V_CVT_I16_F16", vop32<OpCvtI16F16>);
  A("V_CVT_OFF_F32_I4", vop32<OpCvtOffF32I4>);
  A("V_CVT_F32_UBYTE0", vop32<OpCvtF32Ubyte0>);
  A("V_CVT_F32_UBYTE1", vop32<OpCvtF32Ubyte1>);
  A("V_CVT_F32_UBYTE2", vop32<OpCvtF32Ubyte2>);
  A("V_CVT_F32_UBYTE3", vop32<OpCvtF32Ubyte3>);
  A("V_TRUNC_F32", vop32<OpTruncF32>);
  A("V_CEIL_F32", vop32<OpCeilF32>);
  A("V_FLOOR_F32", vop32<OpFloorF32>);
  A("V_RNDNE_F32", vop32<OpRndneF32>);
  A("V_FRACT_F32", vop32<OpFractF32>);
  A("V_FREXP_MANT_F32", vop32<OpFrexpMantF32>);
  A("V_FREXP_EXP_I32_F32", vop32<OpFrexpExpF32>);
  A("V_TRUNC_F16", vop32<OpTruncF16>);
  A("V_CEIL_F16", vop32<OpCeilF16>);
  A("V_FLOOR_F16", vop32<OpFloorF16>);
  A("V_RNDNE_F16", vop32<OpRndneF16>);
  A("V_FRACT_F16", vop32<OpFractF16>);
  A("V_EXP_F32", trans32<OpExpF32>, EncAll, FTrans);
  A("V_LOG_F32", trans32<OpLogF32>, EncAll, FTrans);
  A("V_RCP_F32", trans32<OpRcpF32>, EncAll, FTrans);
  A("V_RCP_IFLAG_F32", trans32<OpRcpF32>, EncAll, FTrans);
  A("V_RSQ_F32", trans32<OpRsqF32>, EncAll, FTrans);
  A("V_SQRT_F32", trans32<OpSqrtF32>, EncAll, FTrans);
  A("V_SIN_F32", trans32<OpSinF32>, EncAll, FTrans);
  A("V_COS_F32", trans32<OpCosF32>, EncAll, FTrans);
  A("V_EXP_F16", trans32<OpExpF16>, EncAll, FTrans);
  A("V_LOG_F16", trans32<OpLogF16>, EncAll, FTrans);
  A("V_RCP_F16", trans32<OpRcpF16>, EncAll, FTrans);
  A("V_RSQ_F16", trans32<OpRsqF16>, EncAll, FTrans);
  A("V_SQRT_F16", trans32<OpSqrtF16>, EncAll, FTrans);
  A("V_SIN_F16", trans32<OpSinF16>, EncAll, FTrans);
  A("V_COS_F16", trans32<OpCosF16>, EncAll, FTrans);
  A("V_CVT_PKRTZ_F16_F32", vop32<OpCvtPkrtzF16F32>, EncNoSDWA);
  A("V_PACK_B32_F16", vop32<OpPackB32F16>, EncNoDPPSDWA);
  A("V_CVT_PK_U16_U32", vop32<OpCvtPkU16U32>, EncNoDPPSDWA);
  A("V_CVT_PK_I16_I32", vop32<OpCvtPkI16I32>, EncNoDPPSDWA);
  A("V_CVT_PK_U8_F32", vop32<OpCvtPkU8F32>, EncNoDPPSDWA);
  A("V_SAT_PK_U8_I16", vop32<OpSatPkU8I16>);
  A("V_CVT_F64_F32", vop64<OpCvtF64F32>, EncNoSDWA);
  A("V_CVT_F32_F64", vop64<OpCvtF32F64>, EncNoSDWA);
  A("V_CVT_F64_I32", vop64<OpCvtF64I32>, EncNoSDWA);
  A("V_CVT_F64_U32", vop64<OpCvtF64U32>, EncNoSDWA);
  A("V_CVT_I32_F64", vop64<OpCvtI32F64>, EncNoSDWA);
  A("V_CVT_U32_F64", vop64<OpCvtU32F64>, EncNoSDWA);
  A("V_TRUNC_F64", vop64<OpTruncF64>, EncNoSDWA);
  A("V_CEIL_F64", vop64<OpCeilF64>, EncNoSDWA);
  A("V_FLOOR_F64", vop64<OpFloorF64>, EncNoSDWA);
  A("V_RNDNE_F64", vop64<OpRndneF64>, EncNoSDWA);
  A("V_FRACT_F64", vop64<OpFractF64>, EncNoSDWA);
  A("V_FREXP_MANT_F64", vop64<OpFrexpMantF64>, EncNoSDWA);
  A("V_FREXP_EXP_I32_F64", vop64<OpFrexpExpF64>, EncNoSDWA);
  A("V_RCP_F64", trans64<OpRcpF64>, EncNoSDWA, FTrans);
  A("V_RSQ_F64", trans64<OpRsqF64>, EncNoSDWA, FTrans);
  A("V_SQRT_F64", trans64<OpSqrtF64>, EncNoSDWA, FTrans);
  A("V_CVT_PK_FP8_F32", execCvtPkF8<false>, EncNoDPPSDWA);
  A("V_CVT_PK_BF8_F32", execCvtPkF8<true>, EncNoDPPSDWA);
  A("V_CVT_F32_FP8", execCvtF32F8<false>, EncAll);
  A("V_CVT_F32_BF8", execCvtF32F8<true>, EncAll);
  A("V_CVT_PK_F32_FP8", execCvtPkF32F8<false>, EncAll);
  A("V_CVT_PK_F32_BF8", execCvtPkF32F8<true>, EncAll);

  // Compares: V_CMP_<PRED>_<TYPE> and V_CMPX_<PRED>_<TYPE>.
#define REGC(PRED, UPPER, TY)                                                  \
  A("V_CMP_" UPPER "_" #TY, vopc<Cmp##PRED##TY, false>,                        \
    is64(Cmp##PRED##TY::T0) ? EncNoDPPSDWA : EncAll, FIsVOPC);                 \
  A("V_CMPX_" UPPER "_" #TY, vopc<Cmp##PRED##TY, true>,                        \
    is64(Cmp##PRED##TY::T0) ? EncNoDPPSDWA : EncAll, FIsVOPC | FWritesExec);
#define REGF(PRED, UPPER)                                                      \
  REGC(PRED, UPPER, F32) REGC(PRED, UPPER, F16) REGC(PRED, UPPER, F64)
  REGF(F, "F")
  REGF(Lt, "LT")
  REGF(Eq, "EQ")
  REGF(Le, "LE")
  REGF(Gt, "GT")
  REGF(Lg, "LG")
  REGF(Ge, "GE")
  REGF(O, "O")
  REGF(U, "U")
  REGF(Nge, "NGE")
  REGF(Nlg, "NLG")
  REGF(Ngt, "NGT")
  REGF(Nle, "NLE")
  REGF(Neq, "NEQ")
  REGF(Nlt, "NLT")
  REGF(Tru, "TRU")
#define REGI(PRED, UPPER)                                                      \
  REGC(PRED, UPPER, I32) REGC(PRED, UPPER, U32) REGC(PRED, UPPER, I16)         \
      REGC(PRED, UPPER, U16) REGC(PRED, UPPER, I64) REGC(PRED, UPPER, U64)
  REGI(F, "F")
  REGI(Lt, "LT")
  REGI(Eq, "EQ")
  REGI(Le, "LE")
  REGI(Gt, "GT")
  REGI(Ne, "NE")
  REGI(Ge, "GE")
  REGI(T, "T")
  REGC(Class, "CLASS", F32)
  REGC(Class, "CLASS", F16)
  REGC(Class, "CLASS", F64)
#undef REGI
#undef REGF
#undef REGC
}
