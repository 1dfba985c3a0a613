// Fused Linear + ReLU (KernelBench level 2 style):
//   C = relu(A * B + bias), A (M x K), B (K x N), bias (N), row-major.
// 64 x 64 tile of C per workgroup of 16 x 16 threads, each thread a 4 x 4
// register block; 64 x 16 slices of A (stored transposed) and 16 x 64 slices
// of B in LDS, zero-padded at the edges.
// Launch: block (16, 16), grid (ceil(N / 64), ceil(M / 64)).
#include "asmevo_hip.h"

#define BM 64
#define BN 64
#define BK 16
#define TM 4
#define TN 4

extern "C" __global__ __launch_bounds__(256) void
matmul_bias_relu(const float *__restrict__ A, const float *__restrict__ B,
                 const float *__restrict__ bias, float *__restrict__ C, int M,
                 int N, int K) {
  __shared__ float As[BK][BM];
  __shared__ float Bs[BK][BN];
  int tx = threadIdx.x, ty = threadIdx.y;
  int tid = ty * 16 + tx;
  int bm = blockIdx.y * BM, bn = blockIdx.x * BN;

  float acc[TM][TN];
  for (int i = 0; i < TM; ++i)
    for (int j = 0; j < TN; ++j)
      acc[i][j] = 0.0f;

  for (int k0 = 0; k0 < K; k0 += BK) {
    for (int e = tid; e < BM * BK; e += 256) {
      int r = e / BK, c = e % BK;
      int gr = bm + r, gc = k0 + c;
      As[c][r] = (gr < M && gc < K) ? A[(long)gr * K + gc] : 0.0f;
    }
    for (int e = tid; e < BK * BN; e += 256) {
      int r = e / BN, c = e % BN;
      int gr = k0 + r, gc = bn + c;
      Bs[r][c] = (gr < K && gc < N) ? B[(long)gr * N + gc] : 0.0f;
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BK; ++k) {
      float a[TM], b[TN];
      for (int i = 0; i < TM; ++i)
        a[i] = As[k][ty * TM + i];
      for (int j = 0; j < TN; ++j)
        b[j] = Bs[k][tx * TN + j];
      for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j)
          acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }

  for (int i = 0; i < TM; ++i) {
    int r = bm + ty * TM + i;
    for (int j = 0; j < TN; ++j) {
      int c = bn + tx * TN + j;
      if (r < M && c < N) {
        float v = acc[i][j] + bias[c];
        C[(long)r * N + c] = v > 0.0f ? v : 0.0f;
      }
    }
  }
}
