//===- ExecVALU.cpp - Vector ALU: integer, float, lane and DPP ------------===//
//
// Semantics from AMD "AMD Instinct MI300 (CDNA3) Instruction Set
// Architecture" chapter 6 and 12.7-12.10 (VOP2, VOP1, VOPC, VOP3 opcode
// descriptions); DPP in 6.2 and the DPP_CTRL table of 12.x "DPP";
// readlane/writelane/mbcnt in 12.10 (VOP3A).
//
//===----------------------------------------------------------------------===//
#include "BitOps.h"
#include "VALUOps.h"
#include <cmath>

#pragma clang fp contract(off)

using namespace asmevo;
using namespace asmevo::emu;

//===----------------------------------------------------------------------===//
// DPP (ISA 6.2, DPP_CTRL enumeration)
//===----------------------------------------------------------------------===//

uint64_t emu::dppWriteMask(const DInst &I) {
  uint64_t M = 0;
  for (unsigned L = 0; L < 64; ++L) {
    unsigned Row = L / 16, Bank = (L % 16) / 4;
    if (((I.RowMask >> Row) & 1) && ((I.BankMask >> Bank) & 1))
      M |= 1ull << L;
  }
  return M;
}

/// Source lane of \p L for \p Ctrl, or -1 when out of range.
static int dppSourceLane(unsigned Ctrl, int L) {
  int RowBase = L & ~15, InRow = L & 15;
  if (Ctrl <= 0xff) // quad_perm
    return (L & ~3) | ((Ctrl >> ((L & 3) * 2)) & 3);
  if (Ctrl >= 0x101 && Ctrl <= 0x10f) { // row_shl
    int S = InRow + int(Ctrl & 15);
    return S < 16 ? RowBase + S : -1;
  }
  if (Ctrl >= 0x111 && Ctrl <= 0x11f) { // row_shr
    int S = InRow - int(Ctrl & 15);
    return S >= 0 ? RowBase + S : -1;
  }
  if (Ctrl >= 0x121 && Ctrl <= 0x12f) // row_ror
    return RowBase + ((InRow - int(Ctrl & 15)) & 15);
  switch (Ctrl) {
  case 0x130: return L + 1 < 64 ? L + 1 : -1; // wave_shl:1
  case 0x134: return (L + 1) & 63;            // wave_rol:1
  case 0x138: return L >= 1 ? L - 1 : -1;     // wave_shr:1
  case 0x13c: return (L - 1) & 63;            // wave_ror:1
  case 0x140: return RowBase + 15 - InRow;    // row_mirror
  case 0x141: return (L & ~7) + 7 - (L & 7);  // row_half_mirror
  case 0x142: // row_bcast:15 - lane 15 of each row feeds the next row
    return L >= 16 ? RowBase - 1 : -1;
  case 0x143: // row_bcast:31 - lane 31 feeds rows 2 and 3
    return L >= 32 ? 31 : -1;
  default:
    break;
  }
  if (Ctrl >= 0x150 && Ctrl <= 0x15f) // row_newbcast (gfx90a+)
    return RowBase + int(Ctrl & 15);
  return -2; // reserved
}

void emu::dppPermute(const DInst &I, const uint32_t *Src, uint32_t *Out,
                     uint64_t Exec, uint64_t &Mask) {
  for (int L = 0; L < 64; ++L) {
    int S = dppSourceLane(I.DppCtrl, L);
    // A disabled source lane is invalid like an out-of-range one.
    if (S >= 0 && ((Exec >> S) & 1)) {
      Out[L] = Src[S];
    } else if (I.BoundCtrl) {
      Out[L] = 0;
    } else {
      Out[L] = 0;
      Mask &= ~(1ull << L);
    }
  }
}

bool emu::dppSrc64(Wave &W, const DInst &I, Ty T, uint64_t *Out,
                   uint64_t &Mask) {
  if (I.DppCtrl < 0x150 || I.DppCtrl > 0x15f) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "DPP control other than row_newbcast on a 64-bit operand "
                "(its lane movement is not documented)");
    return false;
  }
  Mask &= dppWriteMask(I);
  if (!is64(T)) {
    alignas(64) uint32_t Buf[64];
    const uint32_t *P = src32(W, I, 0, T, Buf, Mask);
    for (unsigned L = 0; L < 64; ++L)
      Out[L] = P[L];
    return true;
  }
  alignas(64) uint64_t V[64];
  src64(W, I, 0, T, V); // neg/abs travel with the value
  uint64_t Exec = W.exec();
  for (int L = 0; L < 64; ++L) {
    int S = (L & ~15) | int(I.DppCtrl & 15);
    if ((Exec >> S) & 1) {
      Out[L] = V[S];
    } else {
      // A disabled source lane is invalid, as for 32-bit DPP.
      Out[L] = 0;
      if (!I.BoundCtrl)
        Mask &= ~(1ull << L);
    }
  }
  return true;
}

namespace {

inline float F(uint32_t X) { return asF(X); }
inline uint32_t U(float X) { return asU(X); }
inline double D(uint64_t X) { return asD(X); }
inline uint64_t U64(double X) { return asU64(X); }

/// IEEE-mode min/max of the ISA (MODE.IEEE, set for compute kernels:
/// signalling NaN inputs are quieted and propagated per IEEE 754-2008):
/// a signalling NaN gives itself quieted (src0 first); else a quiet NaN
/// loses against a number and two quiet NaNs give src0; -0 < +0.
template <typename T> bool isSNaN(T X) {
  if constexpr (sizeof(T) == 4)
    return std::isnan(X) && !((asU(X) >> 22) & 1);
  else
    return std::isnan(X) && !((asU64(X) >> 51) & 1);
}
template <typename T> T quietNaN(T X) {
  if constexpr (sizeof(T) == 4)
    return asF(asU(X) | 0x00400000u);
  else
    return asD(asU64(X) | (1ull << 51));
}
template <typename T> T ieeeMinMax(T A, T B, bool Max) {
  // Numbers first: the NaN rules below cost a relu-heavy kernel a third of
  // its emulation time when checked on every lane.
  if (LLVM_LIKELY(!std::isnan(A) && !std::isnan(B))) {
    if (A == B)
      return std::signbit(A) != Max ? A : B;
    return (Max ? A > B : A < B) ? A : B;
  }
  if (isSNaN(A))
    return quietNaN(A);
  if (isSNaN(B))
    return quietNaN(B);
  if (std::isnan(A))
    return std::isnan(B) ? A : B;
  if (std::isnan(B))
    return A;
  if (A == B)
    return std::signbit(A) != Max ? A : B;
  return (Max ? A > B : A < B) ? A : B;
}
inline float fmin32(float A, float B) { return ieeeMinMax(A, B, false); }
inline float fmax32(float A, float B) { return ieeeMinMax(A, B, true); }
inline double fmin64(double A, double B) { return ieeeMinMax(A, B, false); }
inline double fmax64(double A, double B) { return ieeeMinMax(A, B, true); }
/// V_MED3_F32 as the ISA writes it: with a NaN, min3; else the max of the
/// two operands other than the one equal to max3 (compared with ==, so
/// med3(-0, x, +0) with x < 0 is +0).
inline float fmed3(float A, float B, float C) {
  if (std::isnan(A) || std::isnan(B) || std::isnan(C))
    return fmin32(fmin32(A, B), C);
  float Max = fmax32(fmax32(A, B), C);
  if (Max == A)
    return fmax32(B, C);
  if (Max == B)
    return fmax32(A, C);
  return fmax32(A, B);
}
/// V_MED3_F16 on the bits: with a NaN, min3 (as V_MIN3_F16, which does
/// not quiet a signalling NaN by widening it to f32); else fmed3.
inline uint32_t med3F16(uint32_t A, uint32_t B, uint32_t C) {
  if (isNaN16(A) || isNaN16(B) || isNaN16(C))
    return minMax16(minMax16(A, B, false), C, false);
  return f32ToF16(fmed3(f16ToF32(uint16_t(A)), f16ToF32(uint16_t(B)),
                        f16ToF32(uint16_t(C))));
}
template <typename T> T med3i(T A, T B, T C) {
  return std::max(std::min(A, B), std::min(std::max(A, B), C));
}
/// DX9 multiply: 0 * anything = 0 (ISA V_MUL_LEGACY_F32).
inline float mulLegacy(float A, float B) {
  if (A == 0.0f || B == 0.0f)
    return 0.0f;
  return A * B;
}
inline float ftz32(float X) {
  return std::fpclassify(X) == FP_SUBNORMAL ? std::copysign(0.0f, X) : X;
}
/// Non-fused multiply-add with f32 denormals flushed (sources and result);
/// the product rounds to f32 first. \p Legacy: DX9 0 * anything = 0.
inline uint32_t madFtz(uint32_t A, uint32_t B, uint32_t C, bool Legacy) {
  float X = ftz32(F(A)), Y = ftz32(F(B)), Z = ftz32(F(C));
  float P = Legacy ? mulLegacy(X, Y) : X * Y;
  uint32_t R = nanRes32(U(ftz32(ftz32(P) + Z)), A, B, C);
  return R;
}
inline int32_t sext24(uint32_t X) { return int32_t(X << 8) >> 8; }

inline uint32_t perm32(uint32_t S0, uint32_t S1, uint32_t Sel) {
  uint64_t Bytes = (uint64_t(S0) << 32) | S1;
  uint32_t D = 0;
  for (unsigned K = 0; K < 4; ++K) {
    unsigned S = (Sel >> (8 * K)) & 0xff;
    uint32_t B;
    if (S < 8)
      B = (Bytes >> (8 * S)) & 0xff;
    else if (S == 8)
      B = ((S1 >> 15) & 1) ? 0xff : 0;
    else if (S == 9)
      B = ((S1 >> 31) & 1) ? 0xff : 0;
    else if (S == 10)
      B = ((S0 >> 15) & 1) ? 0xff : 0;
    else if (S == 11)
      B = ((S0 >> 31) & 1) ? 0xff : 0;
    else if (S == 12)
      B = 0;
    else
      B = 0xff;
    D |= B << (8 * K);
  }
  return D;
}

inline uint32_t bfe_u32(uint32_t V, uint32_t Off, uint32_t Wd) {
  Off &= 31;
  Wd &= 31;
  if (Wd == 0)
    return 0;
  return (V >> Off) & ((1u << Wd) - 1);
}
inline uint32_t bfe_i32(uint32_t V, uint32_t Off, uint32_t Wd) {
  Off &= 31;
  Wd &= 31;
  if (Wd == 0)
    return 0;
  uint32_t F = uint32_t(int32_t(V) >> Off);
  return uint32_t(int32_t(F << (32 - Wd)) >> (32 - Wd));
}
inline uint32_t absDiffByte(uint32_t A, uint32_t B, unsigned K) {
  int X = int((A >> (8 * K)) & 0xff), Y = int((B >> (8 * K)) & 0xff);
  return uint32_t(X > Y ? X - Y : Y - X);
}
inline uint32_t sadU8(uint32_t A, uint32_t B) {
  return absDiffByte(A, B, 0) + absDiffByte(A, B, 1) + absDiffByte(A, B, 2) +
         absDiffByte(A, B, 3);
}
inline uint32_t msadU8(uint32_t A, uint32_t B) {
  uint32_t S = 0;
  for (unsigned K = 0; K < 4; ++K)
    if ((B >> (8 * K)) & 0xff)
      S += absDiffByte(A, B, K);
  return S;
}
inline uint32_t ffbh_i32(uint32_t X) { return ffbhSigned32(int32_t(X)); }
inline uint32_t brev32(uint32_t X) {
  X = ((X >> 1) & 0x55555555u) | ((X & 0x55555555u) << 1);
  X = ((X >> 2) & 0x33333333u) | ((X & 0x33333333u) << 2);
  X = ((X >> 4) & 0x0f0f0f0fu) | ((X & 0x0f0f0f0fu) << 4);
  X = ((X >> 8) & 0x00ff00ffu) | ((X & 0x00ff00ffu) << 8);
  return (X >> 16) | (X << 16);
}

// Float helpers for the 16-bit operations (computed in f32: exact for
// add/sub/mul/fma of binary16 inputs, then rounded once).
inline float H(uint32_t X) { return f16ToF32(uint16_t(X)); }
inline uint32_t HU(float X) { return f32ToF16(X); }

using namespace emu;

// clang-format off
// VOP2 / VOP3 32-bit integer and bitwise (ISA 12.7, 12.10).
ASMEVO_OP32(OpMovB32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 1, false, a)
ASMEVO_OP32(OpAddU32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, a + b)
ASMEVO_OP32(OpSubU32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, a - b)
ASMEVO_OP32(OpSubrevU32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, b - a)
ASMEVO_OP32(OpAnd, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, a & b)
ASMEVO_OP32(OpOr, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, a | b)
ASMEVO_OP32(OpXor, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, a ^ b)
ASMEVO_OP32(OpXnor, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, ~(a ^ b))
ASMEVO_OP32(OpNot, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 1, false, ~a)
ASMEVO_OP32(OpLshlrev, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, b << (a & 31))
ASMEVO_OP32(OpLshrrev, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, b >> (a & 31))
ASMEVO_OP32(OpAshrrev, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, uint32_t(int32_t(b) >> (a & 31)))
ASMEVO_OP32(OpMinI32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, uint32_t(std::min(int32_t(a), int32_t(b))))
ASMEVO_OP32(OpMaxI32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, uint32_t(std::max(int32_t(a), int32_t(b))))
ASMEVO_OP32(OpMinU32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, std::min(a, b))
ASMEVO_OP32(OpMaxU32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, std::max(a, b))
ASMEVO_OP32(OpMulI32I24, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, uint32_t(int64_t(sext24(a)) * sext24(b)))
ASMEVO_OP32(OpMulHiI32I24, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, uint32_t(uint64_t(int64_t(sext24(a)) * sext24(b)) >> 32))
ASMEVO_OP32(OpMulU32U24, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, (a & 0xffffff) * (b & 0xffffff))
ASMEVO_OP32(OpMulHiU32U24, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, uint32_t((uint64_t(a & 0xffffff) * (b & 0xffffff)) >> 32))
ASMEVO_OP32(OpMulLoU32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, a * b)
ASMEVO_OP32(OpMulHiU32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, uint32_t((uint64_t(a) * b) >> 32))
ASMEVO_OP32(OpMulHiI32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, uint32_t(uint64_t(int64_t(int32_t(a)) * int32_t(b)) >> 32))
ASMEVO_OP32(OpMadI32I24, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, uint32_t(int64_t(sext24(a)) * sext24(b)) + c)
ASMEVO_OP32(OpMadU32U24, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, (a & 0xffffff) * (b & 0xffffff) + c)
ASMEVO_OP32(OpBfeU32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, bfe_u32(a, b, c))
ASMEVO_OP32(OpBfeI32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, bfe_i32(a, b, c))
ASMEVO_OP32(OpBfi, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, (a & b) | (~a & c))
ASMEVO_OP32(OpBfm, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, ((1u << (a & 31)) - 1) << (b & 31))
ASMEVO_OP32(OpAlignbit, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, uint32_t(((uint64_t(a) << 32) | b) >> (c & 31)))
ASMEVO_OP32(OpAlignbyte, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, uint32_t(((uint64_t(a) << 32) | b) >> (8 * (c & 3))))
ASMEVO_OP32(OpPerm, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, perm32(a, b, c))
ASMEVO_OP32(OpLshlAdd, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, (a << (b & 31)) + c)
ASMEVO_OP32(OpAddLshl, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, (a + b) << (c & 31))
ASMEVO_OP32(OpAdd3, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, a + b + c)
ASMEVO_OP32(OpLshlOr, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, (a << (b & 31)) | c)
ASMEVO_OP32(OpAndOr, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, (a & b) | c)
ASMEVO_OP32(OpOr3, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, a | b | c)
ASMEVO_OP32(OpXad, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, (a ^ b) + c)
ASMEVO_OP32(OpMin3I, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, uint32_t(std::min({int32_t(a), int32_t(b), int32_t(c)})))
ASMEVO_OP32(OpMax3I, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, uint32_t(std::max({int32_t(a), int32_t(b), int32_t(c)})))
ASMEVO_OP32(OpMed3I, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, uint32_t(med3i(int32_t(a), int32_t(b), int32_t(c))))
ASMEVO_OP32(OpMin3U, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, std::min({a, b, c}))
ASMEVO_OP32(OpMax3U, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, std::max({a, b, c}))
ASMEVO_OP32(OpMed3U, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, med3i(a, b, c))
ASMEVO_OP32(OpBcnt, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, false, uint32_t(__builtin_popcount(a)) + b)
ASMEVO_OP32(OpBfrev, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 1, false, brev32(a))
ASMEVO_OP32(OpFfbhU32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 1, false, a ? uint32_t(__builtin_clz(a)) : ~0u)
ASMEVO_OP32(OpFfblB32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 1, false, a ? uint32_t(__builtin_ctz(a)) : ~0u)
ASMEVO_OP32(OpFfbhI32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 1, false, ffbh_i32(a))
ASMEVO_OP32(OpSadU8, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false,
  uint32_t(std::abs(int(a & 0xff) - int(b & 0xff)) + std::abs(int((a >> 8) & 0xff) - int((b >> 8) & 0xff)) +
           std::abs(int((a >> 16) & 0xff) - int((b >> 16) & 0xff)) + std::abs(int(a >> 24) - int(b >> 24))) + c)
// V_SAD_HI_U8: the byte SAD into the high half (ISA 12.10).
ASMEVO_OP32(OpSadHiU8, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, (sadU8(a, b) << 16) + c)
// V_MSAD_U8: the byte SAD skipping bytes whose reference (S1) byte is 0.
ASMEVO_OP32(OpMsadU8, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, msadU8(a, b) + c)
ASMEVO_OP32(OpSadU32, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false, (a > b ? a - b : b - a) + c)
ASMEVO_OP32(OpLerpU8, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 3, false,
  ((((a & 0xff) + (b & 0xff) + (c & 1)) >> 1) & 0xff) |
  (((((a >> 8) & 0xff) + ((b >> 8) & 0xff) + ((c >> 8) & 1)) >> 1) << 8) |
  (((((a >> 16) & 0xff) + ((b >> 16) & 0xff) + ((c >> 16) & 1)) >> 1) << 16) |
  ((((a >> 24) + (b >> 24) + ((c >> 24) & 1)) >> 1) << 24))
// 16-bit integer (result in the low half; the high half is zeroed on gfx9).
ASMEVO_OP32(OpAddU16, Ty::U16, Ty::U16, Ty::B32, Ty::B32, 2, false, (a + b) & 0xffff)
ASMEVO_OP32(OpSubU16, Ty::U16, Ty::U16, Ty::B32, Ty::B32, 2, false, (a - b) & 0xffff)
ASMEVO_OP32(OpSubrevU16, Ty::U16, Ty::U16, Ty::B32, Ty::B32, 2, false, (b - a) & 0xffff)
ASMEVO_OP32(OpMulLoU16, Ty::U16, Ty::U16, Ty::B32, Ty::B32, 2, false, (a * b) & 0xffff)
ASMEVO_OP32(OpLshlrevB16, Ty::U16, Ty::U16, Ty::B32, Ty::B32, 2, false, (b << (a & 15)) & 0xffff)
ASMEVO_OP32(OpLshrrevB16, Ty::U16, Ty::U16, Ty::B32, Ty::B32, 2, false, (b & 0xffff) >> (a & 15))
ASMEVO_OP32(OpAshrrevI16, Ty::U16, Ty::U16, Ty::B32, Ty::B32, 2, false, uint32_t(int16_t(b) >> (a & 15)) & 0xffff)
ASMEVO_OP32(OpMaxU16, Ty::U16, Ty::U16, Ty::B32, Ty::B32, 2, false, std::max(a & 0xffff, b & 0xffff))
ASMEVO_OP32(OpMinU16, Ty::U16, Ty::U16, Ty::B32, Ty::B32, 2, false, std::min(a & 0xffff, b & 0xffff))
ASMEVO_OP32(OpMaxI16, Ty::U16, Ty::U16, Ty::B32, Ty::B32, 2, false, uint32_t(std::max(int16_t(a), int16_t(b))) & 0xffff)
ASMEVO_OP32(OpMinI16, Ty::U16, Ty::U16, Ty::B32, Ty::B32, 2, false, uint32_t(std::min(int16_t(a), int16_t(b))) & 0xffff)
ASMEVO_OP32(OpMadU16, Ty::U16, Ty::U16, Ty::U16, Ty::B32, 3, false, (a * b + c) & 0xffff)
// 12.10 VOP3: 16-bit sources, 32-bit accumulator and result.
ASMEVO_OP32(OpMadU32U16, Ty::U16, Ty::U16, Ty::B32, Ty::B32, 3, false, (a & 0xffff) * (b & 0xffff) + c)
ASMEVO_OP32(OpMadI32I16, Ty::U16, Ty::U16, Ty::B32, Ty::B32, 3, false, uint32_t(int32_t(int16_t(a)) * int16_t(b)) + c)
// 16-bit min3/max3/med3 (result in the low half).
ASMEVO_OP32(OpMin3U16, Ty::U16, Ty::U16, Ty::U16, Ty::B32, 3, false, std::min({a & 0xffff, b & 0xffff, c & 0xffff}))
ASMEVO_OP32(OpMax3U16, Ty::U16, Ty::U16, Ty::U16, Ty::B32, 3, false, std::max({a & 0xffff, b & 0xffff, c & 0xffff}))
ASMEVO_OP32(OpMed3U16, Ty::U16, Ty::U16, Ty::U16, Ty::B32, 3, false, med3i(a & 0xffff, b & 0xffff, c & 0xffff))
ASMEVO_OP32(OpMin3I16, Ty::U16, Ty::U16, Ty::U16, Ty::B32, 3, false, uint32_t(std::min({int16_t(a), int16_t(b), int16_t(c)})) & 0xffff)
ASMEVO_OP32(OpMax3I16, Ty::U16, Ty::U16, Ty::U16, Ty::B32, 3, false, uint32_t(std::max({int16_t(a), int16_t(b), int16_t(c)})) & 0xffff)
ASMEVO_OP32(OpMed3I16, Ty::U16, Ty::U16, Ty::U16, Ty::B32, 3, false, uint32_t(med3i(int16_t(a), int16_t(b), int16_t(c))) & 0xffff)
ASMEVO_OP32(OpMadI16, Ty::U16, Ty::U16, Ty::U16, Ty::B32, 3, false, uint32_t(int16_t(a) * int16_t(b) + int16_t(c)) & 0xffff)

// f32 (ISA 12.7/12.10; IEEE rounding to nearest even).
ASMEVO_OP32(OpAddF32, Ty::F32, Ty::F32, Ty::B32, Ty::F32, 2, false, nanRes32(U(F(a) + F(b)), a, b))
ASMEVO_OP32(OpSubF32, Ty::F32, Ty::F32, Ty::B32, Ty::F32, 2, false, nanRes32(U(F(a) - F(b)), a, b))
ASMEVO_OP32(OpSubrevF32, Ty::F32, Ty::F32, Ty::B32, Ty::F32, 2, false, nanRes32(U(F(b) - F(a)), a, b))
ASMEVO_OP32(OpMulF32, Ty::F32, Ty::F32, Ty::B32, Ty::F32, 2, false, nanRes32(U(F(a) * F(b)), a, b))
ASMEVO_OP32(OpMulLegacyF32, Ty::F32, Ty::F32, Ty::B32, Ty::F32, 2, false, U(mulLegacy(F(a), F(b))))
ASMEVO_OP32(OpMinF32, Ty::F32, Ty::F32, Ty::B32, Ty::F32, 2, false, U(fmin32(F(a), F(b))))
ASMEVO_OP32(OpMaxF32, Ty::F32, Ty::F32, Ty::B32, Ty::F32, 2, false, U(fmax32(F(a), F(b))))
ASMEVO_OP32(OpMin3F32, Ty::F32, Ty::F32, Ty::F32, Ty::F32, 3, false, U(fmin32(fmin32(F(a), F(b)), F(c))))
ASMEVO_OP32(OpMax3F32, Ty::F32, Ty::F32, Ty::F32, Ty::F32, 3, false, U(fmax32(fmax32(F(a), F(b)), F(c))))
ASMEVO_OP32(OpMed3F32, Ty::F32, Ty::F32, Ty::F32, Ty::F32, 3, false, U(fmed3(F(a), F(b), F(c))))
ASMEVO_OP32(OpFmaF32, Ty::F32, Ty::F32, Ty::F32, Ty::F32, 3, false, nanRes32(U(std::fma(F(a), F(b), F(c))), a, b, c))
ASMEVO_OP32(OpFmacF32, Ty::F32, Ty::F32, Ty::F32, Ty::F32, 2, true, nanRes32(U(std::fma(F(a), F(b), F(c))), a, b, c))
// V_MAD_F32, V_MAC_F32, V_MADAK/MADMK_F32, V_MAD_LEGACY_F32 (gfx90a): "do
// not support denormals" (LLVM SIISelLowering: FMAD is only formed with
// f32 denormals flushed): denormal sources read as zeros of their sign and
// a denormal result is written as a zero of its sign, whatever the mode.
ASMEVO_OP32(OpMadF32, Ty::F32, Ty::F32, Ty::F32, Ty::F32, 3, false, madFtz(a, b, c, false))
ASMEVO_OP32(OpMacF32, Ty::F32, Ty::F32, Ty::F32, Ty::F32, 2, true, madFtz(a, b, c, false))
ASMEVO_OP32(OpMadLegacyF32, Ty::F32, Ty::F32, Ty::F32, Ty::F32, 3, false, madFtz(a, b, c, true))
ASMEVO_OP32(OpLdexpF32, Ty::F32, Ty::B32, Ty::B32, Ty::F32, 2, false, U(std::ldexp(F(a), std::clamp(int32_t(b), -1000, 1000))))
// f16 (results in the low half).
ASMEVO_OP32(OpAddF16, Ty::F16, Ty::F16, Ty::B32, Ty::F16, 2, false, nanRes16(HU(H(a) + H(b)), a, b))
ASMEVO_OP32(OpSubF16, Ty::F16, Ty::F16, Ty::B32, Ty::F16, 2, false, nanRes16(HU(H(a) - H(b)), a, b))
ASMEVO_OP32(OpSubrevF16, Ty::F16, Ty::F16, Ty::B32, Ty::F16, 2, false, nanRes16(HU(H(b) - H(a)), a, b))
ASMEVO_OP32(OpMulF16, Ty::F16, Ty::F16, Ty::B32, Ty::F16, 2, false, nanRes16(HU(H(a) * H(b)), a, b))
ASMEVO_OP32(OpMaxF16, Ty::F16, Ty::F16, Ty::B32, Ty::F16, 2, false, minMax16(a, b, true))
ASMEVO_OP32(OpMinF16, Ty::F16, Ty::F16, Ty::B32, Ty::F16, 2, false, minMax16(a, b, false))
ASMEVO_OP32(OpFmaF16, Ty::F16, Ty::F16, Ty::F16, Ty::F16, 3, false, nanRes16(fmaToF16(H(a), H(b), H(c)), a, b, c))
// V_MAC_F16 keeps the high half of D on gfx9 (LLVM's
// GCNSubtarget::zeroesHigh16BitsOfDest: only VI zeroes it); the other f16
// ops here zero it.
ASMEVO_OP32(OpMacF16, Ty::F16, Ty::F16, Ty::F16, Ty::F16, 2, true, (c & 0xffff0000u) | HU(H(HU(H(a) * H(b))) + H(c)))
ASMEVO_OP32(OpFmacF16, Ty::F16, Ty::F16, Ty::F16, Ty::F16, 2, true, nanRes16(fmaToF16(H(a), H(b), H(c)), a, b, c))
ASMEVO_OP32(OpMadF16, Ty::F16, Ty::F16, Ty::F16, Ty::F16, 3, false, HU(H(HU(H(a) * H(b))) + H(c)))
ASMEVO_OP32(OpLdexpF16, Ty::F16, Ty::B32, Ty::B32, Ty::F16, 2, false, HU(std::ldexp(H(a), std::clamp(int32_t(int16_t(b)), -100, 100))))
ASMEVO_OP32(OpMax3F16, Ty::F16, Ty::F16, Ty::F16, Ty::F16, 3, false, minMax16(minMax16(a, b, true), c, true))
ASMEVO_OP32(OpMin3F16, Ty::F16, Ty::F16, Ty::F16, Ty::F16, 3, false, minMax16(minMax16(a, b, false), c, false))
ASMEVO_OP32(OpMed3F16, Ty::F16, Ty::F16, Ty::F16, Ty::F16, 3, false, med3F16(a, b, c))

// 64-bit (ISA 12.10).
ASMEVO_OP64(OpAddF64, Ty::F64, Ty::F64, Ty::B32, Ty::F64, 2, nanRes64(U64(D(a) + D(b)), a, b))
ASMEVO_OP64(OpMulF64, Ty::F64, Ty::F64, Ty::B32, Ty::F64, 2, nanRes64(U64(D(a) * D(b)), a, b))
ASMEVO_OP64(OpFmaF64, Ty::F64, Ty::F64, Ty::F64, Ty::F64, 3, nanRes64(U64(std::fma(D(a), D(b), D(c))), a, b, c))
ASMEVO_OP64(OpMinF64, Ty::F64, Ty::F64, Ty::B32, Ty::F64, 2, U64(fmin64(D(a), D(b))))
ASMEVO_OP64(OpMaxF64, Ty::F64, Ty::F64, Ty::B32, Ty::F64, 2, U64(fmax64(D(a), D(b))))
ASMEVO_OP64(OpLdexpF64, Ty::F64, Ty::B32, Ty::B32, Ty::F64, 2, U64(std::ldexp(D(a), std::clamp(int32_t(uint32_t(b)), -5000, 5000))))
ASMEVO_OP64(OpLshlrevB64, Ty::B32, Ty::B64, Ty::B32, Ty::B64, 2, b << (a & 63))
ASMEVO_OP64(OpLshrrevB64, Ty::B32, Ty::B64, Ty::B32, Ty::B64, 2, b >> (a & 63))
ASMEVO_OP64(OpAshrrevI64, Ty::B32, Ty::B64, Ty::B32, Ty::B64, 2, uint64_t(int64_t(b) >> (a & 63)))
ASMEVO_OP64(OpLshlAddU64, Ty::B64, Ty::B32, Ty::B64, Ty::B64, 3, (a << (b & 7)) + c)
ASMEVO_OP64(OpMovB64, Ty::B64, Ty::B32, Ty::B32, Ty::B64, 1, a)
// clang-format on

//===----------------------------------------------------------------------===//
// Handlers that are not pure lane functions
//===----------------------------------------------------------------------===//

/// V_CNDMASK_B32: D = mask[lane] ? S1 : S0 (mask = VCC or an SGPR pair).
void execCndmask(Wave &W, const DInst &I) {
  alignas(64) uint32_t B0[64], B1[64], R[64];
  uint64_t Mask = activeMask(W, I);
  const uint32_t *A = src32(W, I, 0, Ty::F32, B0, Mask);
  const uint32_t *B = src32(W, I, 1, Ty::F32, B1, Mask);
  uint64_t Sel = W.scalar64(I.Src[2]);
  for (unsigned L = 0; L < 64; ++L)
    R[L] = ((Sel >> L) & 1) ? B[L] : A[L];
  store32(W, I, R, Mask);
}

/// Carry-out adds/subs: D = S0 op S1 [op carry-in]; carry to Def[1].
template <int Kind> void execCarry(Wave &W, const DInst &I) {
  alignas(64) uint32_t B0[64], B1[64], R[64];
  uint64_t Mask = activeMask(W, I);
  const uint32_t *A = src32(W, I, 0, Ty::B32, B0, Mask);
  const uint32_t *B = src32(W, I, 1, Ty::B32, B1, Mask);
  uint64_t CIn = (Kind >= 3) ? W.scalar64(I.Src[2]) : 0;
  uint64_t COut = 0;
  for (unsigned L = 0; L < 64; ++L) {
    uint64_t X = A[L], Y = B[L], Ci = (CIn >> L) & 1, Res;
    bool C;
    switch (Kind) {
    case 0: Res = X + Y; C = Res >> 32; break;            // add_co
    case 1: Res = X - Y; C = Y > X; break;                // sub_co
    case 2: Res = Y - X; C = X > Y; break;                // subrev_co
    case 3: Res = X + Y + Ci; C = Res >> 32; break;       // addc
    case 4: Res = X - Y - Ci; C = Y + Ci > X; break;      // subb
    default: Res = Y - X - Ci; C = X + Ci > Y; break;     // subbrev
    }
    if (I.Clamp && C) // unsigned saturation
      Res = (Kind == 0 || Kind == 3) ? 0xffffffffu : 0;
    R[L] = uint32_t(Res);
    COut |= uint64_t(C) << L;
  }
  store32(W, I, R, Mask);
  if (I.NumDefs > 1)
    storeMask(W, I.Def[1], COut & W.exec());
}

/// V_ADD_U32/V_SUB_U32 with clamp saturate; V_ADD_I32/V_SUB_I32 (VOP3,
/// signed saturation with clamp).
template <int Kind> void execAddSat(Wave &W, const DInst &I) {
  alignas(64) uint32_t B0[64], B1[64], R[64];
  uint64_t Mask = activeMask(W, I);
  const uint32_t *A = src32(W, I, 0, Ty::B32, B0, Mask);
  const uint32_t *B = src32(W, I, 1, Ty::B32, B1, Mask);
  for (unsigned L = 0; L < 64; ++L) {
    switch (Kind) {
    case 0: { // add_u32
      uint64_t S = uint64_t(A[L]) + B[L];
      R[L] = (I.Clamp && (S >> 32)) ? ~0u : uint32_t(S);
      break;
    }
    case 1: // sub_u32
      R[L] = (I.Clamp && B[L] > A[L]) ? 0 : A[L] - B[L];
      break;
    case 2: // subrev_u32
      R[L] = (I.Clamp && A[L] > B[L]) ? 0 : B[L] - A[L];
      break;
    case 3: { // add_i32
      int64_t S = int64_t(int32_t(A[L])) + int32_t(B[L]);
      if (I.Clamp)
        S = std::clamp<int64_t>(S, INT32_MIN, INT32_MAX);
      R[L] = uint32_t(S);
      break;
    }
    default: { // sub_i32
      int64_t S = int64_t(int32_t(A[L])) - int32_t(B[L]);
      if (I.Clamp)
        S = std::clamp<int64_t>(S, INT32_MIN, INT32_MAX);
      R[L] = uint32_t(S);
      break;
    }
    }
  }
  store32(W, I, R, Mask);
}

/// V_FMAMK_F32 (D = S0 * K + S1), V_FMAAK_F32 (D = S0 * S1 + K) and the
/// non-fused MADMK/MADAK; K is the trailing 32-bit constant.
template <bool AK, bool Fused> void execMadK(Wave &W, const DInst &I) {
  alignas(64) uint32_t B0[64], B1[64], R[64];
  uint64_t Mask = activeMask(W, I);
  const uint32_t *A = src32(W, I, 0, Ty::F32, B0, Mask);
  const uint32_t *B = src32(W, I, 1, Ty::F32, B1, Mask);
  float K = F(uint32_t(I.Imm[0]));
  for (unsigned L = 0; L < 64; ++L) {
    float X = F(A[L]), Y = F(B[L]);
    float Res;
    if (!Fused) {
      R[L] = AK ? madFtz(A[L], B[L], uint32_t(I.Imm[0]), false)
                : madFtz(A[L], uint32_t(I.Imm[0]), B[L], false);
      continue;
    }
    Res = AK ? std::fma(X, Y, K) : std::fma(X, K, Y);
    R[L] = U(Res);
  }
  store32(W, I, R, Mask);
}

void execReadlane(Wave &W, const DInst &I) {
  unsigned Lane = W.scalar32(I.Src[1]) & 63;
  W.writeScalar32(I.Def[0], W.vreg(I.Src[0])[Lane]);
}

void execReadfirstlane(Wave &W, const DInst &I) {
  uint64_t E = W.exec();
  unsigned Lane = E ? __builtin_ctzll(E) : 0;
  uint32_t V = I.Src[0].isVector() ? W.vreg(I.Src[0])[Lane]
                                   : W.scalar32(I.Src[0]);
  W.writeScalar32(I.Def[0], V);
}

void execWritelane(Wave &W, const DInst &I) {
  unsigned Lane = W.scalar32(I.Src[1]) & 63;
  W.vreg(I.Def[0])[Lane] = W.scalar32(I.Src[0]);
}

template <bool Hi> void execMbcnt(Wave &W, const DInst &I) {
  alignas(64) uint32_t B0[64], B1[64], R[64];
  uint64_t Mask = W.exec();
  const uint32_t *A = src32(W, I, 0, Ty::B32, B0, Mask);
  const uint32_t *B = src32(W, I, 1, Ty::B32, B1, Mask);
  for (unsigned L = 0; L < 64; ++L) {
    uint64_t ThreadMask = (L == 0) ? 0 : (~0ull >> (64 - L));
    uint32_t Part = Hi ? uint32_t(ThreadMask >> 32) : uint32_t(ThreadMask);
    R[L] = __builtin_popcount(A[L] & Part) + B[L];
  }
  store32(W, I, R, Mask);
}

/// V_MAD_U64_U32 / V_MAD_I64_I32: {D, carry} = S0 * S1 + S2 (64-bit).
template <bool Signed> void execMad64(Wave &W, const DInst &I) {
  alignas(64) uint64_t A[64], B[64], C[64], R[64];
  src64(W, I, 0, Ty::B32, A);
  src64(W, I, 1, Ty::B32, B);
  src64(W, I, 2, Ty::B64, C);
  uint64_t COut = 0;
  for (unsigned L = 0; L < 64; ++L) {
    if (Signed) {
      __int128 P = __int128(int64_t(int32_t(uint32_t(A[L])))) *
                       int64_t(int32_t(uint32_t(B[L]))) +
                   __int128(int64_t(C[L]));
      R[L] = uint64_t(P);
      COut |= uint64_t(P > INT64_MAX || P < INT64_MIN) << L;
    } else {
      unsigned __int128 P =
          (unsigned __int128)(uint32_t(A[L])) * uint32_t(B[L]) + C[L];
      R[L] = uint64_t(P);
      COut |= uint64_t(P >> 64) << L;
    }
  }
  store64(W, I, R, W.exec());
  if (I.NumDefs > 1)
    storeMask(W, I.Def[1], COut & W.exec());
}

// V_DIV_SCALE/FMAS/FIXUP: the pre- and post-steps of the division
// sequence (ISA 12.10, V_DIV_SCALE_F32/F64, V_DIV_FMAS_F32/F64,
// V_DIV_FIXUP_F32/F64 pseudocode).
template <typename T> int fexp(T X) {
  if constexpr (sizeof(T) == 4)
    return int((U(X) >> 23) & 0xff);
  else
    return int((U64(X) >> 52) & 0x7ff);
}

template <typename T> T divScale(T S0, T S1, T S2, bool &Vcc) {
  constexpr bool F32 = sizeof(T) == 4;
  const int Big = F32 ? 96 : 768, Sh = F32 ? 64 : 128, Tiny = F32 ? 23 : 53;
  auto IsDen = [](T X) { return std::fpclassify(X) == FP_SUBNORMAL; };
  Vcc = false;
  T D = S0;
  if (S2 == 0 || S1 == 0)
    return std::numeric_limits<T>::quiet_NaN();
  if (std::isnan(S0) || std::isnan(S1) || std::isnan(S2))
    return std::numeric_limits<T>::quiet_NaN();
  if (fexp(S2) - fexp(S1) >= Big) {
    Vcc = true;
    if (S0 == S1)
      D = std::ldexp(S0, Sh);
  } else if (IsDen(S1)) {
    D = std::ldexp(S0, Sh);
  } else if (IsDen(T(1) / S1) && IsDen(S2 / S1)) {
    Vcc = true;
    if (S0 == S1)
      D = std::ldexp(S0, Sh);
  } else if (IsDen(T(1) / S1)) {
    D = std::ldexp(S0, -Sh);
  } else if (IsDen(S2 / S1)) {
    Vcc = true;
    if (S0 == S2)
      D = std::ldexp(S0, Sh);
  } else if (fexp(S2) <= Tiny) {
    D = std::ldexp(S0, Sh);
  }
  return D;
}

// V_DIV_FIXUP as the guide's pseudocode: a NaN numerator (else
// denominator) is returned quieted, 0/0 and inf/inf give the negative
// default NaN, a final quotient gets the sign of the division (a NaN
// quotient too: "sign_out ? -abs(S0) : abs(S0)"). The underflow branch's
// UNDERFLOW_F32/F64 is not defined by the guide: \p Undoc is set there.
// (exponent(S1) == max is unreachable after the NaN and infinity checks.)
template <typename T> T divFixup(T S0, T S1, T S2, bool &Undoc) {
  constexpr bool F32 = sizeof(T) == 4;
  auto Quiet = [](T X) {
    if constexpr (sizeof(T) == 4)
      return asF(asU(X) | 0x00400000u);
    else
      return asD(asU64(X) | (1ull << 51));
  };
  bool SignOut = std::signbit(S1) != std::signbit(S2);
  T Inf = std::numeric_limits<T>::infinity();
  if (std::isnan(S2))
    return Quiet(S2);
  if (std::isnan(S1))
    return Quiet(S1);
  if ((S1 == 0 && S2 == 0) || (std::isinf(S1) && std::isinf(S2))) {
    if constexpr (F32)
      return asF(0xffc00000u);
    else
      return asD(0xfff8000000000000ull);
  }
  if (S1 == 0 || std::isinf(S2))
    return SignOut ? -Inf : Inf;
  if (std::isinf(S1) || S2 == 0)
    return SignOut ? -T(0) : T(0);
  if (fexp(S2) - fexp(S1) < (F32 ? -150 : -1075)) {
    Undoc = true;
    return SignOut ? -T(0) : T(0);
  }
  return SignOut ? -std::fabs(S0) : std::fabs(S0);
}

void execDivScaleF32(Wave &W, const DInst &I) {
  alignas(64) uint32_t B0[64], B1[64], B2[64], R[64];
  uint64_t Mask = W.exec();
  const uint32_t *A = src32(W, I, 0, Ty::F32, B0, Mask);
  const uint32_t *B = src32(W, I, 1, Ty::F32, B1, Mask);
  const uint32_t *C = src32(W, I, 2, Ty::F32, B2, Mask);
  uint64_t Vcc = 0;
  for (unsigned L = 0; L < 64; ++L) {
    bool V;
    R[L] = U(divScale(F(A[L]), F(B[L]), F(C[L]), V));
    Vcc |= uint64_t(V) << L;
  }
  store32(W, I, R, Mask);
  if (I.NumDefs > 1)
    storeMask(W, I.Def[1], Vcc & Mask);
}

void execDivScaleF64(Wave &W, const DInst &I) {
  alignas(64) uint64_t A[64], B[64], C[64], R[64];
  src64(W, I, 0, Ty::F64, A);
  src64(W, I, 1, Ty::F64, B);
  src64(W, I, 2, Ty::F64, C);
  uint64_t Vcc = 0;
  for (unsigned L = 0; L < 64; ++L) {
    bool V;
    R[L] = U64(divScale(D(A[L]), D(B[L]), D(C[L]), V));
    Vcc |= uint64_t(V) << L;
  }
  store64(W, I, R, W.exec());
  if (I.NumDefs > 1)
    storeMask(W, I.Def[1], Vcc & W.exec());
}

void execDivFmasF32(Wave &W, const DInst &I) {
  alignas(64) uint32_t B0[64], B1[64], B2[64], R[64];
  uint64_t Mask = W.exec();
  const uint32_t *A = src32(W, I, 0, Ty::F32, B0, Mask);
  const uint32_t *B = src32(W, I, 1, Ty::F32, B1, Mask);
  const uint32_t *C = src32(W, I, 2, Ty::F32, B2, Mask);
  uint64_t Vcc = W.scalar64(I.Src[3]);
  for (unsigned L = 0; L < 64; ++L) {
    float Fm = std::fma(F(A[L]), F(B[L]), F(C[L]));
    if ((Vcc >> L) & 1)
      Fm = std::ldexp(Fm, fexp(F(C[L])) >= 127 ? 64 : -64);
    R[L] = U(Fm);
  }
  outMods32(W, I, R);
  store32(W, I, R, Mask);
}

void execDivFmasF64(Wave &W, const DInst &I) {
  alignas(64) uint64_t A[64], B[64], C[64], R[64];
  src64(W, I, 0, Ty::F64, A);
  src64(W, I, 1, Ty::F64, B);
  src64(W, I, 2, Ty::F64, C);
  uint64_t Vcc = W.scalar64(I.Src[3]);
  for (unsigned L = 0; L < 64; ++L) {
    double Fm = std::fma(D(A[L]), D(B[L]), D(C[L]));
    if ((Vcc >> L) & 1)
      Fm = std::ldexp(Fm, fexp(D(C[L])) >= 1023 ? 128 : -128);
    R[L] = U64(Fm);
  }
  store64(W, I, R, W.exec());
}

void execDivFixupF32(Wave &W, const DInst &I) {
  alignas(64) uint32_t B0[64], B1[64], B2[64], R[64];
  uint64_t Mask = W.exec();
  const uint32_t *A = src32(W, I, 0, Ty::F32, B0, Mask);
  const uint32_t *B = src32(W, I, 1, Ty::F32, B1, Mask);
  const uint32_t *C = src32(W, I, 2, Ty::F32, B2, Mask);
  bool Undoc = false;
  for (unsigned L = 0; L < 64; ++L) {
    bool U1 = false;
    R[L] = U(divFixup(F(A[L]), F(B[L]), F(C[L]), U1));
    Undoc |= U1 && ((Mask >> L) & 1);
  }
  if (Undoc) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "v_div_fixup_f32 underflow case (exponent(S2) - "
                "exponent(S1) < -150): UNDERFLOW_F32 is not defined by the ISA");
    return;
  }
  outMods32(W, I, R);
  store32(W, I, R, Mask);
}

void execDivFixupF64(Wave &W, const DInst &I) {
  alignas(64) uint64_t A[64], B[64], C[64], R[64];
  src64(W, I, 0, Ty::F64, A);
  src64(W, I, 1, Ty::F64, B);
  src64(W, I, 2, Ty::F64, C);
  bool Undoc = false;
  for (unsigned L = 0; L < 64; ++L) {
    bool U1 = false;
    R[L] = U64(divFixup(D(A[L]), D(B[L]), D(C[L]), U1));
    Undoc |= U1 && ((W.exec() >> L) & 1);
  }
  if (Undoc) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "v_div_fixup_f64 underflow case (exponent(S2) - "
                "exponent(S1) < -1075): UNDERFLOW_F64 is not defined by the ISA");
    return;
  }
  outMods64(W, I, R);
  store64(W, I, R, W.exec());
}

/// V_FMAC_F64 (gfx90a+): D = S0 * S1 + D, fused.
void execFmacF64(Wave &W, const DInst &I) {
  alignas(64) uint64_t A[64], B[64], R[64];
  uint64_t Mask = W.exec();
  if (I.E != Enc::DPP)
    src64(W, I, 0, Ty::F64, A);
  else if (!dppSrc64(W, I, Ty::F64, A, Mask))
    return;
  src64(W, I, 1, Ty::F64, B);
  const uint32_t *Lo = W.vreg(I.Def[0], 0), *Hi = W.vreg(I.Def[0], 1);
  for (unsigned L = 0; L < 64; ++L) {
    uint64_t C = uint64_t(Lo[L]) | (uint64_t(Hi[L]) << 32);
    R[L] = nanRes64(U64(std::fma(D(A[L]), D(B[L]), D(C))), A[L], B[L], C);
  }
  outMods64(W, I, R);
  store64(W, I, R, Mask);
}

void execNop(Wave &, const DInst &) {}

/// V_ACCVGPR_READ/WRITE/MOV: plain moves between the two halves of the
/// unified register file.
void execAccMove(Wave &W, const DInst &I) {
  alignas(64) uint32_t B0[64];
  uint64_t Mask = W.exec();
  const uint32_t *A = src32(W, I, 0, Ty::B32, B0, Mask);
  store32(W, I, A, Mask);
}

/// V_SWAP_B32: swaps two VGPRs (both are destinations in MC: vdst,
/// vdst1 = src0, and sources are tied).
void execSwap(Wave &W, const DInst &I) {
  uint32_t *X = W.vreg(I.Def[0]), *Y = W.vreg(I.Def[1]);
  uint64_t E = W.exec();
  for (unsigned L = 0; L < 64; ++L)
    if ((E >> L) & 1)
      std::swap(X[L], Y[L]);
}

} // namespace

void emu::registerVALU(SemRegistry &R) {
  auto A = [&](const char *N, ExecFn F, uint8_t Enc = EncAll,
               uint32_t Flags = 0) { R.add(N, F, Enc, Flags); };
  A("V_NOP", execNop);
  A("V_MOV_B32", vop32<OpMovB32>);
  A("V_MOV_B64", vop64<OpMovB64>, EncNoSDWA);
  A("V_ACCVGPR_READ_B32", execAccMove, EncNoDPPSDWA);
  A("V_ACCVGPR_WRITE_B32", execAccMove, EncNoDPPSDWA);
  A("V_ACCVGPR_MOV_B32", execAccMove, EncNoDPPSDWA);
  A("V_SWAP_B32", execSwap, EncNoDPPSDWA);
  A("V_CNDMASK_B32", execCndmask);
  A("V_ADD_U32", execAddSat<0>);
  A("V_SUB_U32", execAddSat<1>);
  A("V_SUBREV_U32", execAddSat<2>);
  A("V_ADD_I32", execAddSat<3>, EncNoDPPSDWA);
  A("V_SUB_I32", execAddSat<4>, EncNoDPPSDWA);
  A("V_ADD_CO_U32", execCarry<0>);
  A("V_SUB_CO_U32", execCarry<1>);
  A("V_SUBREV_CO_U32", execCarry<2>);
  A("V_ADDC_CO_U32", execCarry<3>);
  A("V_SUBB_CO_U32", execCarry<4>);
  A("V_SUBBREV_CO_U32", execCarry<5>);
  A("V_AND_B32", vop32<OpAnd>);
  A("V_OR_B32", vop32<OpOr>);
  A("V_XOR_B32", vop32<OpXor>);
  A("V_XNOR_B32", vop32<OpXnor>);
  A("V_NOT_B32", vop32<OpNot>);
  A("V_LSHLREV_B32", vop32<OpLshlrev>);
  A("V_LSHRREV_B32", vop32<OpLshrrev>);
  A("V_ASHRREV_I32", vop32<OpAshrrev>);
  A("V_MIN_I32", vop32<OpMinI32>);
  A("V_MAX_I32", vop32<OpMaxI32>);
  A("V_MIN_U32", vop32<OpMinU32>);
  A("V_MAX_U32", vop32<OpMaxU32>);
  A("V_MUL_I32_I24", vop32<OpMulI32I24>);
  A("V_MUL_HI_I32_I24", vop32<OpMulHiI32I24>);
  A("V_MUL_U32_U24", vop32<OpMulU32U24>);
  A("V_MUL_HI_U32_U24", vop32<OpMulHiU32U24>);
  A("V_MUL_LO_U32", vop32<OpMulLoU32>, EncNoDPPSDWA);
  A("V_MUL_HI_U32", vop32<OpMulHiU32>, EncNoDPPSDWA);
  A("V_MUL_HI_I32", vop32<OpMulHiI32>, EncNoDPPSDWA);
  A("V_MAD_I32_I24", vop32<OpMadI32I24>, EncNoDPPSDWA);
  A("V_MAD_U32_U24", vop32<OpMadU32U24>, EncNoDPPSDWA);
  A("V_BFE_U32", vop32<OpBfeU32>, EncNoDPPSDWA);
  A("V_BFE_I32", vop32<OpBfeI32>, EncNoDPPSDWA);
  A("V_BFI_B32", vop32<OpBfi>, EncNoDPPSDWA);
  A("V_BFM_B32", vop32<OpBfm>, EncNoDPPSDWA);
  A("V_ALIGNBIT_B32", vop32<OpAlignbit>, EncNoDPPSDWA);
  A("V_ALIGNBYTE_B32", vop32<OpAlignbyte>, EncNoDPPSDWA);
  A("V_PERM_B32", vop32<OpPerm>, EncNoDPPSDWA);
  A("V_LSHL_ADD_U32", vop32<OpLshlAdd>, EncNoDPPSDWA);
  A("V_ADD_LSHL_U32", vop32<OpAddLshl>, EncNoDPPSDWA);
  A("V_ADD3_U32", vop32<OpAdd3>, EncNoDPPSDWA);
  A("V_LSHL_OR_B32", vop32<OpLshlOr>, EncNoDPPSDWA);
  A("V_AND_OR_B32", vop32<OpAndOr>, EncNoDPPSDWA);
  A("V_OR3_B32", vop32<OpOr3>, EncNoDPPSDWA);
  A("V_XAD_U32", vop32<OpXad>, EncNoDPPSDWA);
  A("V_MIN3_I32", vop32<OpMin3I>, EncNoDPPSDWA);
  A("V_MAX3_I32", vop32<OpMax3I>, EncNoDPPSDWA);
  A("V_MED3_I32", vop32<OpMed3I>, EncNoDPPSDWA);
  A("V_MIN3_U32", vop32<OpMin3U>, EncNoDPPSDWA);
  A("V_MAX3_U32", vop32<OpMax3U>, EncNoDPPSDWA);
  A("V_MED3_U32", vop32<OpMed3U>, EncNoDPPSDWA);
  A("V_BCNT_U32_B32", vop32<OpBcnt>, EncNoDPPSDWA);
  A("V_BFREV_B32", vop32<OpBfrev>);
  A("V_FFBH_U32", vop32<OpFfbhU32>);
  A("V_FFBL_B32", vop32<OpFfblB32>);
  A("V_FFBH_I32", vop32<OpFfbhI32>);
  A("V_SAD_U8", vop32<OpSadU8>, EncNoDPPSDWA);
  A("V_SAD_U32", vop32<OpSadU32>, EncNoDPPSDWA);
  A("V_SAD_HI_U8", vop32<OpSadHiU8>, EncNoDPPSDWA);
  A("V_MSAD_U8", vop32<OpMsadU8>, EncNoDPPSDWA);
  A("V_LERP_U8", vop32<OpLerpU8>, EncNoDPPSDWA);
  A("V_ADD_U16", vop32<OpAddU16>);
  A("V_SUB_U16", vop32<OpSubU16>);
  A("V_SUBREV_U16", vop32<OpSubrevU16>);
  A("V_MUL_LO_U16", vop32<OpMulLoU16>);
  A("V_LSHLREV_B16", vop32<OpLshlrevB16>);
  A("V_LSHRREV_B16", vop32<OpLshrrevB16>);
  A("V_ASHRREV_I16", vop32<OpAshrrevI16>);
  A("V_MAX_U16", vop32<OpMaxU16>);
  A("V_MIN_U16", vop32<OpMinU16>);
  A("V_MAX_I16", vop32<OpMaxI16>);
  A("V_MIN_I16", vop32<OpMinI16>);
  A("V_MAD_U16", vop32<OpMadU16>, EncNoDPPSDWA);
  A("V_MAD_I16", vop32<OpMadI16>, EncNoDPPSDWA);
  A("V_MAD_U32_U16", vop32<OpMadU32U16>, EncNoDPPSDWA);
  A("V_MAD_I32_I16", vop32<OpMadI32I16>, EncNoDPPSDWA);
  A("V_MIN3_U16", vop32<OpMin3U16>, EncNoDPPSDWA);
  A("V_MAX3_U16", vop32<OpMax3U16>, EncNoDPPSDWA);
  A("V_MED3_U16", vop32<OpMed3U16>, EncNoDPPSDWA);
  A("V_MIN3_I16", vop32<OpMin3I16>, EncNoDPPSDWA);
  A("V_MAX3_I16", vop32<OpMax3I16>, EncNoDPPSDWA);
  A("V_MED3_I16", vop32<OpMed3I16>, EncNoDPPSDWA);
  A("V_ADD_F32", vop32<OpAddF32>);
  A("V_SUB_F32", vop32<OpSubF32>);
  A("V_SUBREV_F32", vop32<OpSubrevF32>);
  A("V_MUL_F32", vop32<OpMulF32>);
  A("V_MUL_LEGACY_F32", vop32<OpMulLegacyF32>);
  A("V_MIN_F32", vop32<OpMinF32>);
  A("V_MAX_F32", vop32<OpMaxF32>);
  A("V_MIN3_F32", vop32<OpMin3F32>, EncNoDPPSDWA);
  A("V_MAX3_F32", vop32<OpMax3F32>, EncNoDPPSDWA);
  A("V_MED3_F32", vop32<OpMed3F32>, EncNoDPPSDWA);
  A("V_FMA_F32", vop32<OpFmaF32>, EncNoDPPSDWA);
  A("V_FMAC_F32", vop32<OpFmacF32>, EncNoSDWA);
  A("V_MAD_F32", vop32<OpMadF32>, EncNoDPPSDWA);
  A("V_MAC_F32", vop32<OpMacF32>, EncNoSDWA);
  A("V_MAD_LEGACY_F32", vop32<OpMadLegacyF32>, EncNoDPPSDWA);
  A("V_LDEXP_F32", vop32<OpLdexpF32>, EncNoDPPSDWA);
  A("V_FMAMK_F32", execMadK<false, true>, EncNoDPPSDWA);
  A("V_FMAAK_F32", execMadK<true, true>, EncNoDPPSDWA);
  A("V_MADMK_F32", execMadK<false, false>, EncNoDPPSDWA);
  A("V_MADAK_F32", execMadK<true, false>, EncNoDPPSDWA);
  A("V_ADD_F16", vop32<OpAddF16>);
  A("V_SUB_F16", vop32<OpSubF16>);
  A("V_SUBREV_F16", vop32<OpSubrevF16>);
  A("V_MUL_F16", vop32<OpMulF16>);
  A("V_MAX_F16", vop32<OpMaxF16>);
  A("V_MIN_F16", vop32<OpMinF16>);
  A("V_FMA_F16", vop32<OpFmaF16>, EncNoDPPSDWA);
  A("V_MAC_F16", vop32<OpMacF16>, EncNoSDWA);
  A("V_FMAC_F16", vop32<OpFmacF16>, EncNoSDWA);
  A("V_MAD_F16", vop32<OpMadF16>, EncNoDPPSDWA);
  A("V_LDEXP_F16", vop32<OpLdexpF16>);
  A("V_MAX3_F16", vop32<OpMax3F16>, EncNoDPPSDWA);
  A("V_MIN3_F16", vop32<OpMin3F16>, EncNoDPPSDWA);
  A("V_MED3_F16", vop32<OpMed3F16>, EncNoDPPSDWA);
  A("V_ADD_F64", vop64<OpAddF64>, EncNoDPPSDWA);
  A("V_MUL_F64", vop64<OpMulF64>, EncNoDPPSDWA);
  A("V_FMA_F64", vop64<OpFmaF64>, EncNoDPPSDWA);
  A("V_FMAC_F64", execFmacF64, EncNoSDWA);
  A("V_MIN_F64", vop64<OpMinF64>, EncNoDPPSDWA);
  A("V_MAX_F64", vop64<OpMaxF64>, EncNoDPPSDWA);
  A("V_LDEXP_F64", vop64<OpLdexpF64>, EncNoDPPSDWA);
  A("V_LSHLREV_B64", vop64<OpLshlrevB64>, EncNoDPPSDWA);
  A("V_LSHRREV_B64", vop64<OpLshrrevB64>, EncNoDPPSDWA);
  A("V_ASHRREV_I64", vop64<OpAshrrevI64>, EncNoDPPSDWA);
  A("V_LSHL_ADD_U64", vop64<OpLshlAddU64>, EncNoDPPSDWA);
  A("V_MAD_U64_U32", execMad64<false>, EncNoDPPSDWA);
  A("V_MAD_I64_I32", execMad64<true>, EncNoDPPSDWA);
  A("V_READLANE_B32", execReadlane, EncNoDPPSDWA, FScalarDst);
  A("V_READFIRSTLANE_B32", execReadfirstlane, EncNoDPPSDWA, FScalarDst);
  A("V_WRITELANE_B32", execWritelane, EncNoDPPSDWA);
  A("V_MBCNT_LO_U32_B32", execMbcnt<false>, EncNoDPPSDWA);
  A("V_MBCNT_HI_U32_B32", execMbcnt<true>, EncNoDPPSDWA);
  A("V_DIV_SCALE_F32", execDivScaleF32, EncNoDPPSDWA);
  A("V_DIV_SCALE_F64", execDivScaleF64, EncNoDPPSDWA);
  A("V_DIV_FMAS_F32", execDivFmasF32, EncNoDPPSDWA);
  A("V_DIV_FMAS_F64", execDivFmasF64, EncNoDPPSDWA);
  A("V_DIV_FIXUP_F32", execDivFixupF32, EncNoDPPSDWA);
  A("V_DIV_FIXUP_F64", execDivFixupF64, EncNoDPPSDWA);
  registerVALUMad16(R);
}
