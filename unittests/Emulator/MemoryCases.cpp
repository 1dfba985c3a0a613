//===- MemoryCases.cpp - Global, flat, scratch, buffer and LDS cases ------===//
//
// The input buffer (s[22:23]) holds dword i = 0x1000 + i; stores go to its
// upper half (byte offset 0x8000 on) so they do not disturb what loads read.
//
//===----------------------------------------------------------------------===//
#include "Cases.h"
#include <cmath>

using namespace asmevo::emu::test;

namespace {
LaneFn C(uint32_t V) {
  return [V](unsigned) { return V; };
}
uint32_t in(unsigned Dword) { return 0x1000 + Dword; }
} // namespace

std::vector<Case> memoryCases() {
  return {
      // 10.1 global: address = saddr + vaddr (32-bit offset) + inst_offset,
      // or vaddr (64-bit) + inst_offset; 13-bit signed offsets.
      {"global_load_dword global_load_dwordx2 global_load_dwordx3 "
       "global_load_dwordx4",
       "10.1 Global memory instructions",
       R"(v_lshlrev_b32 v1, 2, v0
          global_load_dword v2, v1, s[22:23] offset:8
          global_load_dwordx2 v[4:5], v1, s[22:23]
          v_mov_b32 v10, s22
          v_mov_b32 v11, s23
          v_add_u32 v20, 4, v1
          v_mov_b32 v21, 0
          v_lshl_add_u64 v[10:11], v[10:11], 0, v[20:21]
          global_load_dwordx3 v[6:8], v[10:11], off offset:-4
          global_load_dwordx4 v[12:15], v1, s[22:23] offset:16
          s_waitcnt vmcnt(0))",
       {{"v2", [](unsigned L) { return in(L + 2); }},
        {"v5", [](unsigned L) { return in(L + 1); }},
        {"v6", [](unsigned L) { return in(L); }},
        {"v8", [](unsigned L) { return in(L + 2); }},
        {"v15", [](unsigned L) { return in(L + 7); }}}},
      {"global_store_dword global_store_dwordx2 global_store_dwordx4 "
       "global_store_byte",
       "10.1 Global memory instructions",
       R"(v_lshlrev_b32 v1, 4, v0
          v_add_u32 v1, 0x8000, v1
          v_add_u32 v2, 7, v0
          v_mov_b32 v3, 0x55
          global_store_dwordx2 v1, v[2:3], s[22:23]
          global_store_byte v1, v2, s[22:23] offset:9
          global_store_dword v1, v0, s[22:23] offset:12
          s_waitcnt vmcnt(0)
          global_load_dwordx4 v[4:7], v1, s[22:23]
          s_waitcnt vmcnt(0)
          global_store_dwordx4 v1, v[4:7], s[22:23] offset:0x800
          s_waitcnt vmcnt(0)
          global_load_dwordx4 v[8:11], v1, s[22:23] offset:0x800
          s_waitcnt vmcnt(0))",
       {{"v8", [](unsigned L) { return L + 7; }},
        {"v9", C(0x55)},
        // The byte store at offset 9 replaces byte 1 of dword 2.
        {"v10", [](unsigned L) {
           return (in(0x2000 + 4 * L + 2) & ~0xff00u) | ((L + 7) << 8);
         }},
        {"v11", [](unsigned L) { return L; }}}},
      // 10.1 atomics: performed in memory; CMPSWAP_X2 data = {src, cmp};
      // PK_ADD_F16/BF16 add two packed halves; ADD_F32.
      {"global_atomic_add_f32 global_atomic_cmpswap_x2 "
       "global_atomic_pk_add_f16 global_atomic_pk_add_bf16",
       "10.1, 12.15 FLAT atomics",
       R"(v_mov_b32 v1, 0x8000
          v_mov_b32 v2, 0.5
          global_store_dword v1, v2, s[22:23]
          s_waitcnt vmcnt(0)
          global_atomic_add_f32 v1, v2, s[22:23]
          v_mov_b32 v3, 0x8100
          v_mov_b32 v4, 0x3c003c00
          v_mov_b32 v5, 0x3f803f80
          global_store_dword v3, v4, s[22:23]
          global_store_dword v3, v5, s[22:23] offset:4
          s_waitcnt vmcnt(0)
          global_atomic_pk_add_f16 v3, v4, s[22:23]
          global_atomic_pk_add_bf16 v3, v5, s[22:23] offset:4
          v_mov_b32 v6, 0x8200
          v_mov_b32 v10, 1
          v_mov_b32 v11, 2
          global_store_dwordx2 v6, v[10:11], s[22:23]
          s_waitcnt vmcnt(0)
          v_mov_b32 v12, 7
          v_mov_b32 v13, 8
          v_mov_b32 v14, 1
          v_mov_b32 v15, 2
          v_cmp_eq_u32 vcc, 0, v0
          s_and_saveexec_b64 s[4:5], vcc
          global_atomic_cmpswap_x2 v6, v[12:15], s[22:23]
          s_mov_b64 exec, s[4:5]
          s_waitcnt vmcnt(0)
          global_load_dword v7, v1, s[22:23]
          global_load_dwordx2 v[8:9], v3, s[22:23]
          global_load_dwordx2 v[18:19], v6, s[22:23]
          s_waitcnt vmcnt(0))",
       {{"v7", [](unsigned) { return fbits(0.5f + 64 * 0.5f); }},
        // 1.0 + 64 * 1.0 = 65.0 in binary16 (0x5410).
        {"v8", C(0x54105410)},
        {"v9", C(0x42824282)}, // bf16 65.0
        {"v18", C(7)},
        {"v19", C(8)}}},
      // 10.2 flat: an address in neither aperture is global memory.
      {"flat_load_dword flat_load_dwordx2 flat_load_dwordx4 "
       "flat_store_dword flat_store_dwordx2 flat_store_dwordx4",
       "10.2 Flat memory instructions",
       R"(v_mov_b32 v2, s22
          v_mov_b32 v3, s23
          v_mov_b32 v1, 0
          v_lshl_add_u64 v[4:5], v[0:1], 6, v[2:3]
          flat_load_dword v6, v[4:5]
          flat_load_dwordx2 v[8:9], v[4:5]
          flat_load_dwordx4 v[10:13], v[4:5]
          s_waitcnt vmcnt(0) lgkmcnt(0)
          v_mov_b32 v30, 0x8000
          v_mov_b32 v31, 0
          v_lshl_add_u64 v[14:15], v[4:5], 0, v[30:31]
          flat_store_dword v[14:15], v6
          flat_store_dwordx2 v[14:15], v[8:9] offset:16
          flat_store_dwordx4 v[14:15], v[10:13] offset:32
          s_waitcnt vmcnt(0) lgkmcnt(0)
          flat_load_dword v16, v[14:15]
          flat_load_dword v17, v[14:15] offset:20
          flat_load_dword v18, v[14:15] offset:44
          s_waitcnt vmcnt(0) lgkmcnt(0))",
       {{"v16", [](unsigned L) { return in(16 * L); }},
        {"v17", [](unsigned L) { return in(16 * L + 1); }},
        {"v18", [](unsigned L) { return in(16 * L + 3); }}}},
      // 10.3 scratch: per-lane private memory, addressed by offset.
      {"scratch_store_dword scratch_store_dwordx2 scratch_store_dwordx4 "
       "scratch_load_dword scratch_load_dwordx2 scratch_load_dwordx4",
       "10.3 Scratch (private) memory instructions",
       R"(v_add_u32 v2, 100, v0
          v_add_u32 v3, 200, v0
          v_add_u32 v4, 300, v0
          v_add_u32 v5, 400, v0
          scratch_store_dword off, v2, off offset:4
          scratch_store_dwordx2 off, v[2:3], off offset:8
          scratch_store_dwordx4 off, v[2:5], off offset:32
          s_waitcnt vmcnt(0)
          scratch_load_dword v10, off, off offset:4
          scratch_load_dwordx2 v[12:13], off, off offset:8
          scratch_load_dwordx4 v[14:17], off, off offset:32
          s_waitcnt vmcnt(0))",
       {{"v10", [](unsigned L) { return 100 + L; }},
        {"v13", [](unsigned L) { return 200 + L; }},
        {"v17", [](unsigned L) { return 400 + L; }}}},
      // 9.1 buffer: base from the V#, offset = vgpr (offen) + soffset +
      // inst_offset; raw buffers (stride 0) are range-checked per dword
      // against num_records: out of range loads return 0, stores drop.
      {"buffer_load_dword buffer_load_dwordx2 buffer_load_dwordx3 "
       "buffer_load_dwordx4 buffer_load_short_d16 buffer_store_dword "
       "buffer_store_dwordx2 buffer_store_dwordx3 buffer_store_dwordx4",
       "9.1 Buffer addressing, range checking",
       R"(s_mov_b32 s24, s22
          s_and_b32 s25, s23, 0xffff
          s_mov_b32 s26, 0x8000
          s_mov_b32 s27, 0x20000
          v_lshlrev_b32 v1, 2, v0
          buffer_load_dword v2, v1, s[24:27], 0 offen offset:4
          buffer_load_dwordx2 v[4:5], v1, s[24:27], 0 offen
          buffer_load_dwordx3 v[6:8], v1, s[24:27], 0 offen
          buffer_load_dwordx4 v[10:13], v1, s[24:27], 0 offen
          v_mov_b32 v14, 0xabcd0000
          buffer_load_short_d16 v14, v1, s[24:27], 0 offen
          v_mov_b32 v15, 0x7ffc
          buffer_load_dwordx2 v[16:17], v15, s[24:27], 0 offen
          s_waitcnt vmcnt(0)
          s_mov_b32 s26, 0x10000
          v_lshlrev_b32 v20, 4, v0
          v_add_u32 v20, 0x8000, v20
          buffer_store_dword v2, v20, s[24:27], 0 offen
          buffer_store_dwordx2 v[4:5], v20, s[24:27], 0 offen offset:4
          buffer_store_dwordx3 v[6:8], v20, s[24:27], 0 offen offset:4
          buffer_store_dwordx4 v[10:13], v20, s[24:27], 0 offen
          s_waitcnt vmcnt(0)
          buffer_load_dwordx4 v[22:25], v20, s[24:27], 0 offen
          s_waitcnt vmcnt(0))",
       {{"v2", [](unsigned L) { return in(L + 1); }},
        {"v5", [](unsigned L) { return in(L + 1); }},
        {"v8", [](unsigned L) { return in(L + 2); }},
        {"v14", [](unsigned L) { return 0xabcd0000u | (in(L) & 0xffff); }},
        {"v16", C(in(0x1fff))},
        {"v17", C(0)}, // past num_records: reads 0
        {"v22", [](unsigned L) { return in(L); }},
        {"v23", [](unsigned L) { return in(L + 1); }},
        {"v25", [](unsigned L) { return in(L + 3); }}}},
      {"buffer_atomic_add_f32", "9.1, 12.14 MUBUF atomics",
       R"(s_mov_b32 s24, s22
          s_and_b32 s25, s23, 0xffff
          s_mov_b32 s26, 0x10000
          s_mov_b32 s27, 0x20000
          v_mov_b32 v1, 0x8000
          v_mov_b32 v2, 1.0
          buffer_store_dword v2, v1, s[24:27], 0 offen
          s_waitcnt vmcnt(0)
          buffer_atomic_add_f32 v2, v1, s[24:27], 0 offen
          s_waitcnt vmcnt(0)
          buffer_load_dword v3, v1, s[24:27], 0 offen
          s_waitcnt vmcnt(0))",
       {{"v3", [](unsigned) { return fbits(65.0f); }}}},
      // 11 LDS: address = vaddr + offset; READ2/WRITE2 offsets scale by the
      // element size, ST64 by 64 elements.
      {"ds_write_b32 ds_write_b64 ds_write_b96 ds_write_b128 ds_read_b32 "
       "ds_read_b64 ds_read_b96 ds_read_b128",
       "11.1 LDS instructions",
       R"(v_lshlrev_b32 v1, 4, v0
          v_add_u32 v2, 1, v0
          v_add_u32 v3, 2, v0
          v_add_u32 v4, 3, v0
          v_add_u32 v5, 4, v0
          ds_write_b128 v1, v[2:5]
          ds_write_b32 v1, v0 offset:1024
          ds_write_b64 v1, v[2:3] offset:2048
          ds_write_b96 v1, v[2:4] offset:4096
          s_waitcnt lgkmcnt(0)
          ds_read_b128 v[6:9], v1
          ds_read_b32 v10, v1 offset:1024
          ds_read_b64 v[12:13], v1 offset:2048
          ds_read_b96 v[14:16], v1 offset:4096
          s_waitcnt lgkmcnt(0))",
       {{"v9", [](unsigned L) { return L + 4; }},
        {"v10", [](unsigned L) { return L; }},
        {"v13", [](unsigned L) { return L + 2; }},
        {"v16", [](unsigned L) { return L + 3; }}}},
      {"ds_write2_b32 ds_write2_b64 ds_write2st64_b32 ds_write2st64_b64 "
       "ds_read2_b32 ds_read2_b64 ds_read2st64_b32 ds_read2st64_b64",
       "11.1 LDS instructions (read2/write2)",
       R"(v_lshlrev_b32 v1, 4, v0
          v_add_u32 v2, 10, v0
          v_add_u32 v3, 20, v0
          ds_write2_b32 v1, v2, v3 offset1:1
          ds_write2_b64 v1, v[2:3], v[2:3] offset0:128 offset1:129
          ds_write2st64_b32 v1, v2, v3 offset0:8 offset1:12
          ds_write2st64_b64 v1, v[2:3], v[2:3] offset0:8 offset1:10
          s_waitcnt lgkmcnt(0)
          ds_read2_b32 v[4:5], v1 offset1:1
          ds_read2_b64 v[6:9], v1 offset0:128 offset1:129
          ds_read2st64_b32 v[10:11], v1 offset0:8 offset1:12
          ds_read2st64_b64 v[12:15], v1 offset0:8 offset1:10
          s_waitcnt lgkmcnt(0))",
       {{"v4", [](unsigned L) { return L + 10; }},
        {"v5", [](unsigned L) { return L + 20; }},
        {"v8", [](unsigned L) { return L + 10; }},
        {"v11", [](unsigned L) { return L + 20; }},
        {"v15", [](unsigned L) { return L + 20; }}}},
      // 11.2 LDS atomics and lane crossbar ops: DS_BPERMUTE (dst[l] =
      // src[addr[l] / 4]), DS_PERMUTE (dst[addr[l] / 4] = src[l]),
      // DS_SWIZZLE (bit-mask mode: lane = ((l & and) | or) ^ xor).
      {"ds_add_u32 ds_add_rtn_u32 ds_or_b32 ds_bpermute_b32 ds_permute_b32 "
       "ds_swizzle_b32 s_barrier",
       "11.2 LDS atomics, 11.4 DS_PERMUTE/BPERMUTE/SWIZZLE",
       R"(v_mov_b32 v1, 0
          v_mov_b32 v2, 1
          v_cmp_eq_u32 vcc, 0, v0
          s_and_saveexec_b64 s[4:5], vcc
          ds_write_b32 v1, v1
          ds_write_b32 v1, v1 offset:4
          s_mov_b64 exec, s[4:5]
          s_waitcnt lgkmcnt(0)
          s_barrier
          ds_add_u32 v1, v2
          ds_add_rtn_u32 v3, v1, v2 offset:4
          v_lshlrev_b32 v4, v0, 1
          ds_or_b32 v1, v4 offset:8
          s_waitcnt lgkmcnt(0)
          v_xor_b32 v5, 1, v0
          v_lshlrev_b32 v5, 2, v5
          ds_bpermute_b32 v6, v5, v0
          ds_permute_b32 v7, v5, v0
          ds_swizzle_b32 v8, v0 offset:swizzle(SWAP,16)
          s_waitcnt lgkmcnt(0)
          s_barrier
          ds_read_b32 v9, v1
          ds_read_b32 v10, v1 offset:8
          s_waitcnt lgkmcnt(0))",
       {{"v3", [](unsigned L) { return L; }},
        {"v6", [](unsigned L) { return L ^ 1; }},
        {"v7", [](unsigned L) { return L ^ 1; }},
        {"v8", [](unsigned L) { return L ^ 16; }},
        {"v9", C(64)},
        {"v10", C(0xffffffff)}}},
      // 12.6 SOPP: S_ENDPGM ends the wave (nothing after it runs).
      {"s_endpgm", "12.6 SOPP",
       R"(v_mov_b32 v1, 3)",
       {{"v1", C(3)}}},
  };
}
