// An fp16 GEMM written to be MFMA-bound per wave, the way production MI300
// GEMMs are (software pipelining at every level), for the cycle model's MFMA
// roofline (test/Timing/roofline.test):
//   C (M x N, f32) = A (M x K, f16, row-major) * Bt (N x K, f16, row-major)^T
// gemm_tile.hip is MFMA-bound only while other waves fill its gaps: each
// wave waits for its LDS fragments, its global tiles and two barriers per K
// step. Here a wave alone keeps its SIMD's matrix core busy:
// - One workgroup of four waves per CU (its LDS, 54 KiB, allows one), one
//   wave per SIMD: each wave owns a 128 x 64 block of the 256 x 128 tile,
//   8 x 4 fragments of v_mfma_f32_16x16x16f16 (4 passes, 16 cycles on
//   gfx942: full rate, 512 FLOP/clk/SIMD), so a 32-deep K step is 64 MFMAs,
//   1024 cycles, per wave. Its LDS traffic (12 KiB of fragment reads, 6 KiB
//   of tile writes per wave per step) keeps the SIMD pair's 64 B/clk LDS
//   port about 56% busy, and 24 KiB of global tiles per CU per step is
//   24 B/clk, under half the CU's share of its XCD's L2 (2048/38 B/clk).
// - LDS double buffering: step k's MFMAs read one buffer while tile k+1 is
//   written into the other, so one barrier per K step, not two.
// - Fragment double buffering: the reads of the next 16-deep sub-step are
//   issued before the current sub-step's 32 MFMAs, and the one barrier sits
//   between the two sub-steps, so the wave's LDS latency and the barrier
//   are under MFMAs that are already queued.
// - Global tiles are loaded 64 deep (two K steps) at a time so that each
//   128-byte line is fetched whole (its two 64-byte halves by two loads in
//   a row; the model, like the L2, charges a line per access, not a half),
//   two blocks ahead in two sets of staging registers: a block is issued
//   about 2.5 steps (2500 cycles) before its first tile is written. One
//   block ahead (~800 cycles) was tried first: the loads of a block leave
//   the Infinity Cache as a burst queued on the CU's share of its bandwidth
//   and waited 10-17% of the wave-cycles.
// - Tile order for the L2 (MI300X deals workgroups to its XCDs round robin;
//   see the remap below); without it 43% of the lines came from the
//   Infinity Cache instead of 23%.
// - Buffer loads with the K offset in an SGPR: with flat addresses the
//   compiler put a 64-bit VALU add before every load, between the MFMAs.
// The compiler is steered, not trusted: sched_barrier/sched_group_barrier
// keep the phases in order (checked in llvm-objdump: per step 12 fragment
// reads, then 32 MFMAs with the 6 LDS writes and, mostly, the block's
// loads among them, s_waitcnt lgkmcnt(0) + s_barrier, 12 reads, 32 MFMAs). What it does
// not do well: LLVM 22 selects the VGPR form of the MFMA, and with the 128
// accumulators in VGPRs the ~360-register working set spills the staging
// registers to AGPRs, so ~35 v_accvgpr_read/v_mov per K step sit between
// the MFMAs (inline-asm AGPR hints and -amdgpu-mfma-vgpr-form=0 did not
// change that).
// LDS rows are padded to 36 halves (18 dwords) so that the 16 lanes of a
// ds_read_b64 group (rows i = 0..15 of a fragment) fall on distinct banks.
// MFMA 16x16x16 operand layout (lane l, q = l / 16, i = l % 16):
// A[i][4q .. 4q+3], Bt[i][4q .. 4q+3], result rows 4q .. 4q+3 of column i.
// Past the end the prefetch reloads the last block (in bounds, unused)
// rather than branch in the loop.
// Checked: at M, N, K = 512, 256, 256 (the spec's size), 3072, 256, 384
// (24 workgroups: the XCD remap and a partial group of tile rows) and
// 256, 128, 128, the emulator's C matches numpy's float64 product of the
// same fp16 inputs (max abs error 7e-6, f32 accumulation); clean under
// asmevo-verify's race checks with interleaved waves.
// Model (docs/timing-model.md, no parameter changed): 1.20x its MFMA bound
// at 4096 x 2432 x 4096 (one round, 304 workgroups), 1.28x at three rounds.
// Requires M a multiple of 256, N of 128, K of 128 (a timing kernel).
// Launch: block 256, grid (N / 128, M / 256).
#include "asmevo_hip.h"

#define BM 256
#define BN 128
#define BK 32
#define LDK (BK + 4)

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef unsigned uint4v __attribute__((ext_vector_type(4)));

// Only LDS needs ordering across the barrier (the global tiles are read
// only), so the fences are restricted to it: no vmcnt(0) wait for the
// prefetch in flight.
static __device__ inline __attribute__((always_inline)) void lds_barrier() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup", "local");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup", "local");
}

extern "C" __global__ __launch_bounds__(256) void
gemm_tile_pipelined_f16(const _Float16 *__restrict__ A,
                        const _Float16 *__restrict__ Bt,
                        float *__restrict__ C, int M, int N, int K) {
  __shared__ _Float16 As[2][BM * LDK];
  __shared__ _Float16 Bs[2][BN * LDK];
  int tid = threadIdx.x;
  int wave = tid / 64, lane = tid % 64;
  int wm = (wave / 2) * 128, wn = (wave % 2) * 64;
  // Tile order for L2 reuse. MI300X hands workgroups to its 8 XCDs (each
  // with its own L2) round robin in dispatch order, so neighbouring tiles
  // land on different L2s; the first remap gives each XCD a contiguous
  // range of tile numbers, the second walks those in groups of 8 tile rows,
  // column by column, so that the workgroups an XCD holds at once share A
  // rows and Bt columns (38 co-resident tiles cover about 8 x 5, not 16 x
  // 19, of A's and Bt's tiles).
  int gx = N / BN, gy = M / BM, groups = gx * gy;
  int g = blockIdx.y * gx + blockIdx.x;
  if (groups % 8 == 0)
    g = (g % 8) * (groups / 8) + g / 8;
  int first = (g / (8 * gx)) * 8;
  int rows = gy - first < 8 ? gy - first : 8;
  int in = g % (8 * gx);
  long bm = (long)(first + in % rows) * BM, bn = (long)(in / rows) * BN;
  int i = lane % 16, kq = (lane / 16) * 4;

  // Thread t moves rows t / 4 + 64 j of the tiles, 16 bytes (8 halves) at
  // column (t % 4) * 8 of each 32-deep half of the 64-deep block.
  int r0 = tid / 4, c0 = (tid % 4) * 8;
  // Buffer loads: the tile's base in a resource, the K offset in an SGPR,
  // the lane's offset in a loop-invariant VGPR, so no address arithmetic
  // runs on the VALU between the MFMAs.
  __amdgpu_buffer_rsrc_t ra = __builtin_amdgcn_make_buffer_rsrc(
      (void *)(A + bm * K), 0, BM * K * 2, 0x00020000);
  __amdgpu_buffer_rsrc_t rb = __builtin_amdgcn_make_buffer_rsrc(
      (void *)(Bt + bn * K), 0, BN * K * 2, 0x00020000);
  int oa[4], ob[2];
  for (int j = 0; j < 4; ++j)
    oa[j] = ((r0 + 64 * j) * K + c0) * 2;
  for (int j = 0; j < 2; ++j)
    ob[j] = ((r0 + 64 * j) * K + c0) * 2;
  // Two sets of staging registers, one per 64-deep block in flight.
  uint4v xa0[4], xa1[4], xb0[2], xb1[2], ya0[4], ya1[4], yb0[2], yb1[2];
#define LOAD_BLOCK(kb, a0, a1, b0, b1)                                         \
  for (int j = 0; j < 4; ++j) {                                                \
    a0[j] = __builtin_amdgcn_raw_buffer_load_b128(ra, oa[j], 2 * (kb), 0);     \
    a1[j] = __builtin_amdgcn_raw_buffer_load_b128(ra, oa[j] + 64, 2 * (kb), 0);\
  }                                                                            \
  for (int j = 0; j < 2; ++j) {                                                \
    b0[j] = __builtin_amdgcn_raw_buffer_load_b128(rb, ob[j], 2 * (kb), 0);     \
    b1[j] = __builtin_amdgcn_raw_buffer_load_b128(rb, ob[j] + 64, 2 * (kb), 0);\
  }
#define STORE_TILE(buf, a, b)                                                  \
  for (int j = 0; j < 4; ++j)                                                  \
    *(uint4v *)(&As[buf][(r0 + 64 * j) * LDK + c0]) = a[j];                    \
  for (int j = 0; j < 2; ++j)                                                  \
    *(uint4v *)(&Bs[buf][(r0 + 64 * j) * LDK + c0]) = b[j];
#define READ_FRAGS(buf, kk, fa, fb)                                            \
  for (int x = 0; x < 8; ++x)                                                  \
    fa[x] = *(const half4 *)(&As[buf][(wm + 16 * x + i) * LDK + (kk) + kq]);   \
  for (int y = 0; y < 4; ++y)                                                  \
    fb[y] = *(const half4 *)(&Bs[buf][(wn + 16 * y + i) * LDK + (kk) + kq]);
#define MFMAS(fa, fb)                                                          \
  for (int x = 0; x < 8; ++x)                                                  \
    for (int y = 0; y < 4; ++y)                                                \
      acc[x][y] =                                                              \
          __builtin_amdgcn_mfma_f32_16x16x16f16(fa[x], fb[y], acc[x][y], 0, 0, 0);

// The machine scheduler, left alone, sinks each fragment read to just before
// its first MFMA and moves MFMAs across the barrier, which undoes the
// pipelining: FENCE keeps each phase in place, INTERLEAVE spreads a
// sub-step's LDS writes and global loads between its MFMAs (one MFMA each;
// a wave issues an MFMA every 16 cycles, the memory instructions in the
// gaps) after `lead` MFMAs.
#define FENCE() __builtin_amdgcn_sched_barrier(0)
#define INTERLEAVE(lead, writes, loads)                                        \
  __builtin_amdgcn_sched_group_barrier(0x8, lead, 0);                          \
  for (int n = 0; n < (writes); ++n) {                                         \
    __builtin_amdgcn_sched_group_barrier(0x200, 1, 0);                         \
    __builtin_amdgcn_sched_group_barrier(0x8, 1, 0);                           \
  }                                                                            \
  for (int n = 0; n < (loads); n += 2) {                                       \
    __builtin_amdgcn_sched_group_barrier(0x20, 2, 0);                          \
    __builtin_amdgcn_sched_group_barrier(0x8, 1, 0);                           \
  }                                                                            \
  __builtin_amdgcn_sched_group_barrier(0x8, 32 - (lead) - (writes) - (loads) / 2, 0);

  float4 acc[8][4];
  for (int x = 0; x < 8; ++x)
    for (int y = 0; y < 4; ++y)
      acc[x][y] = (float4){0.0f, 0.0f, 0.0f, 0.0f};

  half4 fa0[8], fb0[4], fa1[8], fb1[4];
  // One K step: the fragments of its second sub-step are read while the
  // first sub-step's MFMAs run, with the next tile's LDS writes (and, every
  // other step, the loads of the block two ahead) between them; then the
  // one barrier, and the next step's first fragments are read while the
  // second sub-step's MFMAs run.
#define STEP(cur, a, b, LOADS, nloads)                                         \
  FENCE();                                                                     \
  READ_FRAGS(cur, 16, fa1, fb1);                                               \
  FENCE();                                                                     \
  MFMAS(fa0, fb0);                                                             \
  STORE_TILE(1 - (cur), a, b);                                                 \
  LOADS;                                                                       \
  INTERLEAVE(4, 6, nloads);                                                    \
  FENCE();                                                                     \
  lds_barrier();                                                               \
  READ_FRAGS(1 - (cur), 0, fa0, fb0);                                          \
  FENCE();                                                                     \
  MFMAS(fa1, fb1);

  // Block n (K columns 64n .. 64n + 63) is tiles 2n and 2n + 1; even blocks
  // are staged in the x registers, odd ones in y. Step k writes tile k + 1,
  // and the block two ahead is loaded as soon as a set is free, about 2.5
  // steps (2500 cycles) before its first tile is written. Past the end the
  // loads repeat the last block (in bounds; what it writes is never read).
  LOAD_BLOCK(0, xa0, xa1, xb0, xb1);
  LOAD_BLOCK(64, ya0, ya1, yb0, yb1);
  STORE_TILE(0, xa0, xb0);
  lds_barrier();
  READ_FRAGS(0, 0, fa0, fb0);
  for (int kb = 0; kb < K; kb += 128) {
    int k2 = kb + 128 < K ? kb + 128 : K - 64;
    int k3 = kb + 192 < K ? kb + 192 : K - 64;
    STEP(0, xa1, xb1, LOAD_BLOCK(k2, xa0, xa1, xb0, xb1), 12);
    STEP(1, ya0, yb0, , 0);
    STEP(0, ya1, yb1, LOAD_BLOCK(k3, ya0, ya1, yb0, yb1), 12);
    STEP(1, xa0, xb0, , 0);
  }
  for (int x = 0; x < 8; ++x)
    for (int y = 0; y < 4; ++y)
      for (int j = 0; j < 4; ++j)
        C[(bm + wm + 16 * x + kq + j) * N + bn + wn + 16 * y + i] = acc[x][y][j];
}
