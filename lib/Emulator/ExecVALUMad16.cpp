//===- ExecVALUMad16.cpp - 16-bit multiply-adds and the gfx8-era opcodes --===//
//
// V_PK_FMAC_F16, V_MADAK_F16, V_MADMK_F16, the "_LEGACY" 16-bit VOP3 ops
// of gfx9 and V_ADD_I16/V_SUB_I16.
//
// The _LEGACY opcodes are the gfx8 instructions at their gfx8 encodings
// (VOP3 0x1ea-0x1ef; gfx9 moved the new V_MAD_F16 etc. to 0x203-0x207 with
// op_sel): LLVM's gfx9 reals of its V_MAD_F16/V_MAD_U16/V_MAD_I16/
// V_FMA_F16 pseudos are named v_mad_legacy_* / v_fma_legacy_f16, as in
// Mesa ACO's opcode table. Those pseudos write their 16-bit result with the
// high half of the destination zeroed on gfx9 (GCNSubtarget::
// zeroesHigh16BitsOfDest, "derived from experimentation"), while
// V_MADAK_F16, V_MADMK_F16 (like V_MAC_F16) keep it on gfx9.
//
// The non-fused f16 multiply-adds round the product to f16 first, as
// V_MAD_F16 does in ExecVALU.cpp; f16 denormals are kept (LLVM forms them
// only with f16 denormals flushed, so no compiled code depends on either).
//
//===----------------------------------------------------------------------===//
#include "VALUOps.h"
#include <algorithm>

#pragma clang fp contract(off)

using namespace asmevo;
using namespace asmevo::emu;

namespace {

inline float H(uint32_t X) { return f16ToF32(uint16_t(X)); }
inline uint32_t HU(float X) { return f32ToF16(X); }

inline uint32_t madF16(uint32_t A, uint32_t B, uint32_t C) {
  return nanRes16(HU(H(HU(H(A) * H(B))) + H(C)), A, B, C);
}
inline uint32_t fmaF16(uint32_t A, uint32_t B, uint32_t C) {
  return nanRes16(fmaToF16(H(A), H(B), H(C)), A, B, C);
}

/// V_PK_FMAC_F16: each half of D = S0.h * S1.h + D.h, fused.
inline uint32_t pkFmac(uint32_t A, uint32_t B, uint32_t D) {
  return (fmaF16(A, B, D) & 0xffff) |
         (fmaF16(A >> 16, B >> 16, D >> 16) << 16);
}

ASMEVO_OP32(OpPkFmacF16, Ty::B32, Ty::B32, Ty::B32, Ty::B32, 2, true, pkFmac(a, b, c))
ASMEVO_OP32(OpMadLegacyF16, Ty::F16, Ty::F16, Ty::F16, Ty::F16, 3, false, madF16(a, b, c))
ASMEVO_OP32(OpFmaLegacyF16, Ty::F16, Ty::F16, Ty::F16, Ty::F16, 3, false, fmaF16(a, b, c))
ASMEVO_OP32(OpMadLegacyU16, Ty::U16, Ty::U16, Ty::U16, Ty::B32, 3, false, (a * b + c) & 0xffff)
ASMEVO_OP32(OpMadLegacyI16, Ty::U16, Ty::U16, Ty::U16, Ty::B32, 3, false, uint32_t(int16_t(a) * int16_t(b) + int16_t(c)) & 0xffff)

/// What the ISA leaves open for a packed op in VOP2 encodings: neg/abs
/// (which half?) and the output modifiers.
void execPkFmacF16(Wave &W, const DInst &I) {
  for (unsigned K = 0; K < 2; ++K)
    if (I.Src[K].Mods & (ModNeg | ModAbs)) {
      W.M->report(W, I, Violation::Unimplemented, -1,
                  "neg/abs on a V_PK_FMAC_F16 source is not documented");
      return;
    }
  if (I.Clamp || I.Omod) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "clamp/omod on V_PK_FMAC_F16 is not documented");
    return;
  }
  vop32<OpPkFmacF16>(W, I);
}

/// V_MADMK_F16 (D = S0 * K + S1) and V_MADAK_F16 (D = S0 * S1 + K): K is
/// the f16 literal; the high half of D is kept.
template <bool AK> void execMadK16(Wave &W, const DInst &I) {
  alignas(64) uint32_t B0[64], B1[64], R[64];
  uint64_t Mask = activeMask(W, I);
  const uint32_t *A = src32(W, I, 0, Ty::F16, B0, Mask);
  const uint32_t *B = src32(W, I, 1, Ty::F16, B1, Mask);
  const uint32_t *D = W.vreg(I.Def[0]);
  uint32_t K = uint32_t(I.Imm[0]) & 0xffff;
  for (unsigned L = 0; L < 64; ++L) {
    uint32_t V = AK ? madF16(A[L], B[L], K) : madF16(A[L], K, B[L]);
    R[L] = (D[L] & 0xffff0000u) | (V & 0xffff);
  }
  store32(W, I, R, Mask);
}

/// V_MAD_LEGACY_U16/I16: clamp (saturation) is not modelled.
template <class Op> void execMadLegacyInt16(Wave &W, const DInst &I) {
  if (I.Clamp) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "clamp on v_mad_legacy_u16/i16 is not modelled");
    return;
  }
  vop32<Op>(W, I);
}

/// V_ADD_I16 / V_SUB_I16 (gfx9 VOP3): signed 16-bit add/subtract, wrapping,
/// or saturating to [-32768, 32767] with clamp; the result in the low
/// half, the high half zeroed as the other gfx9 VOP3 16-bit ops here do
/// without a destination op_sel (which this does not model).
template <bool Sub> void execAddSubI16(Wave &W, const DInst &I) {
  if (I.Src[0].Mods & ModOpSel1) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "destination op_sel of V_ADD_I16/V_SUB_I16 is not modelled");
    return;
  }
  alignas(64) uint32_t B0[64], B1[64], R[64];
  uint64_t Mask = W.exec();
  const uint32_t *A = src32(W, I, 0, Ty::I16, B0, Mask);
  const uint32_t *B = src32(W, I, 1, Ty::I16, B1, Mask);
  bool Clamp = I.Clamp;
  for (unsigned L = 0; L < 64; ++L) {
    int32_t X = int16_t(A[L]), Y = int16_t(B[L]);
    int32_t V = Sub ? X - Y : X + Y;
    if (Clamp)
      V = std::clamp(V, -32768, 32767);
    R[L] = uint32_t(V) & 0xffff;
  }
  store32(W, I, R, Mask);
}

} // namespace

void emu::registerVALUMad16(SemRegistry &R) {
  R.add("V_PK_FMAC_F16", execPkFmacF16, EncAll);
  R.add("V_MADAK_F16", execMadK16<true>, EncNoDPPSDWA);
  R.add("V_MADMK_F16", execMadK16<false>, EncNoDPPSDWA);
  R.add("V_MAD_LEGACY_F16", vop32<OpMadLegacyF16>, EncNoDPPSDWA);
  R.add("V_FMA_LEGACY_F16", vop32<OpFmaLegacyF16>, EncNoDPPSDWA);
  R.add("V_MAD_LEGACY_U16", execMadLegacyInt16<OpMadLegacyU16>, EncNoDPPSDWA);
  R.add("V_MAD_LEGACY_I16", execMadLegacyInt16<OpMadLegacyI16>, EncNoDPPSDWA);
  R.add("V_ADD_I16", execAddSubI16<false>, EncNoDPPSDWA);
  R.add("V_SUB_I16", execAddSubI16<true>, EncNoDPPSDWA);
}
