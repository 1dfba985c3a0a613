//===- ScalarCases.cpp - SOP1/SOP2/SOPC/SOPK/SOPP and SMEM cases -----------===//
#include "Cases.h"

using namespace asmevo::emu::test;

namespace {
LaneFn C(uint32_t V) {
  return [V](unsigned) { return V; };
}
} // namespace

std::vector<Case> scalarCases() {
  return {
      // 12.2 SOP2: S_ADD_U32 D = S0 + S1, SCC = carry out; S_ADDC_U32 adds
      // SCC; S_SUB_U32 SCC = borrow; S_SUBB_U32 subtracts SCC.
      {"s_add_u32 s_addc_u32 s_sub_u32 s_subb_u32 s_mov_b32", "12.2 SOP2",
       R"(s_mov_b32 s2, 0xffffffff
          s_add_u32 s3, s2, 2
          s_addc_u32 s4, 5, 0
          s_sub_u32 s5, 1, 2
          s_subb_u32 s6, 10, 3)",
       {{"s3", C(1)}, {"s4", C(6)}, {"s5", C(0xffffffff)}, {"s6", C(6)}}},
      // 12.2: S_ADD_I32/S_SUB_I32 SCC = signed overflow; S_ADDK_I32 adds the
      // sign-extended 16-bit constant (12.3 SOPK).
      {"s_add_i32 s_sub_i32 s_addk_i32 s_movk_i32", "12.2 SOP2, 12.3 SOPK",
       R"(s_mov_b32 s2, 0x7fffffff
          s_add_i32 s3, s2, 1
          s_cselect_b32 s4, 1, 0
          s_sub_i32 s5, -5, 10
          s_movk_i32 s6, 0x8000
          s_addk_i32 s6, 0xffff)",
       {{"s3", C(0x80000000)}, {"s4", C(1)}, {"s5", C(uint32_t(-15))},
        {"s6", C(0xffff7fff)}}},
      // 12.4 SOP1: S_WQM_B32/B64 fill every quad with a bit set;
      // S_QUADMASK_B32/B64 one bit per quad; S_BITREPLICATE_B64_B32 each
      // bit twice.
      {"s_wqm_b32 s_wqm_b64 s_quadmask_b32 s_quadmask_b64 "
       "s_bitreplicate_b64_b32", "12.4 SOP1",
       R"(s_mov_b32 s2, 0x10420008
          s_wqm_b32 s3, s2
          s_quadmask_b32 s4, s2
          s_mov_b32 s6, 0x10
          s_mov_b32 s7, 0x80000001
          s_wqm_b64 s[8:9], s[6:7]
          s_quadmask_b64 s[10:11], s[6:7]
          s_bitreplicate_b64_b32 s[12:13], 0x80000005)",
       {{"s3", C(0xf0ff000f)}, {"s4", C(0xb1)}, {"s8", C(0x000000f0)},
        {"s9", C(0xf000000f)}, {"s10", C(0x8102)}, {"s11", C(0)},
        {"s12", C(0x33)}, {"s13", C(0xc0000000)}}},
      // 12.2: S_MUL_I32 low 32 bits; S_MUL_HI_U32 high 32 bits.
      {"s_mul_i32 s_mul_hi_u32", "12.2 SOP2",
       R"(s_mov_b32 s2, 0x10000003
          s_mul_i32 s3, s2, 0x100
          s_mul_hi_u32 s4, s2, 0x100)",
       {{"s3", C(0x300)}, {"s4", C(0x10)}}},
      // 12.2: S_MIN/S_MAX (SCC = S0 < S1 / S0 > S1).
      {"s_min_i32 s_min_u32 s_max_i32 s_max_u32", "12.2 SOP2",
       R"(s_min_i32 s2, -3, 4
          s_min_u32 s3, -3, 4
          s_max_i32 s4, -3, 4
          s_max_u32 s5, -3, 4)",
       {{"s2", C(uint32_t(-3))}, {"s3", C(4)}, {"s4", C(4)},
        {"s5", C(uint32_t(-3))}}},
      // 12.2: bitwise ops, SCC = result != 0.
      {"s_and_b32 s_or_b32 s_xor_b32 s_andn2_b32 s_nor_b32", "12.2 SOP2",
       R"(s_mov_b32 s2, 0xff00ff00
          s_and_b32 s3, s2, 0x0ff00ff0
          s_or_b32 s4, s2, 0x0ff00ff0
          s_xor_b32 s5, s2, 0x0ff00ff0
          s_andn2_b32 s6, s2, 0x0ff00ff0
          s_nor_b32 s7, s2, 0x0ff00ff0)",
       {{"s3", C(0x0f000f00)}, {"s4", C(0xfff0fff0)}, {"s5", C(0xf0f0f0f0)},
        {"s6", C(0xf000f000)}, {"s7", C(0x000f000f)}}},
      {"s_and_b64 s_or_b64 s_xor_b64 s_andn2_b64 s_orn2_b64 s_mov_b64",
       "12.2 SOP2",
       R"(s_mov_b64 s[2:3], 0x12345678
          s_mov_b32 s3, 0xf0f0f0f0
          s_mov_b64 s[4:5], -1
          s_mov_b32 s4, 0x0f
          s_and_b64 s[6:7], s[2:3], s[4:5]
          s_or_b64 s[8:9], s[2:3], s[4:5]
          s_xor_b64 s[10:11], s[2:3], s[4:5]
          s_andn2_b64 s[12:13], s[2:3], s[4:5]
          s_orn2_b64 s[14:15], s[2:3], s[4:5])",
       {{"s6", C(0x8)}, {"s7", C(0xf0f0f0f0)}, {"s8", C(0x1234567f)},
        {"s9", C(0xffffffff)}, {"s10", C(0x12345677)}, {"s11", C(0x0f0f0f0f)},
        {"s12", C(0x12345670)}, {"s13", C(0)}, {"s14", C(0xfffffff8)},
        {"s15", C(0xf0f0f0f0)}}},
      // 12.2: shifts use S1[4:0] (32-bit) / S1[5:0] (64-bit).
      {"s_lshl_b32 s_lshr_b32 s_ashr_i32 s_lshl_b64 s_lshl1_add_u32",
       "12.2 SOP2",
       R"(s_lshl_b32 s2, 3, 33
          s_lshr_b32 s3, 0x80000000, 31
          s_ashr_i32 s4, 0x80000000, 4
          s_lshl_b64 s[6:7], 1, 40
          s_lshl1_add_u32 s8, 5, 7)",
       {{"s2", C(6)}, {"s3", C(1)}, {"s4", C(0xf8000000)}, {"s6", C(0)},
        {"s7", C(0x100)}, {"s8", C(17)}}},
      // 12.2: S_BFE_U32/I32: S1[4:0] offset, S1[22:16] width; S_BFM_B64:
      // ((1 << S0[5:0]) - 1) << S1[5:0].
      {"s_bfe_u32 s_bfe_i32 s_bfm_b64", "12.2 SOP2",
       R"(s_mov_b32 s6, 0xabcd1234
          s_bfe_u32 s2, s6, 0x80004
          s_movk_i32 s7, 0x7000
          s_or_b32 s7, s7, 0x8000
          s_bfe_i32 s3, s7, 0x4000c
          s_bfm_b64 s[4:5], 8, 30)",
       {{"s2", C(0x23)}, {"s3", C(0xffffffff)}, {"s4", C(0xc0000000)},
        {"s5", C(0x3f)}}},
      // 12.2: S_CSELECT_B32/B64 choose S0 when SCC.
      {"s_cselect_b32 s_cselect_b64 s_cmp_eq_u32", "12.2 SOP2, 12.5 SOPC",
       R"(s_cmp_eq_u32 1, 1
          s_cselect_b32 s2, 10, 20
          s_cselect_b64 s[4:5], -1, 0
          s_cmp_eq_u32 1, 2
          s_cselect_b32 s3, 10, 20)",
       {{"s2", C(10)}, {"s3", C(20)}, {"s4", C(~0u)}, {"s5", C(~0u)}}},
      // 12.5 SOPC: comparisons set SCC.
      {"s_cmp_eq_i32 s_cmp_ge_i32 s_cmp_gt_i32 s_cmp_le_i32 s_cmp_lt_i32 "
       "s_cmp_ge_u32 s_cmp_gt_u32 s_cmp_le_u32 s_cmp_lt_u32 s_cmp_lg_u32",
       "12.5 SOPC",
       R"(s_mov_b32 s2, 0
          s_cmp_eq_i32 -1, -1
          s_addc_u32 s2, s2, 0
          s_cmp_ge_i32 -1, 0
          s_addc_u32 s2, s2, 0
          s_cmp_gt_i32 3, -3
          s_addc_u32 s2, s2, 0
          s_cmp_le_i32 -3, -3
          s_addc_u32 s2, s2, 0
          s_cmp_lt_i32 -3, 3
          s_addc_u32 s2, s2, 0
          s_cmp_ge_u32 -1, 0
          s_addc_u32 s2, s2, 0
          s_cmp_gt_u32 3, -3
          s_addc_u32 s2, s2, 0
          s_cmp_le_u32 3, -3
          s_addc_u32 s2, s2, 0
          s_cmp_lt_u32 -3, 3
          s_addc_u32 s2, s2, 0
          s_cmp_lg_u32 4, 5
          s_addc_u32 s2, s2, 0)",
       {{"s2", C(7)}}},
      {"s_cmp_eq_u64 s_cmp_lg_u64", "12.5 SOPC",
       R"(s_mov_b32 s4, 1
          s_mov_b32 s5, 1
          s_mov_b32 s2, 0
          s_cmp_eq_u64 s[4:5], s[4:5]
          s_addc_u32 s2, s2, 0
          s_cmp_lg_u64 s[4:5], 0
          s_addc_u32 s2, s2, 0
          s_cmp_eq_u64 s[4:5], 1
          s_addc_u32 s2, s2, 0)",
       {{"s2", C(2)}}},
      // 12.3 SOPK compares with a 16-bit constant (zero-extended for
      // unsigned, sign-extended for signed).
      {"s_cmpk_eq_u32 s_cmpk_gt_i32 s_cmpk_gt_u32 s_cmpk_lt_u32", "12.3 SOPK",
       R"(s_mov_b32 s2, 0
          s_mov_b32 s3, 0xffff
          s_cmpk_eq_u32 s3, 0xffff
          s_addc_u32 s2, s2, 0
          s_mov_b32 s4, -2
          s_cmpk_gt_i32 s4, 0xfffe
          s_addc_u32 s2, s2, 0
          s_cmpk_gt_u32 s4, 0xfffe
          s_addc_u32 s2, s2, 0
          s_cmpk_lt_u32 s3, 0x1234
          s_addc_u32 s2, s2, 0)",
       {{"s2", C(2)}}},
      // 12.5 SOPC: S_BITCMP1_B32 SCC = S0[S1[4:0]].
      {"s_bitcmp1_b32", "12.5 SOPC",
       R"(s_mov_b32 s2, 0
          s_bitcmp1_b32 0x10, 4
          s_addc_u32 s2, s2, 0
          s_bitcmp1_b32 0x10, 3
          s_addc_u32 s2, s2, 0)",
       {{"s2", C(1)}}},
      // 12.4 SOP1: S_BREV_B32, S_FF1_I32_B64 (index of first 1 from the LSB,
      // -1 if none), S_BCNT1_I32_B64, S_SEXT_I32_I16, S_ABS_I32.
      {"s_brev_b32 s_ff1_i32_b64 s_bcnt1_i32_b64 s_sext_i32_i16 s_abs_i32",
       "12.4 SOP1",
       R"(s_brev_b32 s2, 1
          s_mov_b32 s4, 0
          s_mov_b32 s5, 1
          s_ff1_i32_b64 s3, s[4:5]
          s_mov_b64 s[6:7], 0
          s_ff1_i32_b64 s8, s[6:7]
          s_mov_b64 s[10:11], -1
          s_bcnt1_i32_b64 s9, s[10:11]
          s_sext_i32_i16 s12, 0x8001
          s_abs_i32 s13, -7)",
       {{"s2", C(0x80000000)}, {"s3", C(32)}, {"s8", C(~0u)}, {"s9", C(64)},
        {"s12", C(0xffff8001)}, {"s13", C(7)}}},
      // 12.4 SOP1 save-exec: D = EXEC; EXEC = S0 op EXEC; SCC = EXEC != 0.
      {"s_and_saveexec_b64 s_or_saveexec_b64 s_andn2_saveexec_b64",
       "12.4 SOP1",
       R"(s_mov_b64 s[4:5], 0xff
          s_and_saveexec_b64 s[6:7], s[4:5]
          s_mov_b64 s[8:9], exec
          s_mov_b64 s[10:11], 0xff00
          s_or_saveexec_b64 s[12:13], s[10:11]
          s_mov_b64 s[14:15], exec
          s_andn2_saveexec_b64 s[16:17], s[4:5]
          s_mov_b64 s[18:19], exec
          s_mov_b64 exec, -1)",
       {{"s6", C(~0u)}, {"s8", C(0xff)}, {"s12", C(0xff)}, {"s14", C(0xffff)},
        {"s16", C(0xffff)}, {"s18", C(0)}}},
      // 4.x program flow: S_BRANCH, S_CBRANCH_SCC0/SCC1/VCCZ/VCCNZ/EXECZ/
      // EXECNZ (12.6 SOPP).
      {"s_branch s_cbranch_scc0 s_cbranch_scc1 s_cbranch_vccz "
       "s_cbranch_vccnz s_cbranch_execz s_cbranch_execnz",
       "12.6 SOPP",
       R"(s_mov_b32 s2, 0
          s_cmp_eq_u32 0, 1
          s_cbranch_scc0 L1
          s_add_u32 s2, s2, 100
        L1:
          s_cmp_eq_u32 0, 0
          s_cbranch_scc1 L2
          s_add_u32 s2, s2, 100
        L2:
          s_mov_b64 vcc, 0
          s_cbranch_vccz L3
          s_add_u32 s2, s2, 100
        L3:
          s_mov_b64 vcc, 1
          s_cbranch_vccnz L4
          s_add_u32 s2, s2, 100
        L4:
          s_mov_b64 s[4:5], exec
          s_mov_b64 exec, 0
          s_cbranch_execz L5
          s_add_u32 s2, s2, 100
        L5:
          s_mov_b64 exec, s[4:5]
          s_cbranch_execnz L6
          s_add_u32 s2, s2, 100
        L6:
          s_add_u32 s2, s2, 1
          s_branch L7
          s_add_u32 s2, s2, 100
        L7:)",
       {{"s2", C(1)}}},
      // 12.4: S_GETPC_B64 returns the address of the next instruction;
      // S_SWAPPC/S_SETPC jump to an absolute address (calls and returns).
      {"s_getpc_b64", "12.4 SOP1",
       R"(s_getpc_b64 s[4:5]
        Here:
          s_getpc_b64 s[6:7]
          s_sub_u32 s2, s6, s4)",
       {{"s2", C(4)}}},
      // 12.6 SOPP: s_nop, s_setprio, s_sleep have no architectural effect.
      {"s_nop s_setprio s_sleep", "12.6 SOPP",
       R"(s_mov_b32 s2, 3
          s_nop 7
          s_setprio 2
          s_sleep 1
          s_add_u32 s2, s2, 1)",
       {{"s2", C(4)}}},
      // 8.2 SMEM: S_LOAD_DWORD*: data at base + offset; S_BUFFER_LOAD_* take
      // the base from a V# (dwords 0-1) (12.13 SMEM).
      {"s_load_dword s_load_dwordx2 s_load_dwordx4 s_load_dwordx8 s_waitcnt",
       "8.2 Scalar Memory Operations",
       R"(s_load_dword s24, s[22:23], 0x4
          s_load_dwordx2 s[26:27], s[22:23], 0x8
          s_load_dwordx4 s[28:31], s[22:23], 0x10
          s_load_dwordx8 s[32:39], s[22:23], 0x20
          s_waitcnt lgkmcnt(0))",
       {{"s24", C(0x1001)}, {"s27", C(0x1003)}, {"s31", C(0x1007)},
        {"s32", C(0x1008)}, {"s39", C(0x100f)}}},
      {"s_buffer_load_dword s_buffer_load_dwordx2 s_buffer_load_dwordx4 "
       "s_buffer_load_dwordx8",
       "8.2 Scalar Memory Operations",
       R"(s_mov_b32 s24, s22
          s_and_b32 s25, s23, 0xffff
          s_mov_b32 s26, 0x1000
          s_mov_b32 s27, 0
          s_buffer_load_dword s28, s[24:27], 0x4
          s_buffer_load_dwordx2 s[30:31], s[24:27], 0x10
          s_buffer_load_dwordx4 s[32:35], s[24:27], 0x20
          s_buffer_load_dwordx8 s[40:47], s[24:27], 0x40
          s_waitcnt lgkmcnt(0))",
       {{"s28", C(0x1001)}, {"s31", C(0x1005)}, {"s35", C(0x100b)},
        {"s47", C(0x1017)}}},
      // 8.2/12.13: S_STORE_DWORD; S_ATOMIC_INC/DEC: wrap at the operand
      // (INC: tmp >= src ? 0 : tmp + 1; DEC: tmp == 0 || tmp > src ? src :
      // tmp - 1).
      {"s_store_dword s_atomic_inc s_atomic_dec s_dcache_wb",
       "8.2, 12.13 SMEM",
       R"(s_mov_b32 s24, 41
          s_store_dword s24, s[22:23], 0xff00
          s_mov_b32 s25, 100
          s_atomic_inc s25, s[22:23], 0xff00
          s_mov_b32 s26, 0
          s_atomic_dec s26, s[22:23], 0xff04
          s_waitcnt lgkmcnt(0)
          s_dcache_wb
          s_load_dword s27, s[22:23], 0xff00
          s_load_dword s28, s[22:23], 0xff04
          s_waitcnt lgkmcnt(0))",
       {{"s27", C(42)}, {"s28", C(0)}}},
      // 12.4 SOP1 / 4.x: S_SET_GPR_IDX_ON: VGPR operands selected by the mode
      // are offset by M0[7:0] until S_SET_GPR_IDX_OFF.
      {"s_set_gpr_idx_on s_set_gpr_idx_off", "12.5 SOPC, 4.7 VGPR indexing",
       R"(v_mov_b32 v10, 10
          v_mov_b32 v11, 11
          v_mov_b32 v12, 12
          s_mov_b32 s2, 2
          s_set_gpr_idx_on s2, gpr_idx(SRC0)
          v_mov_b32 v1, v10
          s_set_gpr_idx_off
          v_mov_b32 v2, v10)",
       {{"v1", C(12)}, {"v2", C(10)}}},
      // 12.5 SOPC: S_SETVSKIP with VSKIP cleared has no effect.
      {"s_setvskip", "12.5 SOPC",
       R"(s_setvskip 0, 0
          v_mov_b32 v1, 5)",
       {{"v1", C(5)}}},
      // 8.2.4/8.2.5: S_MEMTIME reads a free-running 64-bit shader clock,
      // S_MEMREALTIME a 64-bit 100 MHz counter, both through lgkmcnt. The
      // ISA fixes no value, only the order: a later read of the shader
      // clock is larger (s8: no borrow in T2 - T1, s10: T2 != T1); the
      // real-time counter may not tick between two reads (s11: no
      // borrow).
      {"s_memtime s_memrealtime", "8.2.4, 8.2.5 SMEM",
       R"(s_memtime s[2:3]
          s_memrealtime s[12:13]
          s_waitcnt lgkmcnt(0)
          s_nop 7
          s_memtime s[4:5]
          s_memrealtime s[14:15]
          s_waitcnt lgkmcnt(0)
          s_sub_u32 s6, s4, s2
          s_subb_u32 s7, s5, s3
          s_cselect_b32 s8, 1, 0
          s_or_b32 s9, s6, s7
          s_cselect_b32 s10, 1, 0
          s_sub_u32 s16, s14, s12
          s_subb_u32 s17, s15, s13
          s_cselect_b32 s11, 1, 0)",
       {{"s8", C(0)}, {"s10", C(1)}, {"s11", C(0)}}},
  };
}
