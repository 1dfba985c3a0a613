//===- MatrixCases.cpp - DPP, SDWA, packed math, fp8 and MFMA cases -------===//
#include "Cases.h"
#include <cmath>
#include <functional>

#pragma clang fp contract(off)

using namespace asmevo::emu::test;

namespace {
LaneFn C(uint32_t V) {
  return [V](unsigned) { return V; };
}
LaneFn F(std::function<float(unsigned)> G) {
  return [G](unsigned L) { return fbits(G(L)); };
}

// MFMA inputs: a(i,k) = ((i + 2k) mod 5) - 2, b(k,j) = ((3k + j) mod 7) - 3,
// small integers exact in every input format.
int aval(unsigned I, unsigned K) { return int((I + 2 * K) % 5) - 2; }
int bval(unsigned K, unsigned J) { return int((3 * K + J) % 7) - 3; }

enum class In { F16, BF16, FP8, I8 };

uint32_t encode(In T, int V) {
  switch (T) {
  case In::F16: { // small integers: exact binary16
    if (V == 0)
      return 0;
    unsigned A = unsigned(std::abs(V)), E = 0;
    while ((A >> E) > 1)
      ++E;
    uint32_t Man = (A << (10 - E)) & 0x3ff;
    return (V < 0 ? 0x8000u : 0) | ((E + 15) << 10) | Man;
  }
  case In::BF16:
    return fbits(float(V)) >> 16;
  case In::FP8: { // E4M3FNUZ, exponent bias 8
    if (V == 0)
      return 0;
    unsigned A = unsigned(std::abs(V)), E = 0;
    while ((A >> E) > 1)
      ++E;
    uint32_t Man = (A << (3 - E)) & 7;
    return (V < 0 ? 0x80u : 0) | ((E + 8) << 3) | Man;
  }
  case In::I8:
    return uint32_t(uint8_t(int8_t(V)));
  }
  return 0;
}

/// An MFMA case: A at input dwords [2l, 2l+1], B at [128 + 2l, ...]; the
/// result layout (CDNA3 ISA 7.1) is what the checks assume.
Case mfma(const char *Mn, const char *Inst, unsigned M, unsigned K, In T,
          bool IntOut, const char *Arch = "gfx942") {
  unsigned Kl = K * M / 64, Bits = 64 / Kl;
  std::vector<uint32_t> Input(256, 0);
  for (unsigned L = 0; L < 64; ++L) {
    uint64_t A = 0, B = 0;
    for (unsigned E = 0; E < Kl; ++E) {
      unsigned Kk = Kl * (L / M) + E;
      A |= uint64_t(encode(T, aval(L % M, Kk))) << (Bits * E);
      B |= uint64_t(encode(T, bval(Kk, L % M))) << (Bits * E);
    }
    Input[2 * L] = uint32_t(A);
    Input[2 * L + 1] = uint32_t(A >> 32);
    Input[128 + 2 * L] = uint32_t(B);
    Input[128 + 2 * L + 1] = uint32_t(B >> 32);
  }
  unsigned Elems = M * M / 64;
  std::string Asm = std::string(R"(v_lshlrev_b32 v1, 3, v0
          global_load_dwordx2 v[2:3], v1, s[22:23]
          global_load_dwordx2 v[4:5], v1, s[22:23] offset:512
          s_waitcnt vmcnt(0)
          )") + Inst + R"(
          s_nop 15
          s_nop 15
          s_nop 7)";
  std::vector<Check> Checks;
  for (unsigned R = 0; R < Elems; ++R)
    Checks.push_back({"v" + std::to_string(8 + R), [=](unsigned L) {
                        unsigned Row = M == 16 ? 4 * (L / 16) + R
                                               : 8 * (R / 4) + 4 * (L / 32) +
                                                     (R % 4);
                        unsigned Col = L % M;
                        int S = 0;
                        for (unsigned Kk = 0; Kk < K; ++Kk)
                          S += aval(Row, Kk) * bval(Kk, Col);
                        return IntOut ? uint32_t(S) : fbits(float(S));
                      }});
  Case Cs{Mn, "7.1 Matrix fused multiply-add (register layouts)",
          strdup(Asm.c_str()), Checks, Arch};
  Cs.Input = Input;
  return Cs;
}
} // namespace

std::vector<Case> matrixCases() {
  std::vector<Case> V = {
      // 6.2 DPP: quad_perm permutes within quads; row_shr:n reads lane-n of
      // the row, bound_ctrl:0 makes out-of-row sources read 0; row_mirror
      // reverses a row; row_newbcast:n (gfx90a+) broadcasts lane n of each
      // row; row_mask disables rows.
      {"v_mov_b32_dpp v_add_f32_dpp v_mul_f32_dpp v_max_f32_dpp "
       "v_or_b32_dpp v_mul_u32_u24_dpp v_subrev_f32_dpp",
       "6.2 Data Parallel Processing (DPP_CTRL)",
       R"(v_cvt_f32_u32 v1, v0
          v_mov_b32 v9, 7
          v_mov_b32_dpp v2, v0 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
          v_add_f32_dpp v3, v1, v1 row_shr:1 row_mask:0xf bank_mask:0xf bound_ctrl:0
          v_mul_f32_dpp v4, v1, v1 row_mirror row_mask:0xf bank_mask:0xf
          v_max_f32_dpp v5, v1, v1 row_newbcast:15 row_mask:0xf bank_mask:0xf
          v_or_b32_dpp v6, v0, v9 row_shl:2 row_mask:0xf bank_mask:0xf bound_ctrl:0
          v_mul_u32_u24_dpp v7, v0, v0 row_ror:4 row_mask:0xf bank_mask:0xf
          v_mov_b32 v8, 100
          s_nop 1
          v_subrev_f32_dpp v8, v1, v1 quad_perm:[0,0,0,0] row_mask:0x5 bank_mask:0xf)",
       {{"v2", [](unsigned L) { return L ^ 1; }},
        {"v3", F([](unsigned L) { return (L % 16 ? float(L - 1) : 0.0f) + float(L); })},
        {"v4", F([](unsigned L) { return float((L & ~15u) + 15 - L % 16) * float(L); })},
        {"v5", F([](unsigned L) { return std::max(float((L & ~15u) + 15), float(L)); })},
        {"v6", [](unsigned L) { return (L % 16 + 2 < 16 ? L + 2 : 0u) | 7u; }},
        {"v7", [](unsigned L) { return ((L & ~15u) + ((L - 4) & 15)) * L; }},
        {"v8", [](unsigned L) {
           unsigned Row = L / 16;
           return (Row == 0 || Row == 2) ? fbits(float(L) - float(L & ~3u))
                                         : 100u;
         }}}},
      // 6.3 SDWA: byte/word source selects (sext for integers), destination
      // select with UNUSED_PAD (zeros), UNUSED_SEXT, UNUSED_PRESERVE.
      {"v_and_b32_sdwa v_or_b32_sdwa v_lshlrev_b16_sdwa v_lshlrev_b32_sdwa "
       "v_lshrrev_b32_sdwa v_cvt_f16_f32_sdwa",
       "6.3 Sub-Dword Addressing (SDWA)",
       R"(v_mov_b32 v1, 0x8281f0f1
          v_mov_b32 v2, 0x12345678
          v_mov_b32 v3, v2
          v_and_b32_sdwa v3, v1, v2 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE src0_sel:BYTE_0 src1_sel:DWORD
          v_or_b32_sdwa v4, v1, v2 dst_sel:BYTE_2 dst_unused:UNUSED_PAD src0_sel:BYTE_3 src1_sel:BYTE_0
          v_lshlrev_b16_sdwa v5, v0, v1 dst_sel:WORD_0 dst_unused:UNUSED_SEXT src0_sel:DWORD src1_sel:WORD_1
          v_lshlrev_b32_sdwa v6, v0, v1 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_0 src1_sel:BYTE_1
          v_lshrrev_b32_sdwa v7, v0, sext(v1) dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:DWORD src1_sel:BYTE_3
          v_cvt_f32_u32 v8, v0
          v_mov_b32 v9, v2
          v_cvt_f16_f32_sdwa v9, v8 dst_sel:WORD_1 dst_unused:UNUSED_PRESERVE)",
       {{"v3", C(0x00705678)},
        {"v4", C(0x00fa0000)},
        {"v5", [](unsigned L) {
           uint16_t R = uint16_t(0x8281u << (L & 15));
           return uint32_t(int32_t(int16_t(R)));
         }},
        {"v6", [](unsigned L) { return 0xf0u << (L & 31); }},
        {"v7", [](unsigned L) { return uint32_t(int32_t(int8_t(0x82))) >> (L & 31); }},
        {"v9", [](unsigned L) {
           // binary16 of L (L < 64: exact).
           uint32_t H = 0;
           if (L) {
             unsigned E = 0;
             while ((L >> E) > 1)
               ++E;
             H = ((E + 15) << 10) | ((L << (10 - E)) & 0x3ff);
           }
           return (H << 16) | 0x5678u;
         }}}},
      {"v_cmp_eq_u16_sdwa v_cmp_eq_u32_sdwa v_cmp_le_i32_sdwa v_cmp_lt_u16_sdwa",
       "6.3 SDWA, 12.9 VOPC",
       R"(v_lshlrev_b32 v1, 8, v0
          v_mov_b32 v2, 0x50005
          v_cmp_eq_u16_sdwa s[4:5], v1, v2 src0_sel:BYTE_1 src1_sel:WORD_1
          v_cmp_eq_u32_sdwa s[6:7], v0, v2 src0_sel:DWORD src1_sel:BYTE_0
          v_mov_b32 v3, 0xff
          v_cmp_le_i32_sdwa s[8:9], sext(v3), v0 src0_sel:BYTE_0 src1_sel:DWORD
          v_cmp_lt_u16_sdwa s[10:11], v0, v2 src0_sel:WORD_0 src1_sel:WORD_0)",
       {{"s4", C(1u << 5)}, {"s5", C(0)}, {"s6", C(1u << 5)},
        {"s8", C(~0u)}, {"s9", C(~0u)}, {"s10", C(0x1f)}, {"s11", C(0)}}},
      // 6.4 Packed math (packed FP32 on gfx90a+): op_sel picks the dword
      // feeding the low result, op_sel_hi the high one; neg_lo/neg_hi.
      {"v_pk_add_f32 v_pk_mul_f32 v_pk_fma_f32 v_pk_mov_b32",
       "6.4 Packed Math, 12.11 VOP3P",
       R"(v_cvt_f32_u32 v2, v0
          v_mov_b32 v3, 2.0
          v_mov_b32 v4, 1.0
          v_mov_b32 v5, 4.0
          v_pk_add_f32 v[6:7], v[2:3], v[4:5]
          v_pk_mul_f32 v[8:9], v[2:3], v[4:5] op_sel_hi:[0,1]
          v_pk_fma_f32 v[10:11], v[2:3], v[4:5], v[2:3] neg_lo:[0,0,1]
          v_pk_mov_b32 v[12:13], v[2:3], v[4:5] op_sel:[1,0])",
       {{"v6", F([](unsigned L) { return float(L) + 1.0f; })},
        {"v7", F([](unsigned) { return 6.0f; })},
        {"v8", F([](unsigned L) { return float(L); })},
        {"v9", F([](unsigned L) { return float(L) * 4.0f; })},
        {"v10", F([](unsigned L) { return float(L) - float(L); })},
        {"v11", F([](unsigned) { return 2.0f * 4.0f + 2.0f; })},
        {"v12", F([](unsigned) { return 2.0f; })},
        {"v13", F([](unsigned) { return 1.0f; })}}},
      // 7.x: AccVGPR moves (unified register file, accum_offset).
      {"v_accvgpr_write_b32 v_accvgpr_read_b32", "7.1 AccVGPRs",
       R"(v_accvgpr_write_b32 a5, v0
          v_add_u32 v1, 1, v0
          v_accvgpr_write_b32 a6, v1
          s_nop 2
          v_accvgpr_read_b32 v2, a5
          v_accvgpr_read_b32 v3, a6)",
       {{"v2", [](unsigned L) { return L; }},
        {"v3", [](unsigned L) { return L + 1; }}}},
      // 12.10 (gfx940 FP8): V_CVT_PK_FP8_F32 packs two f32 as E4M3FNUZ into
      // the word op_sel picks; V_CVT_PK_F32_FP8 unpacks (SDWA word select).
      // The op_sel write is a dst-sel producer: one wait state before the
      // read (gfx940 dst-sel forwarding rule).
      {"v_cvt_pk_fp8_f32 v_cvt_pk_f32_fp8_sdwa",
       "12.10 VOP3 (FP8 conversions), 6.3 SDWA",
       R"(v_and_b32 v1, 3, v0
          v_cvt_f32_u32 v1, v1
          v_mov_b32 v2, -2.0
          v_mov_b32 v3, 0
          v_cvt_pk_fp8_f32 v3, v1, v2
          v_cvt_pk_fp8_f32 v3, v2, v1 op_sel:[0,0,1]
          s_nop 0
          v_cvt_pk_f32_fp8_sdwa v[4:5], v3 src0_sel:WORD_1)",
       {{"v3", [](unsigned L) {
           uint32_t E[4] = {0x00, 0x40, 0x48, 0x4c}; // 0, 1, 2, 3
           uint32_t M2 = 0xc8;                       // -2
           return E[L & 3] | (M2 << 8) | (M2 << 16) | (E[L & 3] << 24);
         }},
        {"v4", F([](unsigned) { return -2.0f; })},
        {"v5", F([](unsigned L) { return float(L & 3); })}}},
  };
  V.push_back(mfma("v_mfma_f32_16x16x16_f16", "v_mfma_f32_16x16x16_f16 v[8:11], v[2:3], v[4:5], 0", 16, 16, In::F16, false));
  V.push_back(mfma("v_mfma_f32_16x16x16_bf16", "v_mfma_f32_16x16x16_bf16 v[8:11], v[2:3], v[4:5], 0", 16, 16, In::BF16, false));
  V.push_back(mfma("v_mfma_f32_32x32x8_bf16", "v_mfma_f32_32x32x8_bf16 v[8:23], v[2:3], v[4:5], 0", 32, 8, In::BF16, false));
  V.push_back(mfma("v_mfma_i32_16x16x32_i8", "v_mfma_i32_16x16x32_i8 v[8:11], v[2:3], v[4:5], 0", 16, 32, In::I8, true));
  V.push_back(mfma("v_mfma_i32_32x32x16_i8", "v_mfma_i32_32x32x16_i8 v[8:23], v[2:3], v[4:5], 0", 32, 16, In::I8, true));
  V.push_back(mfma("v_mfma_f32_16x16x32_fp8_fp8", "v_mfma_f32_16x16x32_fp8_fp8 v[8:11], v[2:3], v[4:5], 0", 16, 32, In::FP8, false));
  V.push_back(mfma("v_mfma_f32_32x32x16_fp8_fp8", "v_mfma_f32_32x32x16_fp8_fp8 v[8:23], v[2:3], v[4:5], 0", 32, 16, In::FP8, false));
  // The gfx90a names of the same bf16 instructions.
  V.push_back(mfma("v_mfma_f32_16x16x16bf16_1k", "v_mfma_f32_16x16x16bf16_1k v[8:11], v[2:3], v[4:5], 0", 16, 16, In::BF16, false, "gfx90a"));
  V.push_back(mfma("v_mfma_f32_16x16x16f16", "v_mfma_f32_16x16x16f16 v[8:11], v[2:3], v[4:5], 0", 16, 16, In::F16, false, "gfx90a"));
  // gfx90a still has V_MAC_F32 (12.7: D = S0 * S1 + D, not fused).
  V.push_back({"v_mac_f32_e32", "12.7 VOP2",
               R"(v_cvt_f32_u32 v1, v0
          v_mov_b32 v2, 1.0
          v_mac_f32_e32 v2, 4.0, v1)",
               {{"v2", F([](unsigned L) { return 4.0f * float(L) + 1.0f; })}},
               "gfx90a"});
  return V;
}
