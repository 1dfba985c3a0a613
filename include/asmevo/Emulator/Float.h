//===- Float.h - Small float formats: f16, bf16, fp8/bf8 ---------*- C++ -*-===//
//
// Bit-exact conversions written from the format definitions: IEEE 754
// binary16; bfloat16 (the high half of binary32); the 8-bit formats of
// gfx942 (E4M3FNUZ, E5M2FNUZ: exponent bias 8 and 16, no infinities, no
// negative zero, 0x80 is the only NaN) and of gfx950 (OCP E4M3FN, E5M2).
// Conversions to narrower formats round to nearest even unless stated.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_EMULATOR_FLOAT_H
#define ASMEVO_EMULATOR_FLOAT_H

#include <cmath>
#include <cstdint>
#include "llvm/ADT/bit.h"
#include <cstring>

namespace asmevo {
namespace emu {

inline float asF(uint32_t X) { return llvm::bit_cast<float>(X); }
inline uint32_t asU(float F) { return llvm::bit_cast<uint32_t>(F); }
inline double asD(uint64_t X) { return llvm::bit_cast<double>(X); }
inline uint64_t asU64(double F) { return llvm::bit_cast<uint64_t>(F); }

inline float f16ToF32(uint16_t H) {
  uint32_t Sign = uint32_t(H & 0x8000) << 16;
  uint32_t Exp = (H >> 10) & 0x1f;
  uint32_t Man = H & 0x3ff;
  if (Exp == 0x1f) // Inf/NaN (payload kept, quieted like the hardware)
    return asF(Sign | 0x7f800000u | (Man << 13) | (Man ? 0x400000u : 0));
  if (Exp == 0) {
    if (Man == 0)
      return asF(Sign);
    float F = std::ldexp(float(Man), -24);
    return Sign ? -F : F;
  }
  return asF(Sign | ((Exp + 112) << 23) | (Man << 13));
}

/// binary32 -> binary16, round to nearest even (or toward zero with RTZ).
inline uint16_t f32ToF16(float F, bool RTZ = false) {
  uint32_t X = asU(F);
  uint16_t Sign = uint16_t((X >> 16) & 0x8000);
  uint32_t Exp = (X >> 23) & 0xff;
  uint32_t Man = X & 0x7fffff;
  if (Exp == 0xff)
    return Sign | 0x7c00 | (Man ? uint16_t(0x200 | (Man >> 13)) : 0);
  int E = int(Exp) - 127 + 15;
  if (E >= 31) // overflow: Inf, or max finite toward zero
    return RTZ ? uint16_t(Sign | 0x7bff) : uint16_t(Sign | 0x7c00);
  uint32_t Full = Exp ? (Man | 0x800000) : Man; // 24-bit significand
  int Shift;
  uint32_t HExp;
  if (E <= 0) { // subnormal half
    Shift = 14 - E;
    HExp = 0;
    if (Exp == 0)
      Shift = 30; // f32 denormals are far below the half range
  } else {
    Shift = 13;
    HExp = uint32_t(E);
    Full &= 0x7fffff;
  }
  if (Shift > 31)
    return Sign;
  uint32_t Q = Full >> Shift;
  uint32_t Rem = Full & ((1u << Shift) - 1);
  uint32_t Half = 1u << (Shift - 1);
  if (!RTZ && (Rem > Half || (Rem == Half && (Q & 1))))
    ++Q;
  uint32_t R = (HExp << 10) + Q; // carries propagate into the exponent
  return uint16_t(Sign | R);
}

inline float bf16ToF32(uint16_t B) { return asF(uint32_t(B) << 16); }

inline uint16_t f32ToBF16(float F) {
  uint32_t X = asU(F);
  if ((X & 0x7fffffff) > 0x7f800000)
    return uint16_t((X >> 16) | 0x40);
  uint32_t Round = 0x7fff + ((X >> 16) & 1);
  return uint16_t((X + Round) >> 16);
}

/// Parameters of an 8-bit float format.
struct F8Format {
  unsigned ExpBits, ManBits;
  int Bias;
  bool FNUZ; ///< 0x80 = NaN, no infinities, no negative zero.
  bool HasInf; ///< OCP E5M2 has infinities; OCP E4M3FN does not.
};
constexpr F8Format FP8FNUZ{4, 3, 8, true, false};
constexpr F8Format BF8FNUZ{5, 2, 16, true, false};
constexpr F8Format FP8OCP{4, 3, 7, false, false};
constexpr F8Format BF8OCP{5, 2, 15, false, true};

inline float f8ToF32(uint8_t V, const F8Format &Fm) {
  if (Fm.FNUZ && V == 0x80)
    return NAN;
  bool Neg = V & 0x80;
  unsigned Exp = (V >> Fm.ManBits) & ((1u << Fm.ExpBits) - 1);
  unsigned Man = V & ((1u << Fm.ManBits) - 1);
  unsigned ExpMax = (1u << Fm.ExpBits) - 1;
  if (!Fm.FNUZ) {
    if (Fm.HasInf && Exp == ExpMax)
      return Man ? NAN : (Neg ? -INFINITY : INFINITY);
    if (!Fm.HasInf && Exp == ExpMax && Man == (1u << Fm.ManBits) - 1)
      return NAN; // E4M3FN: S.1111.111
  }
  float F;
  if (Exp == 0)
    F = std::ldexp(float(Man), 1 - Fm.Bias - int(Fm.ManBits));
  else
    F = std::ldexp(float(Man | (1u << Fm.ManBits)),
                   int(Exp) - Fm.Bias - int(Fm.ManBits));
  return Neg ? -F : F;
}

/// f32 -> 8-bit float, round to nearest even. With \p Saturate, values
/// beyond the largest finite value (and infinities) become it; without,
/// they become NaN (FNUZ) or Inf/NaN (OCP).
inline uint8_t f32ToF8(float F, const F8Format &Fm, bool Saturate) {
  uint8_t NaN = Fm.FNUZ ? 0x80 : uint8_t(0x7f);
  if (std::isnan(F))
    return NaN;
  bool Neg = std::signbit(F);
  float A = std::fabs(F);
  unsigned ExpMax = (1u << Fm.ExpBits) - 1;
  // Largest finite encoding.
  unsigned MaxExp, MaxMan;
  if (Fm.FNUZ || Fm.HasInf) {
    MaxExp = Fm.FNUZ ? ExpMax : ExpMax - 1;
    MaxMan = (1u << Fm.ManBits) - 1;
  } else { // E4M3FN: S.1111.110
    MaxExp = ExpMax;
    MaxMan = (1u << Fm.ManBits) - 2;
  }
  float MaxVal = std::ldexp(float(MaxMan | (1u << Fm.ManBits)),
                            int(MaxExp) - Fm.Bias - int(Fm.ManBits));
  uint8_t MaxEnc = uint8_t((MaxExp << Fm.ManBits) | MaxMan);
  uint8_t SignBit = Neg ? 0x80 : 0;
  if (std::isinf(A)) {
    if (Saturate)
      return SignBit | MaxEnc;
    if (Fm.HasInf)
      return SignBit | uint8_t(ExpMax << Fm.ManBits);
    return NaN;
  }
  // Quantize: the spacing at A's binade (or the subnormal spacing).
  int MinExp = 1 - Fm.Bias; // exponent of the smallest normal
  int E = A == 0 ? MinExp : std::ilogb(A);
  if (E < MinExp)
    E = MinExp;
  float Ulp = std::ldexp(1.0f, E - int(Fm.ManBits));
  float Q = std::nearbyint(A / Ulp); // ties to even in the default mode
  float R = Q * Ulp;
  if (R > MaxVal) {
    if (Saturate)
      return SignBit | MaxEnc;
    if (Fm.HasInf)
      return SignBit | uint8_t(ExpMax << Fm.ManBits);
    return NaN;
  }
  if (R == 0)
    return Fm.FNUZ ? 0 : SignBit; // FNUZ has no negative zero
  int RE = std::ilogb(R);
  unsigned Exp, Man;
  if (RE < MinExp) {
    Exp = 0;
    Man = unsigned(std::ldexp(R, int(Fm.ManBits) - MinExp));
  } else {
    Exp = unsigned(RE + Fm.Bias);
    Man = unsigned(std::ldexp(R, int(Fm.ManBits) - RE)) - (1u << Fm.ManBits);
  }
  return SignBit | uint8_t((Exp << Fm.ManBits) | Man);
}

} // namespace emu
} // namespace asmevo

#endif
