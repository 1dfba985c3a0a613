//===- VectorCases.cpp - VALU, DPP, SDWA, packed, MFMA cases --------------===//
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
uint32_t maskLo(std::function<bool(unsigned)> P) {
  uint32_t M = 0;
  for (unsigned L = 0; L < 32; ++L)
    M |= uint32_t(P(L)) << L;
  return M;
}
uint32_t maskHi(std::function<bool(unsigned)> P) {
  uint32_t M = 0;
  for (unsigned L = 32; L < 64; ++L)
    M |= uint32_t(P(L)) << (L - 32);
  return M;
}
uint16_t toHalf(float X) { // exact for the small values used here
  uint32_t U = fbits(X);
  if ((U & 0x7fffffff) == 0)
    return uint16_t(U >> 16);
  int E = int((U >> 23) & 0xff) - 127 + 15;
  return uint16_t(((U >> 16) & 0x8000) | (E << 10) | ((U >> 13) & 0x3ff));
}
} // namespace

std::vector<Case> vectorCases() {
  std::vector<Case> V = {
      // 12.7 VOP2 / 12.10 VOP3: 32-bit integer adds; e64 forms of VOP2
      // instructions compute the same.
      {"v_add_u32_e32 v_add_u32_e64 v_sub_u32_e32 v_sub_u32_e64 "
       "v_subrev_u32_e32 v_mov_b32_e32",
       "12.7 VOP2",
       R"(v_mov_b32_e32 v2, 100
          v_add_u32_e32 v1, v0, v2
          v_add_u32_e64 v3, v0, 7
          v_sub_u32_e32 v4, v2, v0
          v_sub_u32_e64 v5, v0, 1
          v_subrev_u32_e32 v6, v0, v2)",
       {{"v1", [](unsigned L) { return 100 + L; }},
        {"v3", [](unsigned L) { return 7 + L; }},
        {"v4", [](unsigned L) { return 100 - L; }},
        {"v5", [](unsigned L) { return L - 1; }},
        {"v6", [](unsigned L) { return 100 - L; }}}},
      // 12.10 VOP3: V_ADD_I32/V_SUB_I32 signed, clamp saturates.
      {"v_add_i32 v_sub_i32", "12.10 VOP3",
       R"(v_mov_b32 v2, 0x7ffffff0
          v_add_i32 v1, v2, v0 clamp
          v_sub_i32 v3, v0, 5)",
       {{"v1", [](unsigned L) { return L <= 15 ? 0x7ffffff0 + L : 0x7fffffffu; }},
        {"v3", [](unsigned L) { return uint32_t(int32_t(L) - 5); }}}},
      // 12.7: carry-out adds write VCC (e32) or an SGPR pair (e64); the
      // carry-in forms read it.
      {"v_add_co_u32_e32 v_addc_co_u32_e32 v_add_co_u32_e64 "
       "v_addc_co_u32_e64 v_sub_co_u32_e32 v_subb_co_u32_e32 "
       "v_subb_co_u32_e64 v_subrev_co_u32_e32 v_subrev_co_u32_e64 "
       "v_subbrev_co_u32_e32 v_subbrev_co_u32_e64",
       "12.7 VOP2, 12.10 VOP3b",
       R"(v_mov_b32 v2, -1
          v_mov_b32 v20, 0
          v_mov_b32 v21, 10
          v_mov_b32 v22, 100
          v_add_co_u32_e32 v1, vcc, v0, v2
          s_nop 1
          v_addc_co_u32_e32 v3, vcc, 0, v20, vcc
          v_add_co_u32_e64 v4, s[4:5], v0, v2
          s_nop 4
          v_addc_co_u32_e64 v5, s[6:7], 0, v21, s[4:5]
          v_sub_co_u32_e32 v6, vcc, 5, v0
          s_nop 1
          v_subb_co_u32_e32 v7, vcc, 60, v20, vcc
          v_subb_co_u32_e64 v8, s[8:9], v22, 0, s[4:5]
          v_subrev_co_u32_e32 v9, vcc, 5, v0
          v_subrev_co_u32_e64 v10, s[10:11], v0, 5
          s_nop 1
          v_subbrev_co_u32_e32 v11, vcc, 0, v22, vcc
          s_nop 4
          v_subbrev_co_u32_e64 v12, s[12:13], 0, v22, s[10:11])",
       {{"v1", [](unsigned L) { return L - 1; }},
        {"v3", [](unsigned L) { return L >= 1 ? 1u : 0u; }},
        {"v5", [](unsigned L) { return L >= 1 ? 11u : 10u; }},
        {"v6", [](unsigned L) { return 5 - L; }},
        {"v7", [](unsigned L) { return L > 5 ? 59u : 60u; }},
        {"v8", [](unsigned L) { return L >= 1 ? 99u : 100u; }},
        {"v9", [](unsigned L) { return L - 5; }},
        {"v10", [](unsigned L) { return 5 - L; }},
        {"v11", [](unsigned L) { return L < 5 ? 99u : 100u; }},
        {"v12", [](unsigned L) { return L > 5 ? 99u : 100u; }}}},
      // 12.7/12.10 bitwise and three-operand integer ops.
      {"v_and_b32_e32 v_and_b32_e64 v_or_b32_e32 v_xor_b32_e32 "
       "v_not_b32_e32 v_and_or_b32 v_or3_b32 v_xad_u32 v_lshl_or_b32 "
       "v_lshl_add_u32 v_add_lshl_u32 v_add3_u32",
       "12.7 VOP2, 12.8 VOP1, 12.10 VOP3",
       R"(v_and_b32_e32 v1, 5, v0
          v_mov_b32 v20, 0xf0
          v_and_b32_e64 v2, v0, v20
          v_or_b32_e32 v3, 0x100, v0
          v_xor_b32_e32 v4, 3, v0
          v_not_b32_e32 v5, v0
          v_mov_b32 v21, 0x40
          v_and_or_b32 v6, v0, 3, v21
          v_mov_b32 v22, 0x1100
          v_or3_b32 v7, v0, v22, 0
          v_xad_u32 v8, v0, 1, 10
          v_lshl_or_b32 v9, v0, 4, 1
          v_lshl_add_u32 v10, v0, 2, 3
          v_add_lshl_u32 v11, v0, 1, 3
          v_add3_u32 v12, v0, 10, v0)",
       {{"v1", [](unsigned L) { return L & 5; }},
        {"v2", [](unsigned L) { return L & 0xf0; }},
        {"v3", [](unsigned L) { return L | 0x100; }},
        {"v4", [](unsigned L) { return L ^ 3; }},
        {"v5", [](unsigned L) { return ~L; }},
        {"v6", [](unsigned L) { return (L & 3) | 0x40; }},
        {"v7", [](unsigned L) { return L | 0x1100; }},
        {"v8", [](unsigned L) { return (L ^ 1) + 10; }},
        {"v9", [](unsigned L) { return (L << 4) | 1; }},
        {"v10", [](unsigned L) { return (L << 2) + 3; }},
        {"v11", [](unsigned L) { return (L + 1) << 3; }},
        {"v12", [](unsigned L) { return 2 * L + 10; }}}},
      // Shifts (12.7: *REV shift S1 by S0).
      {"v_lshlrev_b32_e32 v_lshrrev_b32_e32 v_ashrrev_i32_e32 "
       "v_lshlrev_b16_e32 v_lshrrev_b16_e32 v_lshlrev_b64 v_lshl_add_u64",
       "12.7 VOP2, 12.10 VOP3",
       R"(v_lshlrev_b32_e32 v1, 3, v0
          v_lshrrev_b32_e32 v2, 1, v0
          v_mov_b32 v3, -256
          v_ashrrev_i32_e32 v4, 4, v3
          v_mov_b32 v5, 0xff01
          v_lshlrev_b16_e32 v6, 4, v5
          v_lshrrev_b16_e32 v7, 4, v5
          v_mov_b32 v8, v0
          v_mov_b32 v9, 0
          v_lshlrev_b64 v[10:11], 31, v[8:9]
          v_lshl_add_u64 v[12:13], v[8:9], 3, v[10:11])",
       {{"v1", [](unsigned L) { return L << 3; }},
        {"v2", [](unsigned L) { return L >> 1; }},
        {"v4", C(uint32_t(-16))},
        {"v6", C(0xf010)},
        {"v7", C(0x0ff0)},
        {"v10", [](unsigned L) { return L << 31; }},
        {"v11", [](unsigned L) { return L >> 1; }},
        {"v12", [](unsigned L) { return (L << 31) + (L << 3); }},
        {"v13", [](unsigned L) { return L >> 1; }}}},
      // 12.10: bit-field and bit ops.
      {"v_bfe_u32 v_bfe_i32 v_bfrev_b32_e32 v_ffbh_u32_e32 v_bcnt_u32_b32 "
       "v_perm_b32",
       "12.8 VOP1, 12.10 VOP3",
       R"(v_bfe_u32 v1, v0, 2, 3
          v_bfe_i32 v2, v0, 2, 3
          v_bfrev_b32_e32 v3, v0
          v_ffbh_u32_e32 v4, v0
          v_bcnt_u32_b32 v5, v0, 60
          v_mov_b32 v6, 0x11223344
          v_mov_b32 v7, 0x55667788
          s_mov_b32 s4, 0x0c050400
          v_perm_b32 v8, v6, v7, s4)",
       {{"v1", [](unsigned L) { return (L >> 2) & 7; }},
        {"v2",
         [](unsigned L) { return uint32_t(int32_t(((L >> 2) & 7) << 29) >> 29); }},
        {"v3",
         [](unsigned L) {
           uint32_t R = 0;
           for (unsigned B = 0; B < 32; ++B)
             R |= ((L >> B) & 1) << (31 - B);
           return R;
         }},
        {"v4", [](unsigned L) { return L ? uint32_t(__builtin_clz(L)) : ~0u; }},
        {"v5", [](unsigned L) { return uint32_t(__builtin_popcount(L)) + 60; }},
        // Bytes of {S0,S1}: 0..3 = S1, 4..7 = S0; selector 12 gives 0.
        {"v8", C(0x00334488)}}},
      // 12.10: multiplies.
      {"v_mul_lo_u32 v_mul_hi_u32 v_mul_i32_i24_e32 v_mul_i32_i24_e64 "
       "v_mul_u32_u24_e32 v_mad_u32_u24 v_mad_i32_i24 v_mad_u64_u32",
       "12.7 VOP2, 12.10 VOP3",
       R"(v_mov_b32 v2, 0x10000001
          v_mov_b32 v3, 0
          v_mul_lo_u32 v1, v0, v2
          v_mov_b32 v4, 0xffffff
          v_mul_i32_i24_e32 v5, v4, v0
          v_mul_i32_i24_e64 v6, v0, -2
          v_mul_u32_u24_e32 v7, v4, v0
          v_mad_u32_u24 v8, v0, v0, 5
          v_mad_i32_i24 v9, v4, v0, 1
          v_mad_u64_u32 v[10:11], s[4:5], v2, v0, v[2:3]
          v_mul_hi_u32 v3, v0, v2)",
       {{"v1", [](unsigned L) { return L * 0x10000001u; }},
        {"v3", [](unsigned L) { return uint32_t((uint64_t(L) * 0x10000001u) >> 32); }},
        {"v5", [](unsigned L) { return uint32_t(-int32_t(L)); }},
        {"v6", [](unsigned L) { return uint32_t(-2 * int32_t(L)); }},
        {"v7", [](unsigned L) { return uint32_t(0xffffffull * L); }},
        {"v8", [](unsigned L) { return L * L + 5; }},
        {"v9", [](unsigned L) { return uint32_t(1 - int32_t(L)); }},
        {"v10", [](unsigned L) { return uint32_t(0x10000001ull * L + 0x10000001u); }}}},
      // 12.7 min/max.
      {"v_min_u32_e32 v_min_i32_e32 v_max_i32_e32", "12.7 VOP2",
       R"(v_min_u32_e32 v1, 10, v0
          v_sub_u32 v2, v0, 20
          v_min_i32_e32 v3, 0, v2
          v_max_i32_e32 v4, 0, v2)",
       {{"v1", [](unsigned L) { return std::min(L, 10u); }},
        {"v3", [](unsigned L) { return uint32_t(std::min(0, int32_t(L) - 20)); }},
        {"v4", [](unsigned L) { return uint32_t(std::max(0, int32_t(L) - 20)); }}}},
      // 12.7/12.8: moves and selects; V_CNDMASK picks S1 where the mask bit
      // is set.
      {"v_mov_b64_e32 v_cndmask_b32_e32 v_cndmask_b32_e64 v_nop",
       "12.7 VOP2, 12.8 VOP1",
       R"(s_mov_b32 s4, 7
          s_mov_b32 s5, 9
          v_mov_b64_e32 v[2:3], s[4:5]
          v_nop
          s_mov_b64 vcc, 0xff
          v_cndmask_b32_e32 v4, 1, v0, vcc
          s_mov_b64 s[6:7], 0xf0
          v_cndmask_b32_e64 v5, v0, 2, s[6:7])",
       {{"v2", C(7)}, {"v3", C(9)},
        {"v4", [](unsigned L) { return L < 8 ? L : 1u; }},
        {"v5", [](unsigned L) { return (L >= 4 && L < 8) ? 2u : L; }}}},
      // 12.8/12.10: lane access.
      {"v_readfirstlane_b32 v_readlane_b32 v_writelane_b32 "
       "v_mbcnt_lo_u32_b32 v_mbcnt_hi_u32_b32",
       "12.8 VOP1, 12.10 VOP3",
       R"(v_add_u32 v1, 40, v0
          s_mov_b64 exec, 0xf0
          v_readfirstlane_b32 s4, v1
          s_mov_b64 exec, -1
          v_readlane_b32 s5, v1, 17
          v_mov_b32 v2, 0
          s_nop 4
          v_writelane_b32 v2, s5, 3
          v_mbcnt_lo_u32_b32 v3, -1, 0
          v_mbcnt_hi_u32_b32 v3, -1, v3
          s_nop 4
          v_mov_b32 v4, s4
          v_mov_b32 v5, s5)",
       {{"v4", C(44)}, {"v5", C(57)},
        {"v2", [](unsigned L) { return L == 3 ? 57u : 0u; }},
        {"v3", [](unsigned L) { return L; }}}},
      // 12.7/12.10 f32 arithmetic, round to nearest even.
      {"v_add_f32_e32 v_add_f32_e64 v_sub_f32_e32 v_mul_f32_e32 "
       "v_mul_f32_e64 v_fma_f32 v_fmac_f32_e32 v_fmamk_f32 "
       "v_cvt_f32_u32_e32",
       "12.7 VOP2, 12.10 VOP3",
       R"(v_cvt_f32_u32_e32 v1, v0
          v_add_f32_e32 v2, 0.5, v1
          v_add_f32_e64 v3, -v1, |v2|
          v_sub_f32_e32 v4, v1, v2
          v_mul_f32_e32 v5, 0x3e800000, v1
          v_mul_f32_e64 v6, v1, v1 mul:2
          v_fma_f32 v7, v1, v1, 1.0
          v_mov_b32 v8, 2.0
          v_fmac_f32_e32 v8, v1, v1
          v_mov_b32 v9, 1.0
          v_fmac_f32_e32 v9, 4.0, v1
          v_fmamk_f32 v10, v1, 0x40400000, v8)",
       {{"v2", F([](unsigned L) { return float(L) + 0.5f; })},
        {"v3", F([](unsigned L) { return 0.5f; })},
        {"v4", F([](unsigned L) { return -0.5f; })},
        {"v5", F([](unsigned L) { return float(L) * 0.25f; })},
        {"v6", F([](unsigned L) { return float(L) * float(L) * 2.0f; })},
        {"v7", F([](unsigned L) { return float(L) * float(L) + 1.0f; })},
        {"v8", F([](unsigned L) { return float(L) * float(L) + 2.0f; })},
        {"v9", F([](unsigned L) { return 4.0f * float(L) + 1.0f; })},
        {"v10", F([](unsigned L) { return float(L) * 3.0f + float(L) * float(L) + 2.0f; })}}},
      // 12.10 VOP3: V_MAD_U32_U16 / V_MAD_I32_I16 (16-bit product, 32-bit
      // accumulator); 16-bit min3/max3/med3, signed and unsigned.
      {"v_mad_u32_u16 v_mad_i32_i16 v_min3_u16 v_max3_u16 v_med3_u16 "
       "v_min3_i16 v_max3_i16 v_med3_i16", "12.10 VOP3",
       R"(v_mov_b32 v1, 0xffff
          v_mov_b32 v2, 0x18000
          v_mad_u32_u16 v3, v1, v0, v2
          v_mad_i32_i16 v4, v1, v0, 7
          v_mov_b32 v13, 0x8000
          v_mov_b32 v14, 0xfff0
          v_mad_i32_i16 v5, v13, 2, v0
          v_min3_u16 v6, v0, v14, 5
          v_max3_u16 v7, v0, v14, 5
          v_med3_u16 v8, v0, v14, 5
          v_sub_u16 v9, 0, v0
          v_min3_i16 v10, v9, -3, 5
          v_max3_i16 v11, v9, -3, 5
          v_med3_i16 v12, v9, -3, 5)",
       {{"v3", [](unsigned L) { return 0xffffu * L + 0x18000u; }},
        {"v4", [](unsigned L) { return uint32_t(7 - int(L)); }},
        {"v5", [](unsigned L) { return uint32_t(int(L) - 0x10000); }},
        {"v6", [](unsigned L) { return std::min(L, 5u); }},
        {"v7", [](unsigned) { return 0xfff0u; }},
        {"v8", [](unsigned L) { return std::max(L, 5u); }},
        {"v10", [](unsigned L) { return uint32_t(std::min(-int(L), -3)) & 0xffff; }},
        {"v11", [](unsigned L) { return uint32_t(std::max(-int(L), 5)) & 0xffff; }},
        {"v12", [](unsigned L) { return uint32_t(std::clamp(-int(L), -3, 5)) & 0xffff; }}}},
      // 12.7 min/max (IEEE mode: a NaN operand returns the other),
      // 12.10 V_MAX3_F32, V_MAX_F64, V_LDEXP_F32, 12.8 V_TRUNC_F32.
      {"v_max_f32_e32 v_max_f32_e64 v_min_f32_e32 v_max3_f32 v_max_f64 "
       "v_ldexp_f32 v_trunc_f32_e32 v_cvt_f32_i32_e32",
       "12.7 VOP2, 12.8 VOP1, 12.10 VOP3",
       R"(v_sub_u32 v1, v0, 32
          v_cvt_f32_i32_e32 v1, v1
          v_mov_b32 v2, 0x7fc00000
          v_max_f32_e32 v3, v2, v1
          v_max_f32_e64 v4, |v1|, 1.0
          v_min_f32_e32 v5, 0, v1
          v_max3_f32 v6, v1, -4.0, 2.0
          v_cvt_f64_f32 v[8:9], v1
          v_max_f64 v[10:11], v[8:9], 0
          v_cvt_f32_f64 v12, v[10:11]
          v_ldexp_f32 v13, v1, 3
          v_mov_b32 v14, 0xc0600000
          v_trunc_f32_e32 v15, v14)",
       {{"v3", F([](unsigned L) { return float(int(L) - 32); })},
        {"v4", F([](unsigned L) { return std::max(std::fabs(float(int(L) - 32)), 1.0f); })},
        {"v5", F([](unsigned L) { return std::min(0.0f, float(int(L) - 32)); })},
        {"v6", F([](unsigned L) { return std::max(float(int(L) - 32), 2.0f); })},
        {"v12", F([](unsigned L) { return std::max(float(int(L) - 32), 0.0f); })},
        {"v13", F([](unsigned L) { return float(int(L) - 32) * 8.0f; })},
        {"v15", F([](unsigned) { return -3.0f; })}}},
      // 12.8 conversions: float to int truncates toward zero and saturates;
      // V_CVT_U32_F32 of a negative value is 0.
      {"v_cvt_i32_f32_e32 v_cvt_u32_f32_e32 v_cvt_f64_f32_e32 "
       "v_cvt_f32_f64_e32",
       "12.8 VOP1",
       R"(v_sub_u32 v1, v0, 32
          v_cvt_f32_i32 v1, v1
          v_mul_f32 v1, 0x3fc00000, v1
          v_cvt_i32_f32_e32 v2, v1
          v_cvt_u32_f32_e32 v3, v1
          v_mov_b32 v4, 0x7f800000
          v_cvt_i32_f32_e32 v5, v4
          v_cvt_f64_f32_e32 v[6:7], v1
          v_cvt_f32_f64_e32 v8, v[6:7])",
       {{"v2", [](unsigned L) { return uint32_t(int32_t(1.5f * float(int(L) - 32))); }},
        {"v3", [](unsigned L) { return L < 32 ? 0u : uint32_t(1.5f * float(L - 32)); }},
        {"v5", C(0x7fffffff)},
        {"v8", F([](unsigned L) { return 1.5f * float(int(L) - 32); })}}},
      // 12.8/12.10: f16 conversions (round to nearest even; PKRTZ rounds
      // toward zero), V_PACK_B32_F16.
      {"v_cvt_f16_f32_e32 v_cvt_f16_f32_e64 v_cvt_f32_f16_e32 "
       "v_cvt_pkrtz_f16_f32 v_pack_b32_f16",
       "12.8 VOP1, 12.10 VOP3",
       R"(v_cvt_f32_u32 v1, v0
          v_cvt_f16_f32_e32 v2, v1
          v_cvt_f16_f32_e64 v3, -v1
          v_cvt_f32_f16_e32 v4, v2
          v_mov_b32 v5, 0x3f800001
          v_cvt_pkrtz_f16_f32 v6, v5, v1
          v_pack_b32_f16 v7, v2, v3)",
       {{"v2", [](unsigned L) { return uint32_t(toHalf(float(L))); }},
        {"v3", [](unsigned L) { return uint32_t(toHalf(-float(L))); }},
        {"v4", F([](unsigned L) { return float(L); })},
        {"v6", [](unsigned L) { return 0x3c00u | (uint32_t(toHalf(float(L))) << 16); }},
        {"v7", [](unsigned L) {
           return uint32_t(toHalf(float(L))) | (uint32_t(toHalf(-float(L))) << 16);
         }}}},
      // 12.8: V_CVT_OFF_F32_I4: signed 4-bit value / 16 (SDWA selects the
      // byte).
      {"v_cvt_off_f32_i4_e32 v_cvt_off_f32_i4_sdwa", "12.8 VOP1, 6.3 SDWA",
       R"(v_cvt_off_f32_i4_e32 v1, v0
          v_lshlrev_b32 v2, 16, v0
          v_cvt_off_f32_i4_sdwa v3, v2 dst_sel:DWORD dst_unused:UNUSED_PAD src0_sel:BYTE_2)",
       {{"v1", F([](unsigned L) { int V = L & 15; return float(V >= 8 ? V - 16 : V) / 16.0f; })},
        {"v3", F([](unsigned L) { int V = L & 15; return float(V >= 8 ? V - 16 : V) / 16.0f; })}}},
      // 12.8: transcendentals (exact on powers of two).
      {"v_exp_f32_e32 v_log_f32_e32 v_rcp_f32_e32 v_rcp_iflag_f32_e32 "
       "v_rsq_f32_e32",
       "12.8 VOP1",
       R"(v_and_b32 v1, 7, v0
          v_cvt_f32_u32 v1, v1
          v_exp_f32_e32 v2, v1
          v_log_f32_e32 v3, v2
          v_rcp_f32_e32 v4, v2
          v_rcp_iflag_f32_e32 v5, v2
          v_mov_b32 v6, 4.0
          v_rsq_f32_e32 v7, v6)",
       {{"v2", F([](unsigned L) { return std::ldexp(1.0f, int(L & 7)); })},
        {"v3", F([](unsigned L) { return float(L & 7); })},
        {"v4", F([](unsigned L) { return std::ldexp(1.0f, -int(L & 7)); })},
        {"v5", F([](unsigned L) { return std::ldexp(1.0f, -int(L & 7)); })},
        {"v7", F([](unsigned) { return 0.5f; })}}},
      // 12.10: the division sequence the compiler emits for a / b
      // (div_scale, rcp, fma refinement, div_fmas, div_fixup) is correctly
      // rounded.
      {"v_div_scale_f32 v_div_fmas_f32 v_div_fixup_f32", "12.10 VOP3",
       R"(v_add_u32 v1, 1, v0
          v_cvt_f32_u32 v1, v1
          v_mov_b32 v2, 1.0
          v_div_scale_f32 v3, s[4:5], v1, v1, v2
          v_div_scale_f32 v4, vcc, v2, v1, v2
          v_rcp_f32 v5, v3
          s_nop 1
          v_fma_f32 v6, -v3, v5, 1.0
          v_fma_f32 v5, v6, v5, v5
          v_mul_f32 v6, v4, v5
          v_fma_f32 v7, -v3, v6, v4
          v_fma_f32 v6, v7, v5, v6
          v_fma_f32 v3, -v3, v6, v4
          s_nop 3
          v_div_fmas_f32 v3, v3, v5, v6
          v_div_fixup_f32 v8, v3, v1, v2)",
       {{"v8", F([](unsigned L) { return 1.0f / float(L + 1); })}}},
  };
  // 12.9 VOPC: V_CMP_* set one bit per active lane (VCC for e32, an SGPR
  // pair for e64); inactive lanes give 0.
  struct Cmp {
    const char *Mn, *Asm;
    std::function<bool(unsigned)> P;
  };
  auto I32 = [](unsigned L) { return int32_t(L) - 32; };
  auto Fv = [](unsigned L) { return float(int(L) - 32); };
  std::vector<Cmp> Cmps = {
      {"v_cmp_eq_u32_e32", "v_cmp_eq_u32_e32 vcc, 5, v0", [](unsigned L) { return L == 5; }},
      {"v_cmp_eq_u32_e64", "v_cmp_eq_u32_e64 vcc, v0, 5", [](unsigned L) { return L == 5; }},
      {"v_cmp_ne_u32_e32", "v_cmp_ne_u32_e32 vcc, 5, v0", [](unsigned L) { return L != 5; }},
      {"v_cmp_ne_u32_e64", "v_cmp_ne_u32_e64 vcc, v0, 5", [](unsigned L) { return L != 5; }},
      {"v_cmp_lt_u32_e32", "v_cmp_lt_u32_e32 vcc, 40, v0", [](unsigned L) { return 40 < L; }},
      {"v_cmp_lt_u32_e64", "v_cmp_lt_u32_e64 vcc, v0, 40", [](unsigned L) { return L < 40; }},
      {"v_cmp_le_u32_e32", "v_cmp_le_u32_e32 vcc, 40, v0", [](unsigned L) { return 40 <= L; }},
      {"v_cmp_le_u32_e64", "v_cmp_le_u32_e64 vcc, v0, 40", [](unsigned L) { return L <= 40; }},
      {"v_cmp_gt_u32_e32", "v_cmp_gt_u32_e32 vcc, 40, v0", [](unsigned L) { return 40 > L; }},
      {"v_cmp_gt_u32_e64", "v_cmp_gt_u32_e64 vcc, v0, 40", [](unsigned L) { return L > 40; }},
      {"v_cmp_ge_u32_e32", "v_cmp_ge_u32_e32 vcc, 40, v0", [](unsigned L) { return 40 >= L; }},
      {"v_cmp_lt_i32_e32", "v_cmp_lt_i32_e32 vcc, -3, v2", [&](unsigned L) { return -3 < I32(L); }},
      {"v_cmp_lt_i32_e64", "v_cmp_lt_i32_e64 vcc, v2, -3", [&](unsigned L) { return I32(L) < -3; }},
      {"v_cmp_le_i32_e32", "v_cmp_le_i32_e32 vcc, -3, v2", [&](unsigned L) { return -3 <= I32(L); }},
      {"v_cmp_le_i32_e64", "v_cmp_le_i32_e64 vcc, v2, -3", [&](unsigned L) { return I32(L) <= -3; }},
      {"v_cmp_gt_i32_e32", "v_cmp_gt_i32_e32 vcc, -3, v2", [&](unsigned L) { return -3 > I32(L); }},
      {"v_cmp_gt_i32_e64", "v_cmp_gt_i32_e64 vcc, v2, -3", [&](unsigned L) { return I32(L) > -3; }},
      {"v_cmp_ge_i32_e32", "v_cmp_ge_i32_e32 vcc, -3, v2", [&](unsigned L) { return -3 >= I32(L); }},
      {"v_cmp_ge_i32_e64", "v_cmp_ge_i32_e64 vcc, v2, -3", [&](unsigned L) { return I32(L) >= -3; }},
      {"v_cmp_eq_u16_e32", "v_cmp_eq_u16_e32 vcc, 5, v0", [](unsigned L) { return L == 5; }},
      {"v_cmp_ne_u16_e64", "v_cmp_ne_u16_e64 vcc, v0, 5", [](unsigned L) { return L != 5; }},
      {"v_cmp_gt_i16_e32", "v_cmp_gt_i16_e32 vcc, -3, v2", [&](unsigned L) { return -3 > I32(L); }},
      {"v_cmp_eq_u64_e32", "v_cmp_eq_u64_e32 vcc, 5, v[0:1]", [](unsigned L) { return L == 5; }},
      {"v_cmp_eq_u64_e64", "v_cmp_eq_u64_e64 vcc, v[0:1], 5", [](unsigned L) { return L == 5; }},
      {"v_cmp_ne_u64_e32", "v_cmp_ne_u64_e32 vcc, 5, v[0:1]", [](unsigned L) { return L != 5; }},
      {"v_cmp_ne_u64_e64", "v_cmp_ne_u64_e64 vcc, v[0:1], 5", [](unsigned L) { return L != 5; }},
      {"v_cmp_lt_u64_e32", "v_cmp_lt_u64_e32 vcc, 40, v[0:1]", [](unsigned L) { return 40 < L; }},
      {"v_cmp_gt_u64_e32", "v_cmp_gt_u64_e32 vcc, 40, v[0:1]", [](unsigned L) { return 40 > L; }},
      {"v_cmp_gt_i64_e32", "v_cmp_gt_i64_e32 vcc, -3, v[2:3]", [&](unsigned L) { return -3 > I32(L); }},
      {"v_cmp_eq_f32_e32", "v_cmp_eq_f32_e32 vcc, 2.0, v4", [&](unsigned L) { return Fv(L) == 2.0f; }},
      {"v_cmp_eq_f32_e64", "v_cmp_eq_f32_e64 vcc, v4, 2.0", [&](unsigned L) { return Fv(L) == 2.0f; }},
      {"v_cmp_lt_f32_e32", "v_cmp_lt_f32_e32 vcc, 2.0, v4", [&](unsigned L) { return 2.0f < Fv(L); }},
      {"v_cmp_lt_f32_e64", "v_cmp_lt_f32_e64 vcc, v4, 2.0", [&](unsigned L) { return Fv(L) < 2.0f; }},
      {"v_cmp_gt_f32_e32", "v_cmp_gt_f32_e32 vcc, 2.0, v4", [&](unsigned L) { return 2.0f > Fv(L); }},
      {"v_cmp_gt_f32_e64", "v_cmp_gt_f32_e64 vcc, v4, 2.0", [&](unsigned L) { return Fv(L) > 2.0f; }},
      {"v_cmp_ge_f32_e64", "v_cmp_ge_f32_e64 vcc, v4, 2.0", [&](unsigned L) { return Fv(L) >= 2.0f; }},
      // Lane 7 holds NaN: the negated predicates are true on it.
      {"v_cmp_neq_f32_e32", "v_cmp_neq_f32_e32 vcc, 2.0, v5", [&](unsigned L) { return L == 7 || Fv(L) != 2.0f; }},
      {"v_cmp_neq_f32_e64", "v_cmp_neq_f32_e64 vcc, v5, 2.0", [&](unsigned L) { return L == 7 || Fv(L) != 2.0f; }},
      {"v_cmp_ngt_f32_e32", "v_cmp_ngt_f32_e32 vcc, 2.0, v5", [&](unsigned L) { return L == 7 || !(2.0f > Fv(L)); }},
      {"v_cmp_ngt_f32_e64", "v_cmp_ngt_f32_e64 vcc, v5, 2.0", [&](unsigned L) { return L == 7 || !(Fv(L) > 2.0f); }},
      {"v_cmp_nle_f32_e32", "v_cmp_nle_f32_e32 vcc, 2.0, v5", [&](unsigned L) { return L == 7 || !(2.0f <= Fv(L)); }},
      {"v_cmp_o_f32_e64", "v_cmp_o_f32_e64 vcc, v5, v5", [](unsigned L) { return L != 7; }},
      {"v_cmp_u_f32_e64", "v_cmp_u_f32_e64 vcc, v5, v5", [](unsigned L) { return L == 7; }},
  };
  for (const Cmp &X : Cmps) {
    // v[0:1] = lane (u64), v2 = lane - 32 (i32), v[2:3] = lane - 32 (i64),
    // v4 = lane - 32 (f32), v5 = v4 with a NaN in lane 7.
    std::string Asm = std::string(R"(v_mov_b32 v1, 0
          v_sub_u32 v2, v0, 32
          v_ashrrev_i32 v3, 31, v2
          v_cvt_f32_i32 v4, v2
          v_mov_b32 v5, v4
          v_cmp_eq_u32 s[8:9], 7, v0
          v_mov_b32 v6, 0x7fc00000
          s_nop 4
          v_cndmask_b32 v5, v5, v6, s[8:9]
          s_mov_b64 vcc, 0
          )") + X.Asm;
    auto P = X.P;
    V.push_back({strdup(X.Mn), "12.9 VOPC", strdup(Asm.c_str()),
                 {{"vcc_lo", C(maskLo(P))}, {"vcc_hi", C(maskHi(P))}}});
  }
  return V;
}
