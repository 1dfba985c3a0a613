//===- ExecMFMA.cpp - Matrix fused multiply-add ---------------------------===//
//
// CDNA3 ISA chapter 7 "Matrix Arithmetic Instructions" (7.1 layouts of A,
// B, C/D in registers; AMD's matrix instruction calculator gives the same
// mappings). With Blocks independent M x N x K products per instruction
// and Kl = K * M * Blocks / 64 consecutive k per lane (KG = K / Kl lane
// groups per block):
//  - A (M x K): lane l holds row l % M, k from Kl * ((l / M) % KG), of
//    block l / (M * KG);
//  - B (K x N): lane l holds column l % N, the same k range and block;
//  - C/D, one element per lane and register r (cdPos):
//      4x4 (16 blocks): row r, column l % 4, block l / 4;
//      16x16: row 4 * (l / 16) + r % 4, column l % 16, block r / 4;
//      32x32: row 8 * ((r % 16) / 4) + 4 * (l / 32) + r % 4,
//             column l % 32, block r / 16.
// Products of f16/bf16/fp8 inputs are exact in double; they are summed in
// double in k order and rounded to f32 once: the hardware's accumulation
// order and intermediate rounding differ (reported as approximated).
// CBSZ/ABID (multi-block shapes): block b reads the A block
// ((b >> CBSZ) << CBSZ) | ABID. BLGP: B input lane l reads lane
// l % 32 (1), 32 + l % 32 (2), (l + 16) % 64 (3), 16 * (BLGP - 4) + l % 16
// (4-7). Other uses of these fields stop the run.
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
  unsigned Blocks = 1;
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

/// Where element (Row, Col) of block Blk of C/D is: register and lane.
/// 4x4 shapes keep one block per group of four lanes; 16x16 and 32x32
/// shapes give each block its own group of registers.
void cdPos(const MfmaInfo &MI, unsigned Row, unsigned Col, unsigned Blk,
           unsigned &Reg, unsigned &Lane) {
  if (MI.M == 4) {
    Reg = Row;
    Lane = 4 * Blk + Col;
  } else if (MI.M == 16) {
    Reg = 4 * Blk + Row % 4;
    Lane = 16 * (Row / 4) + Col;
  } else {
    Reg = 16 * Blk + 4 * (Row / 8) + Row % 4;
    Lane = 32 * ((Row / 4) % 2) + Col;
  }
}

/// The lane whose B input lane \p L reads under BLGP \p Blgp (lane
/// group broadcasts and the rotation by 16).
unsigned blgpLane(unsigned Blgp, unsigned L) {
  switch (Blgp) {
  case 1: return L % 32;
  case 2: return 32 + L % 32;
  case 3: return (L + 16) % 64;
  case 4: case 5: case 6: case 7: return 16 * (Blgp - 4) + L % 16;
  default: return L;
  }
}

bool isF8(In T) { return T == In::FP8 || T == In::BF8; }

void execMfma(Wave &W, const DInst &I) {
  const MfmaInfo &MI = *static_cast<const MfmaInfo *>(I.Info);
  const unsigned Cbsz = I.NumImms >= 3 ? unsigned(I.Imm[0]) : 0;
  const unsigned Abid = I.NumImms >= 3 ? unsigned(I.Imm[1]) : 0;
  const unsigned Blgp = I.NumImms >= 3 ? unsigned(I.Imm[2]) : 0;
  // CBSZ/ABID broadcast one A block of each group of 2^CBSZ blocks; it
  // needs that many blocks. BLGP's meaning for the fp8/bf8 and f64 forms
  // is not the lane pattern (f64: negation on CDNA3) and is not modelled.
  if ((MI.Blocks == 1 && (Cbsz || Abid)) ||
      (MI.Blocks > 1 && ((1u << Cbsz) > MI.Blocks || Abid >= (1u << Cbsz))) ||
      (Blgp && (isF8(MI.A) || isF8(MI.B) || MI.F64Out))) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "MFMA cbsz/abid/blgp value is not modelled for this shape");
    return;
  }
  // Kl consecutive k per lane; lane l holds row (column) l % M (N) of
  // k group (l / M) % KG of block l / (M * KG).
  const unsigned Kl = MI.K * MI.M * MI.Blocks / 64, KG = MI.K / Kl;
  const unsigned BitsA = inBits(MI.A), BitsB = inBits(MI.B);
  const unsigned Elems = MI.M * MI.N * MI.Blocks / 64;
  // A and B as read from the lanes, lane-major.
  double A[64 * 8], B[64 * 8];
  int64_t AI[64 * 8], BI[64 * 8];
  for (unsigned L = 0; L < 64; ++L)
    for (unsigned E = 0; E < Kl; ++E) {
      uint64_t Ab = packedElem(W, I.Src[0], L, E, BitsA);
      uint64_t Bb = packedElem(W, I.Src[1], blgpLane(Blgp, L), E, BitsB);
      if (MI.IntOut) {
        AI[L * Kl + E] = int8_t(Ab);
        BI[L * Kl + E] = int8_t(Bb);
      } else {
        A[L * Kl + E] = elem(MI.A, Ab);
        B[L * Kl + E] = elem(MI.B, Bb);
      }
    }
  auto AIdx = [&](unsigned Row, unsigned K, unsigned Blk) {
    Blk = ((Blk >> Cbsz) << Cbsz) | Abid;
    return (Row + MI.M * (K / Kl + KG * Blk)) * Kl + K % Kl;
  };
  auto BIdx = [&](unsigned K, unsigned Col, unsigned Blk) {
    return (Col + MI.N * (K / Kl + KG * Blk)) * Kl + K % Kl;
  };
  // Each block's rows of A and columns of B, k-contiguous (the index
  // arithmetic, broadcasts included, once per element rather than once per
  // product): Blocks * M * K = 64 * Kl elements each.
  const unsigned NK = MI.K;
  double AM[64 * 8], BM[64 * 8];
  int64_t AIM[64 * 8], BIM[64 * 8];
  for (unsigned Blk = 0; Blk < MI.Blocks; ++Blk)
    for (unsigned K = 0; K < NK; ++K) {
      for (unsigned Row = 0; Row < MI.M; ++Row) {
        unsigned To = (Blk * MI.M + Row) * NK + K, From = AIdx(Row, K, Blk);
        if (MI.IntOut)
          AIM[To] = AI[From];
        else
          AM[To] = A[From];
      }
      for (unsigned Col = 0; Col < MI.N; ++Col) {
        unsigned To = (Blk * MI.N + Col) * NK + K, From = BIdx(K, Col, Blk);
        if (MI.IntOut)
          BIM[To] = BI[From];
        else
          BM[To] = B[From];
      }
    }
  alignas(64) uint64_t Res[32][64];
  const Operand &C = I.Src[2];
  for (unsigned Blk = 0; Blk < MI.Blocks; ++Blk)
    for (unsigned Row = 0; Row < MI.M; ++Row)
      for (unsigned Col = 0; Col < MI.N; ++Col) {
        unsigned R, L;
        cdPos(MI, Row, Col, Blk, R, L);
        unsigned AOff = (Blk * MI.M + Row) * NK, BOff = (Blk * MI.N + Col) * NK;
        if (MI.IntOut) {
          int32_t Acc = int32_t(uint32_t(packedElem(W, C, L, R, 32)));
          for (unsigned K = 0; K < NK; ++K)
            Acc = int32_t(uint32_t(Acc) +
                          uint32_t(AIM[AOff + K] * BIM[BOff + K]));
          Res[R][L] = uint32_t(Acc);
        } else if (MI.F64Out) {
          double Acc = asD(packedElem(W, C, L, R, 64));
          for (unsigned K = 0; K < NK; ++K)
            Acc = std::fma(AM[AOff + K], BM[BOff + K], Acc);
          Res[R][L] = asU64(Acc);
        } else {
          double Sum = 0;
          for (unsigned K = 0; K < NK; ++K)
            Sum += AM[AOff + K] * BM[BOff + K];
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
    // Multi-block shapes (M x N x K per block, Blocks blocks).
    {"V_MFMA_F32_32X32X1F32", {32, 32, 1, In::F32, In::F32, false, false, 2}},
    {"V_MFMA_F32_16X16X1F32", {16, 16, 1, In::F32, In::F32, false, false, 4}},
    {"V_MFMA_F32_4X4X1F32", {4, 4, 1, In::F32, In::F32, false, false, 16}},
    {"V_MFMA_F32_32X32X4F16", {32, 32, 4, In::F16, In::F16, false, false, 2}},
    {"V_MFMA_F32_16X16X4F16", {16, 16, 4, In::F16, In::F16, false, false, 4}},
    {"V_MFMA_F32_4X4X4F16", {4, 4, 4, In::F16, In::F16, false, false, 16}},
    {"V_MFMA_F32_32X32X4BF16_1K",
     {32, 32, 4, In::BF16, In::BF16, false, false, 2}},
    {"V_MFMA_F32_16X16X4BF16_1K",
     {16, 16, 4, In::BF16, In::BF16, false, false, 4}},
    {"V_MFMA_F32_4X4X4BF16_1K",
     {4, 4, 4, In::BF16, In::BF16, false, false, 16}},
    {"V_MFMA_I32_32X32X4I8", {32, 32, 4, In::I8, In::I8, true, false, 2}},
    {"V_MFMA_I32_16X16X4I8", {16, 16, 4, In::I8, In::I8, true, false, 4}},
    {"V_MFMA_I32_4X4X4I8", {4, 4, 4, In::I8, In::I8, true, false, 16}},
    // CDNA2's bf16 forms with two bf16 per lane.
    {"V_MFMA_F32_32X32X2BF16",
     {32, 32, 2, In::BF16, In::BF16, false, false, 2}},
    {"V_MFMA_F32_16X16X2BF16",
     {16, 16, 2, In::BF16, In::BF16, false, false, 4}},
    {"V_MFMA_F32_4X4X2BF16", {4, 4, 2, In::BF16, In::BF16, false, false, 16}},
    {"V_MFMA_F32_32X32X4BF16", {32, 32, 4, In::BF16, In::BF16, false, false}},
    {"V_MFMA_F32_16X16X8BF16", {16, 16, 8, In::BF16, In::BF16, false, false}},
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
