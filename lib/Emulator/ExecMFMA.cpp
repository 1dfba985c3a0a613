//===- ExecMFMA.cpp - Matrix fused multiply-add ---------------------------===//
//
// CDNA3 ISA chapter 7 "Matrix Arithmetic Instructions" (7.1 layouts of A,
// B, C/D in registers). For the single-block shapes implemented here:
//  - A (M x K): lane l holds row i = l % M and, in its register tuple,
//    Kl = K * M / 64 consecutive k starting at Kl * (l / M);
//  - B (K x N): lane l holds column j = l % N, the same k range;
//  - C/D (M x N), one element per lane and register r:
//      16x16: i = 4 * (l / 16) + r,                       j = l % 16
//      32x32: i = 8 * (r / 4) + 4 * (l / 32) + (r % 4),    j = l % 32.
// Products of f16/bf16/fp8 inputs are exact in double; they are summed in
// double in k order and rounded to f32 once: the hardware's accumulation
// order and intermediate rounding differ (reported as approximated).
// cbsz/abid/blgp broadcasts are not modelled and stop the run.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Emulator/Float.h"
#include "Machine.h"
#include "Semantics.h"

using namespace asmevo;
using namespace asmevo::emu;

namespace {

enum class In : uint8_t { F32, F16, BF16, FP8, BF8, I8, F64 };

struct MfmaInfo {
  unsigned M, N, K;
  In A, B;
  bool IntOut, F64Out;
};

unsigned inBits(In T) {
  switch (T) {
  case In::F32: return 32;
  case In::F16: case In::BF16: return 16;
  case In::F64: return 64;
  default: return 8;
  }
}

double elem(In T, uint64_t Bits) {
  switch (T) {
  case In::F32: return asF(uint32_t(Bits));
  case In::F16: return f16ToF32(uint16_t(Bits));
  case In::BF16: return bf16ToF32(uint16_t(Bits));
  case In::FP8: return f8ToF32(uint8_t(Bits), FP8FNUZ);
  case In::BF8: return f8ToF32(uint8_t(Bits), BF8FNUZ);
  case In::I8: return int8_t(Bits);
  case In::F64: return asD(Bits);
  }
  return 0;
}

/// Element \p E of lane \p L of a packed source operand.
uint64_t packedElem(Wave &W, const Operand &O, unsigned L, unsigned E,
                    unsigned Bits) {
  unsigned BitOff = E * Bits;
  unsigned Reg = BitOff / 32, Sh = BitOff % 32;
  uint64_t V;
  if (O.isVector()) {
    V = W.vreg(O, Reg)[L];
    if (Bits == 64)
      V |= uint64_t(W.vreg(O, Reg + 1)[L]) << 32;
  } else {
    V = Bits == 64 ? W.scalar64(O) : W.scalar32(O);
  }
  if (Bits == 64)
    return V;
  return (V >> Sh) & ((1ull << Bits) - 1);
}

void execMfma(Wave &W, const DInst &I) {
  const MfmaInfo &MI = *static_cast<const MfmaInfo *>(I.Info);
  if (I.NumImms >= 3 && (I.Imm[0] || I.Imm[1] || I.Imm[2])) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "MFMA cbsz/abid/blgp broadcast controls are not modelled");
    return;
  }
  const unsigned Kl = MI.K * MI.M / 64;
  const unsigned BitsA = inBits(MI.A), BitsB = inBits(MI.B);
  const unsigned OutRegs = MI.M * MI.N / 64 * (MI.F64Out ? 2 : 1);
  const unsigned Elems = MI.M * MI.N / 64;
  // Gather A and B as matrices.
  double A[32][64], B[64][32];
  int64_t AI[32][64], BI[64][32];
  for (unsigned L = 0; L < 64; ++L) {
    unsigned Row = L % MI.M, K0 = Kl * (L / MI.M);
    for (unsigned E = 0; E < Kl; ++E) {
      uint64_t Ab = packedElem(W, I.Src[0], L, E, BitsA);
      uint64_t Bb = packedElem(W, I.Src[1], L, E, BitsB);
      if (MI.IntOut) {
        AI[Row][K0 + E] = int8_t(Ab);
        BI[K0 + E][L % MI.N] = int8_t(Bb);
      } else {
        A[Row][K0 + E] = elem(MI.A, Ab);
        B[K0 + E][L % MI.N] = elem(MI.B, Bb);
      }
    }
  }
  // C and D element positions.
  alignas(64) uint64_t Res[32][64];
  const Operand &C = I.Src[2];
  for (unsigned R = 0; R < Elems; ++R)
    for (unsigned L = 0; L < 64; ++L) {
      unsigned Row, Col;
      if (MI.M == 16) {
        Row = 4 * (L / 16) + R;
        Col = L % 16;
      } else {
        Row = 8 * (R / 4) + 4 * (L / 32) + (R % 4);
        Col = L % 32;
      }
      if (MI.IntOut) {
        int32_t Acc = int32_t(uint32_t(packedElem(W, C, L, R, 32)));
        for (unsigned K = 0; K < MI.K; ++K)
          Acc = int32_t(uint32_t(Acc) +
                        uint32_t(AI[Row][K] * BI[K][Col]));
        Res[R][L] = uint32_t(Acc);
      } else if (MI.F64Out) {
        double Acc = asD(packedElem(W, C, L, R, 64));
        for (unsigned K = 0; K < MI.K; ++K)
          Acc = std::fma(A[Row][K], B[K][Col], Acc);
        Res[R][L] = asU64(Acc);
      } else {
        double Sum = 0;
        for (unsigned K = 0; K < MI.K; ++K)
          Sum += A[Row][K] * B[K][Col];
        float Cv = asF(uint32_t(packedElem(W, C, L, R, 32)));
        Res[R][L] = asU(float(Sum + double(Cv)));
      }
    }
  // MFMA ignores EXEC (ISA 7.1: all lanes participate).
  for (unsigned R = 0; R < Elems; ++R) {
    if (MI.F64Out) {
      uint32_t *Lo = W.vreg(I.Def[0], 2 * R), *Hi = W.vreg(I.Def[0], 2 * R + 1);
      for (unsigned L = 0; L < 64; ++L) {
        Lo[L] = uint32_t(Res[R][L]);
        Hi[L] = uint32_t(Res[R][L] >> 32);
      }
    } else {
      uint32_t *D = W.vreg(I.Def[0], R);
      for (unsigned L = 0; L < 64; ++L)
        D[L] = uint32_t(Res[R][L]);
    }
  }
  (void)OutRegs;
  W.M->ApproxBits |= MI.IntOut ? 0 : (MI.F64Out ? AX_MFMA_F64 : AX_MFMA);
}

struct Named {
  const char *Stem;
  MfmaInfo Info;
};

const Named Table[] = {
    {"V_MFMA_F32_32X32X2F32", {32, 32, 2, In::F32, In::F32, false, false}},
    {"V_MFMA_F32_16X16X4F32", {16, 16, 4, In::F32, In::F32, false, false}},
    {"V_MFMA_F32_32X32X8F16", {32, 32, 8, In::F16, In::F16, false, false}},
    {"V_MFMA_F32_16X16X16F16", {16, 16, 16, In::F16, In::F16, false, false}},
    {"V_MFMA_F32_32X32X8BF16_1K",
     {32, 32, 8, In::BF16, In::BF16, false, false}},
    {"V_MFMA_F32_16X16X16BF16_1K",
     {16, 16, 16, In::BF16, In::BF16, false, false}},
    {"V_MFMA_I32_32X32X8I8", {32, 32, 8, In::I8, In::I8, true, false}},
    {"V_MFMA_I32_16X16X16I8", {16, 16, 16, In::I8, In::I8, true, false}},
    {"V_MFMA_I32_32X32X16I8", {32, 32, 16, In::I8, In::I8, true, false}},
    {"V_MFMA_I32_16X16X32I8", {16, 16, 32, In::I8, In::I8, true, false}},
    {"V_MFMA_F32_16X16X32_FP8_FP8",
     {16, 16, 32, In::FP8, In::FP8, false, false}},
    {"V_MFMA_F32_16X16X32_FP8_BF8",
     {16, 16, 32, In::FP8, In::BF8, false, false}},
    {"V_MFMA_F32_16X16X32_BF8_FP8",
     {16, 16, 32, In::BF8, In::FP8, false, false}},
    {"V_MFMA_F32_16X16X32_BF8_BF8",
     {16, 16, 32, In::BF8, In::BF8, false, false}},
    {"V_MFMA_F32_32X32X16_FP8_FP8",
     {32, 32, 16, In::FP8, In::FP8, false, false}},
    {"V_MFMA_F32_32X32X16_FP8_BF8",
     {32, 32, 16, In::FP8, In::BF8, false, false}},
    {"V_MFMA_F32_32X32X16_BF8_FP8",
     {32, 32, 16, In::BF8, In::FP8, false, false}},
    {"V_MFMA_F32_32X32X16_BF8_BF8",
     {32, 32, 16, In::BF8, In::BF8, false, false}},
    // V_MFMA_F64_* are left unimplemented: their D layout is not verified.
};

} // namespace

void emu::registerMFMA(SemRegistry &R) {
  for (const Named &N : Table) {
    SemEntry E{execMfma, &N.Info, FIsMFMA};
    E.Encodings = 0x01; // native VOP3P only
    R.add(N.Stem, E);
  }
}
