//===- ExecVALUSpecial.cpp - Cube map, packed SAD, trig_preop, f16 frexp --===//
//
// VOP3-only special-purpose ops and the f16 frexp pair, from the
// pseudocode of AMD's ISA reference guides (the CDNA3 guide lists the same
// operations; the RDNA3 guide's pseudocode states them exactly):
//  - V_CUBEID/CUBESC/CUBETC/CUBEMA_F32: the cube map face of (S0, S1, S2)
//    = (x, y, z): z is the major axis when |z| >= |x| and |z| >= |y|, else
//    y when |y| >= |x|, else x (a NaN compares false, so it never wins);
//  - V_SAD_U16, V_QSAD_PK_U16_U8, V_MQSAD_PK_U16_U8, V_MQSAD_U32_U8: sums of
//    absolute differences; the quad forms apply V_SAD_U8 / V_MSAD_U8 to the
//    four byte windows S0[31:0], S0[39:8], S0[47:16], S0[55:24] against S1,
//    each accumulated with its 16-bit (PK) or 32-bit field of S2 and
//    truncated to that field;
//  - V_TRIG_PREOP_F64: 53 bits of 2/PI[1200:0] (the first 1201 fraction
//    bits of 2/pi) starting shift = S1[4:0] * 53 bits in (plus
//    exponent(S0) - 1077 when that is positive), scaled by 2^(-53 - shift)
//    (2^128 more when exponent(S0) >= 1968), rounded toward zero; bits
//    beyond the 1201 are zero;
//  - V_FREXP_MANT_F16 / V_FREXP_EXP_I16_F16: as the f32 forms (mantissa in
//    [0.5, 1) keeping the sign; exponent such that S0 = mant * 2^exp; NaN
//    and infinities give the source (quieted) and 0);
//  - V_CVT_NORM_I16/U16_F16, V_CVT_PKNORM_I16/U16_F16/F32: f16_to_snorm
//    and the like, "0.5ULP accuracy, supports rounding": the source clamped
//    to [-1, 1] ([0, 1] unsigned) times 32767 (65535), rounded to nearest
//    even (the default round mode). A NaN source has no documented result
//    and stops the run;
//  - V_CLREXCP: clears the wave's exception state, which the emulator does
//    not model (no trap status is kept), so it changes nothing;
//  - V_SCREEN_PARTITION_4SE_B32: D = TABLE[S0[7:0]], the CDNA2 guide's
//    256-entry table (gfx90a). The CDNA3 guide does not list the opcode,
//    so on gfx94x it stops the run.
//
//===----------------------------------------------------------------------===//
#include "VALUOps.h"
#include <cmath>

#pragma clang fp contract(off)

using namespace asmevo;
using namespace asmevo::emu;

namespace {

inline float F(uint32_t X) { return asF(X); }
inline uint32_t U(float X) { return asU(X); }

/// Which axis is major: 2 for z, 1 for y, 0 for x (ISA pseudocode order).
inline int cubeAxis(float X, float Y, float Z) {
  if (std::fabs(Z) >= std::fabs(X) && std::fabs(Z) >= std::fabs(Y))
    return 2;
  if (std::fabs(Y) >= std::fabs(X))
    return 1;
  return 0;
}
// Negation is of the sign bit, as "-S0.f32" in the pseudocode.
inline uint32_t neg(uint32_t V) { return V ^ 0x80000000u; }

inline uint32_t cubeId(uint32_t A, uint32_t B, uint32_t C) {
  float X = F(A), Y = F(B), Z = F(C);
  switch (cubeAxis(X, Y, Z)) {
  case 2: return U(Z < 0.0f ? 5.0f : 4.0f);
  case 1: return U(Y < 0.0f ? 3.0f : 2.0f);
  default: return U(X < 0.0f ? 1.0f : 0.0f);
  }
}
inline uint32_t cubeSc(uint32_t A, uint32_t B, uint32_t C) {
  float X = F(A), Y = F(B), Z = F(C);
  switch (cubeAxis(X, Y, Z)) {
  case 2: return Z < 0.0f ? neg(A) : A;
  case 1: return A;
  default: return X < 0.0f ? C : neg(C);
  }
}
inline uint32_t cubeTc(uint32_t A, uint32_t B, uint32_t C) {
  float X = F(A), Y = F(B), Z = F(C);
  switch (cubeAxis(X, Y, Z)) {
  case 1: return Y < 0.0f ? neg(C) : C;
  default: return neg(B);
  }
}
inline uint32_t cubeMa(uint32_t A, uint32_t B, uint32_t C) {
  float X = F(A), Y = F(B), Z = F(C);
  switch (cubeAxis(X, Y, Z)) {
  case 2: return U(Z * 2.0f);
  case 1: return U(Y * 2.0f);
  default: return U(X * 2.0f);
  }
}

inline uint32_t absDiff(uint32_t X, uint32_t Y) { return X > Y ? X - Y : Y - X; }
inline uint32_t sadU16(uint32_t A, uint32_t B, uint32_t C) {
  return C + absDiff(A & 0xffff, B & 0xffff) + absDiff(A >> 16, B >> 16);
}
/// V_SAD_U8 (Masked: V_MSAD_U8, skipping bytes whose S1 byte is 0) of a
/// 4-byte window against the reference \p Ref.
template <bool Masked> uint32_t sad8(uint32_t Win, uint32_t Ref) {
  uint32_t S = 0;
  for (unsigned K = 0; K < 4; ++K) {
    uint32_t R = (Ref >> (8 * K)) & 0xff;
    if (!Masked || R)
      S += absDiff((Win >> (8 * K)) & 0xff, R);
  }
  return S;
}
template <bool Masked> uint64_t qsadPk(uint64_t A, uint64_t B, uint64_t C) {
  uint64_t R = 0;
  for (unsigned K = 0; K < 4; ++K) {
    uint32_t Win = uint32_t(A >> (8 * K));
    uint32_t Acc = uint32_t(C >> (16 * K)) & 0xffff;
    R |= uint64_t((sad8<Masked>(Win, uint32_t(B)) + Acc) & 0xffff) << (16 * K);
  }
  return R;
}
struct OpQsadPk {
  static constexpr Ty T0 = Ty::B64, T1 = Ty::B32, T2 = Ty::B64, TD = Ty::B64;
  static constexpr unsigned N = 3;
  static uint64_t f(uint64_t A, uint64_t B, uint64_t C) {
    return qsadPk<false>(A, B, C);
  }
};
struct OpMqsadPk {
  static constexpr Ty T0 = Ty::B64, T1 = Ty::B32, T2 = Ty::B64, TD = Ty::B64;
  static constexpr unsigned N = 3;
  static uint64_t f(uint64_t A, uint64_t B, uint64_t C) {
    return qsadPk<true>(A, B, C);
  }
};

/// V_MQSAD_U32_U8: the accumulators and the result are four dwords (a
/// VGPR quad each).
void execMqsadU32(Wave &W, const DInst &I) {
  if (!I.Src[2].isVector()) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "v_mqsad_u32_u8 with a scalar or constant 128-bit "
                "accumulator is not modelled");
    return;
  }
  alignas(64) uint64_t A[64], B[64];
  src64(W, I, 0, Ty::B64, A);
  src64(W, I, 1, Ty::B32, B);
  alignas(64) uint32_t R[4][64];
  for (unsigned K = 0; K < 4; ++K) {
    const uint32_t *Acc = W.vreg(I.Src[2], K);
    for (unsigned L = 0; L < 64; ++L)
      R[K][L] = sad8<true>(uint32_t(A[L] >> (8 * K)), uint32_t(B[L])) + Acc[L];
  }
  uint64_t Mask = W.exec();
  for (unsigned K = 0; K < 4; ++K) {
    uint32_t *D = W.vreg(I.Def[0], K);
    for (unsigned L = 0; L < 64; ++L)
      if ((Mask >> L) & 1)
        D[L] = R[K][L];
  }
}

// The first 1201 fraction bits of 2/pi, left-aligned (the last 15 bits of
// the last word are zero).
constexpr uint32_t TwoOverPi[38] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041,
    0xfe5163ab, 0xdebbc561, 0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c,
    0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484, 0xe99c7026, 0xb45f7e41,
    0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d,
    0x7527bac7, 0xebe5f17b, 0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08,
    0x56033046, 0xfc7b0000};

/// Bit \p K (0 = the first fraction bit) of 2/pi; zero beyond 1201 bits.
inline uint64_t twoOverPiBit(unsigned K) {
  if (K >= 1201)
    return 0;
  return (TwoOverPi[K / 32] >> (31 - K % 32)) & 1;
}

uint64_t trigPreop(uint64_t S0, uint32_t S1) {
  unsigned Exp = unsigned(S0 >> 52) & 0x7ff;
  unsigned Shift = (S1 & 31) * 53;
  if (Exp > 1077)
    Shift += Exp - 1077;
  uint64_t M = 0;
  for (unsigned K = 0; K < 53; ++K)
    M = (M << 1) | twoOverPiBit(Shift + K);
  int Scale = -53 - int(Shift);
  if (Exp >= 1968)
    Scale += 128;
  // Toward zero: below the smallest denormal's quantum the bits are cut
  // off before the (then exact) scaling.
  if (Scale < -1074) {
    unsigned Cut = unsigned(-1074 - Scale);
    M = Cut >= 64 ? 0 : M >> Cut;
    Scale = -1074;
  }
  return asU64(std::ldexp(double(M), Scale));
}
struct OpTrigPreop {
  static constexpr Ty T0 = Ty::F64, T1 = Ty::B32, T2 = Ty::B32, TD = Ty::F64;
  static constexpr unsigned N = 2;
  static uint64_t f(uint64_t A, uint64_t B, uint64_t) {
    return trigPreop(A, uint32_t(B));
  }
};

inline uint32_t frexpMant16(uint32_t A) {
  A &= 0xffff;
  uint32_t Mag = A & 0x7fff, Sign = A & 0x8000;
  if (Mag > 0x7c00)
    return A | 0x200; // quieted, as every float result
  if (Mag == 0x7c00 || Mag == 0)
    return A;
  uint32_t E = Mag >> 10, M = Mag & 0x3ff;
  if (E == 0) { // denormal: normalize the fraction
    while (!(M & 0x400))
      M <<= 1;
    M &= 0x3ff;
  }
  return Sign | (14u << 10) | M;
}
inline uint32_t frexpExp16(uint32_t A) {
  uint32_t Mag = A & 0x7fff;
  if (Mag >= 0x7c00 || Mag == 0)
    return 0;
  int E = int(Mag >> 10);
  if (E == 0) // m * 2^-24 with m < 2^10
    E = int(32 - __builtin_clz(Mag)) - 24 + 14;
  return uint32_t(uint16_t(int16_t(E - 14)));
}

/// f16/f32 to a 16-bit normalized integer (see the file comment).
template <bool Signed> inline uint32_t toNorm(float X) {
  float C = std::fmin(std::fmax(X, Signed ? -1.0f : 0.0f), 1.0f);
  // Exact in double: a 24-bit significand times a 16-bit constant.
  double S = double(C) * (Signed ? 32767.0 : 65535.0);
  return uint32_t(int32_t(std::nearbyint(S))) & 0xffff;
}

bool refuseNaN(Wave &W, const DInst &I, const uint32_t *A, uint64_t Mask,
               Ty T) {
  for (unsigned L = 0; L < 64; ++L)
    if (((Mask >> L) & 1) &&
        (T == Ty::F16 ? isNaN16(A[L]) : isNaN32(A[L]))) {
      W.M->report(W, I, Violation::Unimplemented, L,
                  "the normalized-integer conversion of a NaN is not "
                  "documented");
      return true;
    }
  return false;
}

/// V_CVT_NORM_I16_F16 / V_CVT_NORM_U16_F16 (VOP1: e32, e64, SDWA, DPP).
template <bool Signed> void execCvtNorm(Wave &W, const DInst &I) {
  if (I.Omod) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "omod on an integer conversion is not modelled");
    return;
  }
  alignas(64) uint32_t B0[64], R[64];
  uint64_t Mask = activeMask(W, I);
  const uint32_t *A = src32(W, I, 0, Ty::F16, B0, Mask);
  if (refuseNaN(W, I, A, Mask, Ty::F16))
    return;
  for (unsigned L = 0; L < 64; ++L)
    R[L] = toNorm<Signed>(f16ToF32(uint16_t(A[L])));
  store32(W, I, R, Mask);
}

/// V_CVT_PKNORM_{I16,U16}_{F16,F32} (VOP3): S0 to the low half, S1 to the
/// high half.
template <bool Signed, Ty T> void execCvtPkNorm(Wave &W, const DInst &I) {
  if (I.Omod) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "omod on an integer conversion is not modelled");
    return;
  }
  alignas(64) uint32_t B0[64], B1[64], R[64];
  uint64_t Mask = W.exec();
  const uint32_t *A = src32(W, I, 0, T, B0, Mask);
  const uint32_t *B = src32(W, I, 1, T, B1, Mask);
  if (refuseNaN(W, I, A, Mask, T) || refuseNaN(W, I, B, Mask, T))
    return;
  auto Val = [](uint32_t X) {
    return T == Ty::F16 ? f16ToF32(uint16_t(X)) : F(X);
  };
  for (unsigned L = 0; L < 64; ++L)
    R[L] = toNorm<Signed>(Val(A[L])) | (toNorm<Signed>(Val(B[L])) << 16);
  store32(W, I, R, Mask);
}

void execClrExcp(Wave &, const DInst &) {}

// CDNA2 ISA guide, V_SCREEN_PARTITION_4SE_B32's TABLE (the covered-SE
// mask of a rectangle given as {x_min[6:5], y_min[6:5], x_max[6:5],
// y_max[6:5]}).
constexpr uint8_t ScreenPartition4SE[256] = {
    0x1, 0x3, 0x7, 0xf, 0x5, 0xf, 0xf, 0xf, 0x7, 0xf, 0xf, 0xf,
    0xf, 0xf, 0xf, 0xf, 0xf, 0x2, 0x6, 0xe, 0xf, 0xa, 0xf, 0xf,
    0xf, 0xb, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xd, 0xf, 0x4, 0xc,
    0xf, 0xf, 0x5, 0xf, 0xf, 0xf, 0xd, 0xf, 0xf, 0xf, 0xf, 0xf,
    0x9, 0xb, 0xf, 0x8, 0xf, 0xf, 0xf, 0xa, 0xf, 0xf, 0xf, 0xe,
    0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0x4, 0xc, 0xd, 0xf,
    0x6, 0xf, 0xf, 0xf, 0xe, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf,
    0xf, 0x8, 0x9, 0xb, 0xf, 0x9, 0x9, 0xf, 0xf, 0xd, 0xf, 0xf,
    0xf, 0xf, 0xf, 0xf, 0x7, 0xf, 0x1, 0x3, 0xf, 0xf, 0x9, 0xf,
    0xf, 0xf, 0xb, 0xf, 0xf, 0xf, 0xf, 0xf, 0x6, 0xe, 0xf, 0x2,
    0x6, 0xf, 0xf, 0x6, 0xf, 0xf, 0xf, 0x7, 0xb, 0xf, 0xf, 0xf,
    0xf, 0xf, 0xf, 0xf, 0x2, 0x3, 0xb, 0xf, 0xa, 0xf, 0xf, 0xf,
    0xf, 0x7, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0x1, 0x9, 0xd,
    0xf, 0x5, 0xf, 0xf, 0xf, 0xf, 0xe, 0xf, 0xf, 0xf, 0xf, 0xf,
    0xe, 0xf, 0x8, 0xc, 0xf, 0xf, 0xa, 0xf, 0xf, 0xf, 0xf, 0xd,
    0xf, 0xf, 0xf, 0xf, 0x6, 0x7, 0xf, 0x4, 0xf, 0xf, 0xf, 0x5,
    0x9, 0xf, 0xf, 0xf, 0xd, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf, 0xf,
    0x8, 0xc, 0xe, 0xf, 0xf, 0x6, 0x6, 0xf, 0xf, 0xe, 0xf, 0xf,
    0xf, 0xf, 0xf, 0xf, 0xf, 0x4, 0x6, 0x7, 0xf, 0xf, 0x6, 0xf,
    0xf, 0xf, 0x7, 0xf, 0xf, 0xf, 0xf, 0xf, 0xb, 0xf, 0x2, 0x3,
    0x9, 0xf, 0xf, 0x9, 0xf, 0xf, 0xf, 0xb, 0xf, 0xf, 0xf, 0xf,
    0x9, 0xd, 0xf, 0x1,
};

void execScreenPartition(Wave &W, const DInst &I) {
  if (W.M->Prog.IsGFX94X) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "v_screen_partition_4se_b32 is not in the CDNA3 ISA guide "
                "(its table is documented for gfx90a only)");
    return;
  }
  alignas(64) uint32_t B0[64], R[64];
  uint64_t Mask = activeMask(W, I);
  const uint32_t *A = src32(W, I, 0, Ty::B32, B0, Mask);
  for (unsigned L = 0; L < 64; ++L)
    R[L] = ScreenPartition4SE[A[L] & 0xff];
  store32(W, I, R, Mask);
}

// clang-format off
ASMEVO_OP32(OpCubeId, Ty::F32, Ty::F32, Ty::F32, Ty::F32, 3, false, cubeId(a, b, c))
ASMEVO_OP32(OpCubeSc, Ty::F32, Ty::F32, Ty::F32, Ty::F32, 3, false, cubeSc(a, b, c))
ASMEVO_OP32(OpCubeTc, Ty::F32, Ty::F32, Ty::F32, Ty::F32, 3, false, cubeTc(a, b, c))
ASMEVO_OP32(OpCubeMa, Ty::F32, Ty::F32, Ty::F32, Ty::F32, 3, false, cubeMa(a, b, c))
ASMEVO_OP32(OpSadU16, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, sadU16(a, b, c))
ASMEVO_OP32(OpFrexpMantF16, Ty::F16, Ty::B32, Ty::B32, Ty::F16, 1, false, frexpMant16(a))
ASMEVO_OP32(OpFrexpExpI16F16, Ty::F16, Ty::B32, Ty::B32, Ty::B32, 1, false, frexpExp16(a))
// clang-format on

} // namespace

void emu::registerVALUSpecial(SemRegistry &R) {
  auto A = [&](const char *N, ExecFn F, uint8_t Enc = EncAll) {
    R.add(N, F, Enc);
  };
  A("V_CUBEID_F32", vop32<OpCubeId>, EncNoDPPSDWA);
  A("V_CUBESC_F32", vop32<OpCubeSc>, EncNoDPPSDWA);
  A("V_CUBETC_F32", vop32<OpCubeTc>, EncNoDPPSDWA);
  A("V_CUBEMA_F32", vop32<OpCubeMa>, EncNoDPPSDWA);
  A("V_SAD_U16", vop32<OpSadU16>, EncNoDPPSDWA);
  A("V_QSAD_PK_U16_U8", vop64<OpQsadPk>, EncNoDPPSDWA);
  A("V_MQSAD_PK_U16_U8", vop64<OpMqsadPk>, EncNoDPPSDWA);
  A("V_MQSAD_U32_U8", execMqsadU32, EncNoDPPSDWA);
  A("V_TRIG_PREOP_F64", vop64<OpTrigPreop>, EncNoDPPSDWA);
  A("V_FREXP_MANT_F16", vop32<OpFrexpMantF16>);
  A("V_FREXP_EXP_I16_F16", vop32<OpFrexpExpI16F16>);
  A("V_CVT_NORM_I16_F16", execCvtNorm<true>);
  A("V_CVT_NORM_U16_F16", execCvtNorm<false>);
  A("V_CVT_PKNORM_I16_F16", execCvtPkNorm<true, Ty::F16>, EncNoDPPSDWA);
  A("V_CVT_PKNORM_U16_F16", execCvtPkNorm<false, Ty::F16>, EncNoDPPSDWA);
  A("V_CVT_PKNORM_I16_F32", execCvtPkNorm<true, Ty::F32>, EncNoDPPSDWA);
  A("V_CVT_PKNORM_U16_F32", execCvtPkNorm<false, Ty::F32>, EncNoDPPSDWA);
  A("V_CLREXCP", execClrExcp);
  A("V_SCREEN_PARTITION_4SE_B32", execScreenPartition);
}
