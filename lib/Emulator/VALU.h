//===- VALU.h - Operand plumbing shared by the vector ALU handlers -*- C++ -*-//
//
// Every vector ALU handler computes 64 lanes from up to three sources into a
// lane array and hands it to a store helper. The helpers implement what
// the encodings add around the operation (ISA chapter 6 "Vector ALU
// Operations" and 6.1-6.5):
//  - scalar and constant sources are broadcast;
//  - input modifiers neg/abs on float sources (VOP3/SDWA/DPP);
//  - DPP (6.2 "Data Parallel Processing"): src0 read from another lane,
//    row/bank masks, bound_ctrl;
//  - SDWA (6.3): byte/word selection of sources and of the destination;
//  - output modifiers omod and clamp on float results;
//  - EXEC masking.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_EMULATOR_VALU_H
#define ASMEVO_LIB_EMULATOR_VALU_H

#include "asmevo/Emulator/Float.h"
#include "Machine.h"
#include <cmath>

namespace asmevo {
namespace emu {

/// How a source is interpreted (for modifiers and 64-bit assembly).
enum class Ty : uint8_t { B32, F32, F16, B64, F64, I32x, U16, I16 };

constexpr bool is64(Ty T) { return T == Ty::B64 || T == Ty::F64; }

using Lanes32 = uint32_t[64];
using Lanes64 = uint64_t[64];

/// Lanes that DPP lets write, computed by dppSource (exec excluded).
uint64_t dppWriteMask(const DInst &I);
/// Reads src0 through the DPP lane permutation into \p Out; lanes whose
/// source is invalid are cleared from \p Mask unless bound_ctrl reads 0.
void dppPermute(const DInst &I, const uint32_t *Src, uint32_t *Out,
                uint64_t Exec, uint64_t &Mask);

/// src0 of a DPP instruction with a 64-bit operand (gfx90a/gfx94x "DP ALU
/// DPP"), read through the lane permutation into \p Out (a 32-bit source
/// zero-extended), input modifiers applied; \p Mask loses the lanes DPP
/// does not write. LLVM accepts only row_newbcast for these
/// (AMDGPUBaseInfo isLegalDPALU_DPPControl on gfx90a) and splits a 64-bit
/// DPP move with any other control into two 32-bit DPP moves of the halves
/// with the same control (SIInstrInfo::expandMovDPP64), so the whole
/// register pair moves from the source lane, by the 32-bit rules. Returns
/// false (after reporting it as unimplemented) for any other control: what
/// the hardware does with it is not documented.
bool dppSrc64(Wave &W, const DInst &I, Ty T, uint64_t *Out, uint64_t &Mask);

/// SDWA source select (sel 0-3 bytes, 4-5 words, 6 dword).
inline uint32_t sdwaSel(uint32_t V, unsigned Sel, bool Sext) {
  switch (Sel) {
  case 0: case 1: case 2: case 3: {
    uint32_t B = (V >> (8 * Sel)) & 0xff;
    return Sext ? uint32_t(int32_t(int8_t(B))) : B;
  }
  case 4: case 5: {
    uint32_t H = (V >> (16 * (Sel - 4))) & 0xffff;
    return Sext ? uint32_t(int32_t(int16_t(H))) : H;
  }
  default:
    return V;
  }
}

inline uint32_t applyMods32(uint32_t V, uint8_t Mods, Ty T) {
  if (T == Ty::F32) {
    if (Mods & ModAbs)
      V &= 0x7fffffffu;
    if (Mods & ModNeg)
      V ^= 0x80000000u;
  } else if (T == Ty::F16) {
    if (Mods & ModAbs)
      V &= 0x7fffu;
    if (Mods & ModNeg)
      V ^= 0x8000u;
  }
  return V;
}

/// A 32-bit source as 64 lanes. May return a register row directly.
inline const uint32_t *src32(Wave &W, const DInst &I, unsigned K, Ty T,
                             uint32_t *Buf, uint64_t &Mask) {
  const Operand &O = I.Src[K];
  const uint32_t *P;
  if (O.isVector()) {
    P = W.vreg(O);
  } else {
    uint32_t V = W.scalar32(O);
    for (unsigned L = 0; L < 64; ++L)
      Buf[L] = V;
    P = Buf;
  }
  if (I.E == Enc::Native || I.E == Enc::E32 || I.E == Enc::E64) {
    // VOP3 op_sel on 16-bit operands selects the high half.
    if (!(O.Mods & ~ModOpSel1))
      return P;
    if ((O.Mods & ModOpSel0) && (T == Ty::F16 || T == Ty::U16 ||
                                 T == Ty::I16)) {
      for (unsigned L = 0; L < 64; ++L)
        Buf[L] = P[L] >> 16;
      P = Buf;
    }
    if (!(O.Mods & (ModNeg | ModAbs)))
      return P;
    for (unsigned L = 0; L < 64; ++L)
      Buf[L] = applyMods32(P[L], O.Mods, T);
    return Buf;
  }
  if (I.E == Enc::DPP) {
    if (K == 0) {
      alignas(64) uint32_t Tmp[64];
      dppPermute(I, P, Tmp, W.exec(), Mask);
      std::memcpy(Buf, Tmp, sizeof(Tmp));
      P = Buf;
    }
    if (O.Mods & (ModNeg | ModAbs)) {
      for (unsigned L = 0; L < 64; ++L)
        Buf[L] = applyMods32(P[L], O.Mods, T);
      P = Buf;
    }
    return P;
  }
  // SDWA.
  if (K < 2) {
    bool IsFloat = T == Ty::F32 || T == Ty::F16;
    bool Sext = !IsFloat && (O.Mods & ModSext);
    unsigned Sel = I.SrcSel[K];
    if (Sel != 6 || Sext || (IsFloat && (O.Mods & (ModNeg | ModAbs)))) {
      for (unsigned L = 0; L < 64; ++L) {
        uint32_t V = sdwaSel(P[L], Sel, Sext);
        Buf[L] = IsFloat ? applyMods32(V, O.Mods, T) : V;
      }
      P = Buf;
    }
  }
  return P;
}

/// A 64-bit source (register pair, 64-bit constant, or 32-bit value
/// zero-extended when \p T is 32-bit).
inline void src64(Wave &W, const DInst &I, unsigned K, Ty T, uint64_t *Out) {
  const Operand &O = I.Src[K];
  if (!is64(T)) {
    uint64_t Mask = ~0ull;
    alignas(64) uint32_t Buf[64];
    const uint32_t *P = src32(W, I, K, T, Buf, Mask);
    for (unsigned L = 0; L < 64; ++L)
      Out[L] = P[L];
    return;
  }
  if (O.isVector()) {
    const uint32_t *Lo = W.vreg(O, 0), *Hi = W.vreg(O, 1);
    for (unsigned L = 0; L < 64; ++L)
      Out[L] = uint64_t(Lo[L]) | (uint64_t(Hi[L]) << 32);
  } else {
    uint64_t V;
    if (O.Kind == OpKind::Imm && O.Width != 2)
      V = O.Imm;
    else
      V = W.scalar64(O);
    for (unsigned L = 0; L < 64; ++L)
      Out[L] = V;
  }
  if (T == Ty::F64 && (O.Mods & (ModNeg | ModAbs))) {
    for (unsigned L = 0; L < 64; ++L) {
      if (O.Mods & ModAbs)
        Out[L] &= ~(1ull << 63);
      if (O.Mods & ModNeg)
        Out[L] ^= 1ull << 63;
    }
  }
}

/// omod and clamp on f32 results (ISA 6.1.4, "Output Modifiers"); clamp
/// maps NaN to 0 when DX10_CLAMP is set.
inline void outMods32(Wave &W, const DInst &I, uint32_t *R) {
  if (I.Omod) {
    float Mul = I.Omod == 1 ? 2.0f : I.Omod == 2 ? 4.0f : 0.5f;
    for (unsigned L = 0; L < 64; ++L)
      R[L] = asU(asF(R[L]) * Mul);
  }
  if (I.Clamp) {
    bool Dx10 = (W.Mode >> 8) & 1;
    for (unsigned L = 0; L < 64; ++L) {
      float F = asF(R[L]);
      if (std::isnan(F))
        F = Dx10 ? 0.0f : F;
      else
        F = std::fmin(std::fmax(F, 0.0f), 1.0f);
      R[L] = asU(F);
    }
  }
}

inline void outMods16(Wave &W, const DInst &I, uint32_t *R) {
  if (!I.Omod && !I.Clamp)
    return;
  for (unsigned L = 0; L < 64; ++L) {
    float F = f16ToF32(uint16_t(R[L]));
    if (I.Omod)
      F *= I.Omod == 1 ? 2.0f : I.Omod == 2 ? 4.0f : 0.5f;
    if (I.Clamp)
      F = std::isnan(F) ? (((W.Mode >> 8) & 1) ? 0.0f : F)
                        : std::fmin(std::fmax(F, 0.0f), 1.0f);
    R[L] = (R[L] & 0xffff0000u) | f32ToF16(F); // V_MAC_F16 keeps the top
  }
}

inline void outMods64(Wave &W, const DInst &I, uint64_t *R) {
  if (!I.Omod && !I.Clamp)
    return;
  for (unsigned L = 0; L < 64; ++L) {
    double F = asD(R[L]);
    if (I.Omod)
      F *= I.Omod == 1 ? 2.0 : I.Omod == 2 ? 4.0 : 0.5;
    if (I.Clamp)
      F = std::isnan(F) ? (((W.Mode >> 8) & 1) ? 0.0 : F)
                        : std::fmin(std::fmax(F, 0.0), 1.0);
    R[L] = asU64(F);
  }
}

/// Writes a 32-bit result to the VGPR destination under \p Mask.
inline void store32(Wave &W, const DInst &I, const uint32_t *R,
                    uint64_t Mask) {
  uint32_t *D = W.vreg(I.Def[0]);
  if (I.E == Enc::SDWA && (I.DstSel != 6 || I.DstUnused != 0)) {
    unsigned Sel = I.DstSel;
    for (unsigned L = 0; L < 64; ++L) {
      if (!((Mask >> L) & 1))
        continue;
      uint32_t V = R[L], Old = D[L], Out;
      unsigned Shift = Sel < 4 ? 8 * Sel : Sel < 6 ? 16 * (Sel - 4) : 0;
      unsigned Bits = Sel < 4 ? 8 : Sel < 6 ? 16 : 32;
      uint32_t FMask = Bits == 32 ? ~0u : ((1u << Bits) - 1) << Shift;
      uint32_t Field = (V << Shift) & FMask;
      if (I.DstUnused == 2) { // preserve
        Out = (Old & ~FMask) | Field;
      } else if (I.DstUnused == 1 && Bits < 32) { // sign-extend upward
        Out = Field;
        // Nothing lies above a field that ends at bit 31 (WORD_1,
        // BYTE_3); a shift by 32 would be undefined.
        if (((V >> (Bits - 1)) & 1) && Shift + Bits < 32)
          Out |= ~((1u << (Shift + Bits)) - 1);
      } else {
        Out = Field;
      }
      D[L] = Out;
    }
    return;
  }
  if (Mask == AllLanes) {
    std::memcpy(D, R, 64 * 4);
    return;
  }
  for (unsigned L = 0; L < 64; ++L)
    D[L] = ((Mask >> L) & 1) ? R[L] : D[L];
}

inline void store64(Wave &W, const DInst &I, const uint64_t *R,
                    uint64_t Mask) {
  uint32_t *Lo = W.vreg(I.Def[0], 0), *Hi = W.vreg(I.Def[0], 1);
  for (unsigned L = 0; L < 64; ++L)
    if ((Mask >> L) & 1) {
      Lo[L] = uint32_t(R[L]);
      Hi[L] = uint32_t(R[L] >> 32);
    }
}

/// A lane mask result (VOPC, carry-out) to an SGPR pair or VCC.
inline void storeMask(Wave &W, const Operand &D, uint64_t V) {
  W.writeScalar64(D, V);
}

/// The exec mask an instruction runs under, narrowed by DPP's masks.
inline uint64_t activeMask(Wave &W, const DInst &I) {
  uint64_t E = W.exec();
  if (I.E == Enc::DPP)
    E &= dppWriteMask(I);
  return E;
}

/// NaN results of float arithmetic: a NaN source propagates, quieted (the
/// first in source order), and an invalid operation without NaN sources
/// (inf - inf, 0 * inf) gives the default NaN 0x7fc00000 (0x7e00 f16,
/// 0x7ff8000000000000 f64). The host's own answer differs (x86's default
/// NaN is negative, and which NaN source wins depends on the operand
/// order the compiler picked). utils/differential/vmod_reference.py
/// checks this rule.
inline bool isNaN32(uint32_t V) { return (V & 0x7fffffffu) > 0x7f800000u; }
inline bool isNaN16(uint32_t V) { return (V & 0x7fffu) > 0x7c00u; }
inline bool isNaN64(uint64_t V) {
  return (V & ~(1ull << 63)) > 0x7ff0000000000000ull;
}
inline uint32_t nanRes32(uint32_t R, uint32_t A, uint32_t B,
                         uint32_t C = 0) {
  // A NaN source always gives a NaN result: a number is the common case.
  if (LLVM_LIKELY(!isNaN32(R)))
    return R;
  if (isNaN32(A))
    return A | 0x00400000u;
  if (isNaN32(B))
    return B | 0x00400000u;
  if (isNaN32(C))
    return C | 0x00400000u;
  return isNaN32(R) ? 0x7fc00000u : R;
}
inline uint32_t nanRes16(uint32_t R, uint32_t A, uint32_t B,
                         uint32_t C = 0) {
  if (LLVM_LIKELY(!isNaN16(R)))
    return R;
  if (isNaN16(A))
    return (A & 0xffff) | 0x200u;
  if (isNaN16(B))
    return (B & 0xffff) | 0x200u;
  if (isNaN16(C))
    return (C & 0xffff) | 0x200u;
  return isNaN16(R) ? 0x7e00u : R;
}
inline uint64_t nanRes64(uint64_t R, uint64_t A, uint64_t B,
                         uint64_t C = 0) {
  if (LLVM_LIKELY(!isNaN64(R)))
    return R;
  if (isNaN64(A))
    return A | (1ull << 51);
  if (isNaN64(B))
    return B | (1ull << 51);
  if (isNaN64(C))
    return C | (1ull << 51);
  return isNaN64(R) ? 0x7ff8000000000000ull : R;
}

/// IEEE-mode V_MIN_F16/V_MAX_F16 on the bits (widening to f32 would quiet
/// a signalling NaN): a signalling NaN gives itself quieted (src0 first);
/// else a quiet NaN loses against a number, two quiet NaNs give src0;
/// -0 < +0.
inline uint32_t minMax16(uint32_t A, uint32_t B, bool Max) {
  A &= 0xffff;
  B &= 0xffff;
  auto IsSNaN = [](uint32_t V) { return isNaN16(V) && !(V & 0x200); };
  if (IsSNaN(A))
    return A | 0x200;
  if (IsSNaN(B))
    return B | 0x200;
  if (isNaN16(A))
    return isNaN16(B) ? A : B;
  if (isNaN16(B))
    return A;
  float X = f16ToF32(uint16_t(A)), Y = f16ToF32(uint16_t(B));
  if (X == Y)
    return bool(A & 0x8000) != Max ? A : B;
  return (Max ? X > Y : X < Y) ? A : B;
}

/// A * B + C (f16 or f32 values) rounded once to f16. The product is
/// exact in double; the sum and each narrowing round to odd (the sticky
/// bit survives), so the final f16 rounding sees the exact value: a fused
/// op computed in double or float and then rounded to f16 would round
/// twice (a tie in f16 plus a tiny addend lost in the first rounding).
inline uint32_t fmaToF16(float A, float B, float C) {
  double P = double(A) * double(B), Cd = double(C);
  double S = P + Cd;
  if (!std::isfinite(S))
    return f32ToF16(float(S));
  double Bv = S - P, E = (P - (S - Bv)) + (Cd - Bv); // S + E = P + C
  if (E != 0) {
    if ((E > 0) != (S > 0))
      S = std::nextafter(S, 0.0);
    S = asD(asU64(S) | 1);
  }
  float F = float(S);
  if (double(F) != S && std::isfinite(F)) {
    if (std::fabs(double(F)) > std::fabs(S))
      F = std::nextafter(F, 0.0f);
    F = asF(asU(F) | 1);
  }
  return f32ToF16(F);
}

/// Float helpers with the hardware's IEEE-mode min/max (a quiet NaN input
/// loses against a number: ISA V_MIN_F32 "IEEE mode").
inline float fminIEEE(float A, float B) { return std::fmin(A, B); }
inline float fmaxIEEE(float A, float B) { return std::fmax(A, B); }

} // namespace emu
} // namespace asmevo

#endif
