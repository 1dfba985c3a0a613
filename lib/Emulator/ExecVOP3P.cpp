//===- ExecVOP3P.cpp - Packed math, dot products, mixed precision ---------===//
//
// CDNA3 ISA 6.4 "Packed Math" and 12.11 (VOP3P opcodes). For each source
// the disassembler's modifier operand carries op_sel (bit 2: which half
// feeds the low result), op_sel_hi (bit 3: which half feeds the high
// result), neg_lo (bit 0) and neg_hi (bit 1). Packed FP32 instructions
// (gfx90a+: V_PK_FMA_F32, V_PK_MUL_F32, V_PK_ADD_F32, V_PK_MOV_B32) work on
// 64-bit register pairs, selecting dwords instead of halves.
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
inline float H(uint32_t X) { return f16ToF32(uint16_t(X)); }
inline uint32_t HU(float X) { return f32ToF16(X); }

/// Source K as 64 lanes of 64 bits: register pair, or a scalar/constant.
/// An inline constant feeds both dwords (ISA 6.4: constants are applied to
/// both halves of a packed operation).
void srcPk64(Wave &W, const DInst &I, unsigned K, uint64_t *Out) {
  const Operand &O = I.Src[K];
  if (O.isVector()) {
    const uint32_t *Lo = W.vreg(O, 0), *Hi = W.vreg(O, 1);
    for (unsigned L = 0; L < 64; ++L)
      Out[L] = uint64_t(Lo[L]) | (uint64_t(Hi[L]) << 32);
    return;
  }
  uint64_t V;
  if (O.Kind == OpKind::Imm)
    V = uint64_t(uint32_t(O.Imm)) | (uint64_t(uint32_t(O.Imm)) << 32);
  else
    V = W.scalar64(O);
  for (unsigned L = 0; L < 64; ++L)
    Out[L] = V;
}

/// Packed FP32: R.lo = op(S[k].sel(op_sel), ...), R.hi = op(S[k].sel(
/// op_sel_hi), ...), neg_lo/neg_hi on each half.
template <int Kind> void execPkF32(Wave &W, const DInst &I) {
  constexpr unsigned N = Kind == 0 ? 3 : Kind == 3 ? 2 : 2;
  alignas(64) uint64_t S[3][64];
  for (unsigned K = 0; K < N; ++K)
    srcPk64(W, I, K, S[K]);
  uint64_t Mask = W.exec();
  uint32_t *DLo = W.vreg(I.Def[0], 0), *DHi = W.vreg(I.Def[0], 1);
  auto Pick = [&](unsigned K, unsigned L, bool HiRes) -> float {
    uint8_t M = I.Src[K].Mods;
    bool Sel = HiRes ? (M & ModOpSel1) : (M & ModOpSel0);
    uint32_t V = uint32_t(S[K][L] >> (Sel ? 32 : 0));
    bool Neg = HiRes ? (M & ModAbs) : (M & ModNeg);
    return F(V ^ (Neg ? 0x80000000u : 0));
  };
  if (Kind == 3) { // V_PK_MOV_B32: lo from src0, hi from src1 (op_sel)
    for (unsigned L = 0; L < 64; ++L) {
      if (!((Mask >> L) & 1))
        continue;
      DLo[L] = uint32_t(S[0][L] >> ((I.Src[0].Mods & ModOpSel0) ? 32 : 0));
      DHi[L] = uint32_t(S[1][L] >> ((I.Src[1].Mods & ModOpSel0) ? 32 : 0));
    }
    return;
  }
  auto Op = [&](float A, float B, float C) {
    return Kind == 0 ? std::fma(A, B, C) : Kind == 1 ? A * B : A + B;
  };
  // The arithmetic first, for every lane (a loop the compiler keeps
  // tight); the NaN rule (nanRes32) only when a result is NaN.
  alignas(64) float Lo[64], Hi[64];
  bool AnyNaN = false;
  for (unsigned L = 0; L < 64; ++L) {
    float C0 = Kind == 0 ? Pick(2, L, false) : 0.0f;
    float C1 = Kind == 0 ? Pick(2, L, true) : 0.0f;
    Lo[L] = Op(Pick(0, L, false), Pick(1, L, false), C0);
    Hi[L] = Op(Pick(0, L, true), Pick(1, L, true), C1);
    AnyNaN |= std::isnan(Lo[L]) | std::isnan(Hi[L]);
  }
  if (LLVM_UNLIKELY(AnyNaN))
    for (unsigned L = 0; L < 64; ++L) {
      float C0 = Kind == 0 ? Pick(2, L, false) : 0.0f;
      float C1 = Kind == 0 ? Pick(2, L, true) : 0.0f;
      Lo[L] = F(nanRes32(U(Lo[L]), U(Pick(0, L, false)),
                         U(Pick(1, L, false)), U(C0)));
      Hi[L] = F(nanRes32(U(Hi[L]), U(Pick(0, L, true)), U(Pick(1, L, true)),
                         U(C1)));
    }
  for (unsigned L = 0; L < 64; ++L) {
    if (!((Mask >> L) & 1))
      continue;
    float X = Lo[L], Y = Hi[L];
    if (I.Clamp) {
      X = std::isnan(X) ? 0.0f : std::fmin(std::fmax(X, 0.0f), 1.0f);
      Y = std::isnan(Y) ? 0.0f : std::fmin(std::fmax(Y, 0.0f), 1.0f);
    }
    DLo[L] = U(X);
    DHi[L] = U(Y);
  }
}

/// 32-bit packed source: an inline constant feeds both halves.
const uint32_t *srcPk32(Wave &W, const DInst &I, unsigned K, uint32_t *Buf) {
  const Operand &O = I.Src[K];
  if (O.isVector())
    return W.vreg(O);
  uint32_t V = W.scalar32(O);
  if (O.Kind == OpKind::Imm && (V >> 16) == 0)
    V |= V << 16;
  for (unsigned L = 0; L < 64; ++L)
    Buf[L] = V;
  return Buf;
}

enum PkKind {
  PkAddF16, PkMulF16, PkFmaF16, PkMaxF16, PkMinF16,
  PkAddU16, PkSubU16, PkAddI16, PkSubI16, PkMulLoU16,
  PkLshl, PkLshr, PkAshr, PkMaxI16, PkMaxU16, PkMinI16, PkMinU16,
  PkMadU16, PkMadI16,
};

template <int Kind> uint16_t pkHalf(uint16_t A, uint16_t B, uint16_t C) {
  switch (Kind) {
  case PkAddF16: return uint16_t(nanRes16(HU(H(A) + H(B)), A, B));
  case PkMulF16: return uint16_t(nanRes16(HU(H(A) * H(B)), A, B));
  case PkFmaF16:
    return uint16_t(nanRes16(fmaToF16(H(A), H(B), H(C)), A, B, C));
  case PkMaxF16: return uint16_t(minMax16(A, B, true));
  case PkMinF16: return uint16_t(minMax16(A, B, false));
  case PkAddU16: case PkAddI16: return uint16_t(A + B);
  case PkSubU16: case PkSubI16: return uint16_t(A - B);
  case PkMulLoU16: return uint16_t(A * B);
  case PkLshl: return uint16_t(B << (A & 15));
  case PkLshr: return uint16_t(B >> (A & 15));
  case PkAshr: return uint16_t(int16_t(B) >> (A & 15));
  case PkMaxI16: return uint16_t(std::max(int16_t(A), int16_t(B)));
  case PkMaxU16: return std::max(A, B);
  case PkMinI16: return uint16_t(std::min(int16_t(A), int16_t(B)));
  case PkMinU16: return std::min(A, B);
  case PkMadU16: return uint16_t(A * B + C);
  case PkMadI16: return uint16_t(int16_t(A) * int16_t(B) + int16_t(C));
  }
  return 0;
}

template <int Kind, unsigned N, bool IsFloat>
void execPk16(Wave &W, const DInst &I) {
  alignas(64) uint32_t B[3][64], R[64];
  const uint32_t *S[3];
  for (unsigned K = 0; K < N; ++K)
    S[K] = srcPk32(W, I, K, B[K]);
  for (unsigned K = N; K < 3; ++K)
    S[K] = S[0];
  for (unsigned L = 0; L < 64; ++L) {
    uint16_t Lo[3], Hi[3];
    for (unsigned K = 0; K < 3; ++K) {
      uint8_t M = K < N ? I.Src[K].Mods : 0;
      uint32_t V = S[K][L];
      Lo[K] = uint16_t((M & ModOpSel0) ? V >> 16 : V);
      Hi[K] = uint16_t((M & ModOpSel1) ? V >> 16 : V);
      if (IsFloat) {
        if (M & ModNeg)
          Lo[K] ^= 0x8000;
        if (M & ModAbs)
          Hi[K] ^= 0x8000;
      }
    }
    uint16_t RL = pkHalf<Kind>(Lo[0], Lo[1], Lo[2]);
    uint16_t RH = pkHalf<Kind>(Hi[0], Hi[1], Hi[2]);
    R[L] = uint32_t(RL) | (uint32_t(RH) << 16);
  }
  if (IsFloat && I.Clamp)
    for (unsigned L = 0; L < 64; ++L) {
      auto C = [](uint16_t X) {
        float Fv = H(X);
        Fv = std::isnan(Fv) ? 0.0f : std::fmin(std::fmax(Fv, 0.0f), 1.0f);
        return HU(Fv);
      };
      R[L] = C(uint16_t(R[L])) | (C(uint16_t(R[L] >> 16)) << 16);
    }
  store32(W, I, R, W.exec());
}

/// V_DOT*: dot products of packed halves/bytes/nibbles plus an accumulator
/// (ISA 12.11). \p Kind: 0 f32_f16, 1 i32_i16, 2 u32_u16, 3 i32_i8,
/// 4 u32_u8, 5 i32_i4, 6 u32_u4. \p Acc2: VOP2 "C" form, accumulator = D.
template <int Kind, bool DstAcc> void execDot(Wave &W, const DInst &I) {
  alignas(64) uint32_t B[3][64], R[64];
  uint64_t Mask = activeMask(W, I);
  // The VOP2 "C" forms have DPP: src0 through the lane permutation.
  const uint32_t *S0 = I.E == Enc::DPP ? src32(W, I, 0, Ty::B32, B[0], Mask)
                                       : srcPk32(W, I, 0, B[0]);
  const uint32_t *S1 = srcPk32(W, I, 1, B[1]);
  const uint32_t *S2 = DstAcc ? W.vreg(I.Def[0]) : src32(W, I, 2, Ty::B32, B[2], Mask);
  for (unsigned L = 0; L < 64; ++L) {
    uint32_t A = S0[L], Bv = S1[L], C = S2[L];
    switch (Kind) {
    case 0: {
      double Sum = double(H(A)) * H(Bv) + double(H(A >> 16)) * H(Bv >> 16);
      R[L] = U(float(Sum + double(F(C))));
      break;
    }
    case 1:
      R[L] = uint32_t(int32_t(int16_t(A)) * int16_t(Bv) +
                      int32_t(int16_t(A >> 16)) * int16_t(Bv >> 16) +
                      int32_t(C));
      break;
    case 2:
      R[L] = (A & 0xffff) * (Bv & 0xffff) + (A >> 16) * (Bv >> 16) + C;
      break;
    case 3: case 4: {
      int32_t Sum = int32_t(C);
      for (unsigned K = 0; K < 4; ++K) {
        uint32_t X = (A >> (8 * K)) & 0xff, Y = (Bv >> (8 * K)) & 0xff;
        Sum += Kind == 3 ? int32_t(int8_t(X)) * int8_t(Y) : int32_t(X * Y);
      }
      R[L] = uint32_t(Sum);
      break;
    }
    default: {
      int32_t Sum = int32_t(C);
      for (unsigned K = 0; K < 8; ++K) {
        int32_t X = (A >> (4 * K)) & 15, Y = (Bv >> (4 * K)) & 15;
        if (Kind == 5) {
          X = X >= 8 ? X - 16 : X;
          Y = Y >= 8 ? Y - 16 : Y;
        }
        Sum += X * Y;
      }
      R[L] = uint32_t(Sum);
      break;
    }
    }
  }
  if (Kind == 0)
    W.M->ApproxBits |= AX_MFMA; // accumulation order of the dot product
  store32(W, I, R, Mask);
}

/// V_MAD_MIX*/V_FMA_MIX*: each source is f32, or (op_sel_hi set) an f16
/// half chosen by op_sel; result f32 (MIX_F32) or f16 into the low/high
/// half (MIXLO/MIXHI).
template <int Out, bool Fused> void execMix(Wave &W, const DInst &I) {
  alignas(64) uint32_t B[3][64], R[64];
  uint64_t Mask = W.exec();
  const uint32_t *S[3];
  for (unsigned K = 0; K < 3; ++K) {
    const Operand &O = I.Src[K];
    if (O.isVector())
      S[K] = W.vreg(O);
    else {
      uint32_t V = W.scalar32(O);
      for (unsigned L = 0; L < 64; ++L)
        B[K][L] = V;
      S[K] = B[K];
    }
  }
  const uint32_t *Old = W.vreg(I.Def[0]);
  for (unsigned L = 0; L < 64; ++L) {
    float V[3];
    for (unsigned K = 0; K < 3; ++K) {
      uint8_t M = I.Src[K].Mods;
      uint32_t X = S[K][L];
      if (M & ModOpSel1)
        V[K] = H((M & ModOpSel0) ? X >> 16 : X);
      else
        V[K] = F(X);
      if (M & ModAbs)
        V[K] = std::fabs(V[K]);
      if (M & ModNeg)
        V[K] = -V[K];
    }
    float Res = Fused ? std::fma(V[0], V[1], V[2]) : V[0] * V[1] + V[2];
    Res = F(nanRes32(U(Res), U(V[0]), U(V[1]), U(V[2])));
    if (I.Clamp)
      Res = std::isnan(Res) ? 0.0f : std::fmin(std::fmax(Res, 0.0f), 1.0f);
    // Fused MIXLO/MIXHI round once, from the exact value, to f16.
    uint32_t R16 = HU(Res);
    if (Fused && !std::isnan(Res)) {
      R16 = fmaToF16(V[0], V[1], V[2]);
      if (I.Clamp) // monotonic: clamping the rounded value is the same
        R16 = HU(std::fmin(std::fmax(H(R16), 0.0f), 1.0f));
    }
    if (Out == 0)
      R[L] = U(Res);
    else if (Out == 1)
      R[L] = (Old[L] & 0xffff0000u) | R16;
    else
      R[L] = (Old[L] & 0xffffu) | (R16 << 16);
  }
  store32(W, I, R, Mask);
}

} // namespace

void emu::registerVOP3P(SemRegistry &R) {
  auto A = [&](const char *N, ExecFn F) { R.add(N, F, EncNoDPPSDWA); };
  A("V_PK_FMA_F32", execPkF32<0>);
  A("V_PK_MUL_F32", execPkF32<1>);
  A("V_PK_ADD_F32", execPkF32<2>);
  A("V_PK_MOV_B32", execPkF32<3>);
  A("V_PK_ADD_F16", execPk16<PkAddF16, 2, true>);
  A("V_PK_MUL_F16", execPk16<PkMulF16, 2, true>);
  A("V_PK_FMA_F16", execPk16<PkFmaF16, 3, true>);
  A("V_PK_MAX_F16", execPk16<PkMaxF16, 2, true>);
  A("V_PK_MIN_F16", execPk16<PkMinF16, 2, true>);
  A("V_PK_ADD_U16", execPk16<PkAddU16, 2, false>);
  A("V_PK_SUB_U16", execPk16<PkSubU16, 2, false>);
  A("V_PK_ADD_I16", execPk16<PkAddI16, 2, false>);
  A("V_PK_SUB_I16", execPk16<PkSubI16, 2, false>);
  A("V_PK_MUL_LO_U16", execPk16<PkMulLoU16, 2, false>);
  A("V_PK_LSHLREV_B16", execPk16<PkLshl, 2, false>);
  A("V_PK_LSHRREV_B16", execPk16<PkLshr, 2, false>);
  A("V_PK_ASHRREV_I16", execPk16<PkAshr, 2, false>);
  A("V_PK_MAX_I16", execPk16<PkMaxI16, 2, false>);
  A("V_PK_MAX_U16", execPk16<PkMaxU16, 2, false>);
  A("V_PK_MIN_I16", execPk16<PkMinI16, 2, false>);
  A("V_PK_MIN_U16", execPk16<PkMinU16, 2, false>);
  A("V_PK_MAD_U16", execPk16<PkMadU16, 3, false>);
  A("V_PK_MAD_I16", execPk16<PkMadI16, 3, false>);
  A("V_DOT2_F32_F16", execDot<0, false>);
  A("V_DOT2_I32_I16", execDot<1, false>);
  A("V_DOT2_U32_U16", execDot<2, false>);
  A("V_DOT4_I32_I8", execDot<3, false>);
  A("V_DOT4_U32_U8", execDot<4, false>);
  A("V_DOT8_I32_I4", execDot<5, false>);
  A("V_DOT8_U32_U4", execDot<6, false>);
  auto C = [&](const char *N, ExecFn F) {
    SemEntry E{F};
    E.Encodings = EncNoSDWA;
    R.add(N, E);
  };
  C("V_DOT2C_F32_F16", execDot<0, true>);
  C("V_DOT2C_I32_I16", execDot<1, true>);
  C("V_DOT4C_I32_I8", execDot<3, true>);
  C("V_DOT8C_I32_I4", execDot<5, true>);
  A("V_MAD_MIX_F32", execMix<0, false>);
  A("V_MAD_MIXLO_F16", execMix<1, false>);
  A("V_MAD_MIXHI_F16", execMix<2, false>);
  A("V_FMA_MIX_F32", execMix<0, true>);
  A("V_FMA_MIXLO_F16", execMix<1, true>);
  A("V_FMA_MIXHI_F16", execMix<2, true>);
}
