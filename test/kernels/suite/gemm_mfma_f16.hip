// fp16 GEMM with fp32 accumulation on the matrix cores:
//   C (M x N, f32) = A (M x K, f16, row-major) * B (K x N, f16, row-major).
// A workgroup of four wavefronts computes a 32 x 32 tile of C; each wave owns
// one 16 x 16 quarter and issues v_mfma_f32_16x16x16f16 per 16-deep slice of
// K. Tiles of A and B are staged in LDS (zero-padded at the matrix edges).
// MFMA 16x16x16 operand layout (lane l, quad q = l / 16, i = l % 16):
// A[i][4q .. 4q+3], B[4q .. 4q+3][i], result rows 4q .. 4q+3 of column i.
// Launch: block 256, grid (ceil(N / 32), ceil(M / 32)).
#include "asmevo_hip.h"

#define BM 32
#define BN 32
#define BK 16

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float4 __attribute__((ext_vector_type(4)));

extern "C" __global__ __launch_bounds__(256) void
gemm_mfma_f16(const _Float16 *__restrict__ A, const _Float16 *__restrict__ B,
              float *__restrict__ C, int M, int N, int K) {
  // Rows padded by 4 halves (8 bytes) to spread the fragment reads over
  // LDS banks.
  __shared__ _Float16 As[BM][BK + 4];
  __shared__ _Float16 Bs[BK][BN + 4];
  int tid = threadIdx.x;
  int wave = tid / 64, lane = tid % 64;
  int wm = (wave / 2) * 16, wn = (wave % 2) * 16;
  int bm = blockIdx.y * BM, bn = blockIdx.x * BN;
  int i = lane % 16, kq = (lane / 16) * 4;

  float4 acc = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = tid; e < BM * BK; e += 256) {
      int r = e / BK, c = e % BK;
      int gr = bm + r, gc = k0 + c;
      As[r][c] = (gr < M && gc < K) ? A[(long)gr * K + gc] : (_Float16)0.0f;
    }
    for (int e = tid; e < BK * BN; e += 256) {
      int r = e / BN, c = e % BN;
      int gr = k0 + r, gc = bn + c;
      Bs[r][c] = (gr < K && gc < N) ? B[(long)gr * N + gc] : (_Float16)0.0f;
    }
    __syncthreads();
    half4 a, b;
    for (int j = 0; j < 4; ++j) {
      a[j] = As[wm + i][kq + j];
      b[j] = Bs[kq + j][wn + i];
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, acc, 0, 0, 0);
    __syncthreads();
  }
  for (int j = 0; j < 4; ++j) {
    int r = bm + wm + kq + j, c = bn + wn + i;
    if (r < M && c < N)
      C[(long)r * N + c] = acc[j];
  }
}
