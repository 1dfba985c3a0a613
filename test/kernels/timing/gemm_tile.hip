// An fp16 GEMM tile written to be bound by matrix-core throughput, for the
// cycle model's MFMA roofline (test/Timing/roofline.test). The suite's
// gemm_mfma_f16 is not MFMA-bound on any hardware (one MFMA per wave between
// two barriers); this one is register-blocked so that MFMA issue dominates:
//   C (M x N, f32) = A (M x K, f16, row-major) * Bt (N x K, f16, row-major)^T
// A workgroup of four waves computes a 128 x 128 tile; each wave owns a
// 64 x 64 quarter as 4 x 4 fragments of v_mfma_f32_16x16x16f16 (16 MFMAs
// per 16-deep K step). Per 32-deep K step a workgroup reads 16 KiB from
// global memory for 64 MFMAs (64 FLOP/B, above the L2 ridge), and the next
// step's tiles are loaded into registers while this step's MFMAs run.
// MFMA 16x16x16 operand layout (lane l, q = l / 16, i = l % 16):
// A[i][4q .. 4q+3], Bt[i][4q .. 4q+3], result rows 4q .. 4q+3 of column i.
// Requires M, N multiples of 128 and K a multiple of 32 (a timing kernel).
// Launch: block 256, grid (N / 128, M / 128).
#include "asmevo_hip.h"

#define BM 128
#define BN 128
#define BK 32
// Rows padded by 8 halves (16 bytes) to spread fragment reads over banks.
#define LDK (BK + 8)

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float4 __attribute__((ext_vector_type(4)));
typedef unsigned uint4v __attribute__((ext_vector_type(4)));

extern "C" __global__ __launch_bounds__(256) void
gemm_tile_f16(const _Float16 *__restrict__ A, const _Float16 *__restrict__ Bt,
              float *__restrict__ C, int M, int N, int K) {
  __shared__ _Float16 As[BM * LDK];
  __shared__ _Float16 Bs[BN * LDK];
  int tid = threadIdx.x;
  int wave = tid / 64, lane = tid % 64;
  int wm = (wave / 2) * 64, wn = (wave % 2) * 64;
  long bm = (long)blockIdx.y * BM, bn = (long)blockIdx.x * BN;
  int i = lane % 16, kq = (lane / 16) * 4;

  // Each thread moves two 16-byte pieces of A's tile and two of Bt's.
  int r0 = tid / 4, c0 = (tid % 4) * 8;
  int r1 = r0 + 64;
  uint4v a0, a1, b0, b1;
#define LOAD_TILES(k0)                                                         \
  a0 = *(const uint4v *)(A + (bm + r0) * K + (k0) + c0);                       \
  a1 = *(const uint4v *)(A + (bm + r1) * K + (k0) + c0);                       \
  b0 = *(const uint4v *)(Bt + (bn + r0) * K + (k0) + c0);                      \
  b1 = *(const uint4v *)(Bt + (bn + r1) * K + (k0) + c0);

  float4 acc[4][4];
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 4; ++y)
      acc[x][y] = (float4){0.0f, 0.0f, 0.0f, 0.0f};

  LOAD_TILES(0);
  for (int k0 = 0; k0 < K; k0 += BK) {
    *(uint4v *)(As + r0 * LDK + c0) = a0;
    *(uint4v *)(As + r1 * LDK + c0) = a1;
    *(uint4v *)(Bs + r0 * LDK + c0) = b0;
    *(uint4v *)(Bs + r1 * LDK + c0) = b1;
    __syncthreads();
    if (k0 + BK < K) {
      LOAD_TILES(k0 + BK);
    }
    for (int kk = 0; kk < BK; kk += 16) {
      half4 a[4], b[4];
      for (int x = 0; x < 4; ++x)
        a[x] = *(const half4 *)(As + (wm + 16 * x + i) * LDK + kk + kq);
      for (int y = 0; y < 4; ++y)
        b[y] = *(const half4 *)(Bs + (wn + 16 * y + i) * LDK + kk + kq);
      for (int x = 0; x < 4; ++x)
        for (int y = 0; y < 4; ++y)
          acc[x][y] =
              __builtin_amdgcn_mfma_f32_16x16x16f16(a[x], b[y], acc[x][y], 0, 0, 0);
    }
    __syncthreads();
  }
  for (int x = 0; x < 4; ++x)
    for (int y = 0; y < 4; ++y)
      for (int j = 0; j < 4; ++j)
        C[(bm + wm + 16 * x + kq + j) * N + bn + wn + 16 * y + i] = acc[x][y][j];
}
