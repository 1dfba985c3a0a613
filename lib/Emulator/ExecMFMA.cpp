//===- ExecMFMA.cpp - Matrix fused multiply-add ---------------------------===//
//
// CDNA3 ISA chapter 7 "Matrix Arithmetic Instructions" (7.1 layouts of A,
// B, C/D in registers; AMD's matrix instruction calculator gives the same
// mappings). With Blocks independent M x N x K products per instruction
// and Kl = K * M * Blocks / 64 consecutive k per lane:
//  - A (M x K): lane l holds row l % M of block (l / M) % Blocks, k from
//    Kl * (l / (M * Blocks)) (the calculator's gfx9 input layout: the
//    lanes of all blocks for one k range, then the next k range; the
//    order matters only for 4x4x4f64, the one shape with several blocks
//    and several k ranges);
//  - B (K x N): lane l holds column l % N, the same k range and block;
//  - C/D, one element per lane and register r (cdPos):
//      4x4 (16 blocks): row r, column l % 4, block l / 4;
//      16x16: row 4 * (l / 16) + r % 4, column l % 16, block r / 4;
//      32x32: row 8 * ((r % 16) / 4) + 4 * (l / 32) + r % 4,
//             column l % 32, block r / 16;
//    f64 results, one per register pair p: 16x16x4f64 row 4 * p + l / 16,
//    column l % 16; 4x4x4f64 (4 blocks) row l / 16, column l % 4, block
//    (l / 4) % 4.
// F64 MFMA: BLGP is disallowed on CDNA2; on CDNA3 its bits negate A, B
// and C (bit 0, 1, 2; LLVM prints it as neg:[a,b,c]). CBSZ/ABID are not
// available on the f64 forms (the calculator's instruction tables).
// XF32 (gfx942): f32 inputs, two per lane, in the f32 layout; how the
// inputs are reduced to the xf32 format is not documented, so the
// emulator multiplies the unreduced f32 values (approximated, as every
// float MFMA here).
// V_SMFMAC (gfx942): D += A * B, A 4:2 structured-sparse: each lane holds
// Kl / 2 values of its Kl-long k range of A (the dense layout), two per
// group of four k; Src2 is a VGPR of 2-bit indices, bits [2e+1:2e] of the
// index set naming the k within its group of stored value e. The index
// set is bits [Kl*s + Kl - 1 : Kl*s], s = ABID when CBSZ is 0, else 0
// (the calculator's README). Each index pair must name two positions in
// increasing order (hipSPARSELt's rule); other pairs stop the run.
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
  bool XF32 = false; ///< BLGP's meaning is not settled for xf32: refused.
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
  if (MI.F64Out) {
    // One row per register pair and 16-lane group (the calculator's 64b
    // output layout).
    Reg = MI.M == 4 ? 0 : Row / 4;
    Lane = MI.M == 4 ? 16 * Row + 4 * Blk + Col : 16 * (Row % 4) + Col;
  } else if (MI.M == 4) {
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
  // f64 on CDNA3: BLGP is the negation of A, B, C instead.
  const unsigned Neg = MI.F64Out && W.M->Prog.IsGFX94X ? Blgp : 0;
  const unsigned Lanes = Neg ? 0 : Blgp;
  if ((MI.Blocks == 1 && (Cbsz || Abid)) ||
      (MI.Blocks > 1 && ((1u << Cbsz) > MI.Blocks || Abid >= (1u << Cbsz))) ||
      (MI.F64Out && (Cbsz || Abid)) ||
      (Lanes && (isF8(MI.A) || isF8(MI.B) || MI.F64Out || MI.XF32))) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "MFMA cbsz/abid/blgp value is not modelled for this shape");
    return;
  }
  // Kl consecutive k per lane; lane l holds row (column) l % M (N) of
  // block (l / M) % Blocks, k group l / (M * Blocks).
  const unsigned Kl = MI.K * MI.M * MI.Blocks / 64;
  const unsigned BitsA = inBits(MI.A), BitsB = inBits(MI.B);
  const unsigned Elems = MI.M * MI.N * MI.Blocks / 64;
  // A and B as read from the lanes, lane-major.
  double A[64 * 8], B[64 * 8];
  int64_t AI[64 * 8], BI[64 * 8];
  for (unsigned L = 0; L < 64; ++L)
    for (unsigned E = 0; E < Kl; ++E) {
      uint64_t Ab = packedElem(W, I.Src[0], L, E, BitsA);
      uint64_t Bb = packedElem(W, I.Src[1], blgpLane(Lanes, L), E, BitsB);
      if (MI.IntOut) {
        AI[L * Kl + E] = int8_t(Ab);
        BI[L * Kl + E] = int8_t(Bb);
      } else {
        A[L * Kl + E] = elem(MI.A, Ab);
        B[L * Kl + E] = elem(MI.B, Bb);
      }
    }
  // A separate pass, off the path of every other MFMA.
  if (Neg & 3)
    for (unsigned X = 0; X < 64 * Kl; ++X) {
      if (Neg & 1)
        A[X] = -A[X];
      if (Neg & 2)
        B[X] = -B[X];
    }
  auto AIdx = [&](unsigned Row, unsigned K, unsigned Blk) {
    Blk = ((Blk >> Cbsz) << Cbsz) | Abid;
    return (Row + MI.M * (Blk + MI.Blocks * (K / Kl))) * Kl + K % Kl;
  };
  auto BIdx = [&](unsigned K, unsigned Col, unsigned Blk) {
    return (Col + MI.N * (Blk + MI.Blocks * (K / Kl))) * Kl + K % Kl;
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
          if (Neg & 4)
            Acc = -Acc;
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

/// V_SMFMAC: the stored A values are spread to their k within each group
/// of four (zeros elsewhere), then the product is the dense single-block
/// one with C read from the destination.
void execSmfmac(Wave &W, const DInst &I) {
  const MfmaInfo &MI = *static_cast<const MfmaInfo *>(I.Info);
  const unsigned Cbsz = I.NumImms >= 1 ? unsigned(I.Imm[0]) : 0;
  const unsigned Abid = I.NumImms >= 2 ? unsigned(I.Imm[1]) : 0;
  const unsigned Kl = MI.K * MI.M / 64; // dense k per lane: 8 or 16
  const unsigned Set = Cbsz ? 0 : Abid;
  if (Kl * (Set + 1) > 32) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "SMFMAC abid names no index set of the index register");
    return;
  }
  const unsigned BitsA = inBits(MI.A), BitsB = inBits(MI.B);
  // Per lane, Kl dense k of A (spread from Kl / 2 stored) and of B.
  double A[64 * 16] = {}, B[64 * 16];
  int64_t AI[64 * 16] = {}, BI[64 * 16];
  for (unsigned L = 0; L < 64; ++L) {
    uint32_t Idx = uint32_t(packedElem(W, I.Src[2], L, 0, 32)) >> (Kl * Set);
    for (unsigned E = 0; E < Kl / 2; E += 2) {
      unsigned P0 = (Idx >> (2 * E)) & 3, P1 = (Idx >> (2 * E + 2)) & 3;
      if (P0 >= P1) {
        W.M->report(W, I, Violation::Unimplemented, L,
                    "SMFMAC index pair not two increasing positions");
        return;
      }
      for (unsigned H = 0; H < 2; ++H) {
        uint64_t Ab = packedElem(W, I.Src[0], L, E + H, BitsA);
        unsigned To = L * Kl + 2 * E + (H ? P1 : P0);
        if (MI.IntOut)
          AI[To] = int8_t(Ab);
        else
          A[To] = elem(MI.A, Ab);
      }
    }
    for (unsigned E = 0; E < Kl; ++E) {
      uint64_t Bb = packedElem(W, I.Src[1], L, E, BitsB);
      if (MI.IntOut)
        BI[L * Kl + E] = int8_t(Bb);
      else
        B[L * Kl + E] = elem(MI.B, Bb);
    }
  }
  // Lane of row (column) X, k group G: X + M * G.
  alignas(64) uint32_t Res[16][64];
  const Operand &C = I.Def[0];
  for (unsigned Row = 0; Row < MI.M; ++Row)
    for (unsigned Col = 0; Col < MI.N; ++Col) {
      unsigned R, L;
      cdPos(MI, Row, Col, 0, R, L);
      uint32_t Cv = uint32_t(packedElem(W, C, L, R, 32));
      if (MI.IntOut) {
        uint32_t Acc = Cv;
        for (unsigned K = 0; K < MI.K; ++K) {
          unsigned AL = Row + MI.M * (K / Kl), BL = Col + MI.N * (K / Kl);
          Acc += uint32_t(AI[AL * Kl + K % Kl] * BI[BL * Kl + K % Kl]);
        }
        Res[R][L] = Acc;
      } else {
        double Sum = 0;
        for (unsigned K = 0; K < MI.K; ++K) {
          unsigned AL = Row + MI.M * (K / Kl), BL = Col + MI.N * (K / Kl);
          Sum += A[AL * Kl + K % Kl] * B[BL * Kl + K % Kl];
        }
        Res[R][L] = asU(float(Sum + double(asF(Cv))));
      }
    }
  for (unsigned R = 0; R < MI.M * MI.N / 64; ++R) {
    uint32_t *D = W.vreg(I.Def[0], R);
    for (unsigned L = 0; L < 64; ++L)
      D[L] = Res[R][L];
  }
  W.M->ApproxBits |= MI.IntOut ? 0 : AX_MFMA;
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
    // f64: 16x16x4 one block, 4x4x4 four blocks (gfx942's
    // v_mfma_f64_4x4x4_4b_f64 has the same MC stem).
    {"V_MFMA_F64_16X16X4F64", {16, 16, 4, In::F64, In::F64, false, true}},
    {"V_MFMA_F64_4X4X4F64", {4, 4, 4, In::F64, In::F64, false, true, 4}},
    {"V_MFMA_F32_16X16X8XF32",
     {16, 16, 8, In::F32, In::F32, false, false, 1, true}},
    {"V_MFMA_F32_32X32X4XF32",
     {32, 32, 4, In::F32, In::F32, false, false, 1, true}},
};

/// Sparse shapes: K is the dense K.
const Named SparseTable[] = {
    {"V_SMFMAC_F32_16X16X32_F16", {16, 16, 32, In::F16, In::F16, false, false}},
    {"V_SMFMAC_F32_32X32X16_F16", {32, 32, 16, In::F16, In::F16, false, false}},
    {"V_SMFMAC_F32_16X16X32_BF16",
     {16, 16, 32, In::BF16, In::BF16, false, false}},
    {"V_SMFMAC_F32_32X32X16_BF16",
     {32, 32, 16, In::BF16, In::BF16, false, false}},
    {"V_SMFMAC_I32_16X16X64_I8", {16, 16, 64, In::I8, In::I8, true, false}},
    {"V_SMFMAC_I32_32X32X32_I8", {32, 32, 32, In::I8, In::I8, true, false}},
    {"V_SMFMAC_F32_16X16X64_FP8_FP8",
     {16, 16, 64, In::FP8, In::FP8, false, false}},
    {"V_SMFMAC_F32_16X16X64_FP8_BF8",
     {16, 16, 64, In::FP8, In::BF8, false, false}},
    {"V_SMFMAC_F32_16X16X64_BF8_FP8",
     {16, 16, 64, In::BF8, In::FP8, false, false}},
    {"V_SMFMAC_F32_16X16X64_BF8_BF8",
     {16, 16, 64, In::BF8, In::BF8, false, false}},
    {"V_SMFMAC_F32_32X32X32_FP8_FP8",
     {32, 32, 32, In::FP8, In::FP8, false, false}},
    {"V_SMFMAC_F32_32X32X32_FP8_BF8",
     {32, 32, 32, In::FP8, In::BF8, false, false}},
    {"V_SMFMAC_F32_32X32X32_BF8_FP8",
     {32, 32, 32, In::BF8, In::FP8, false, false}},
    {"V_SMFMAC_F32_32X32X32_BF8_BF8",
     {32, 32, 32, In::BF8, In::BF8, false, false}},
};

} // namespace

void emu::registerMFMA(SemRegistry &R) {
  for (const Named &N : Table) {
    SemEntry E{execMfma, &N.Info, FIsMFMA};
    E.Encodings = 0x01; // native VOP3P only
    R.add(N.Stem, E);
  }
  for (const Named &N : SparseTable) {
    SemEntry E{execSmfmac, &N.Info, FIsMFMA};
    E.Encodings = 0x01;
    R.add(N.Stem, E);
  }
}
