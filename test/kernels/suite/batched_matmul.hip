// Batched matmul (torch.bmm): C[b] = A[b] * B[b], A[b] M x K, B[b] K x N,
// all row-major and packed. A 32 x 32 tile of C per workgroup of 32 x 8
// threads, each thread computing four rows of its column; 32 x 32 tiles of
// A and B in LDS (padded rows against bank conflicts).
// Launch: block (32, 8), grid (ceil(N / 32), ceil(M / 32), batch).
#include "asmevo_hip.h"

#define TILE 32
#define ROWS 8

extern "C" __global__ __launch_bounds__(TILE *ROWS) void
batched_matmul(const float *__restrict__ A, const float *__restrict__ B,
               float *__restrict__ C, int batch, int M, int N, int K) {
  __shared__ float As[TILE][TILE + 1];
  __shared__ float Bs[TILE][TILE + 1];
  int tx = threadIdx.x, ty = threadIdx.y;
  const float *a = A + (long)blockIdx.z * M * K;
  const float *b = B + (long)blockIdx.z * K * N;
  float *c = C + (long)blockIdx.z * M * N;
  int row0 = blockIdx.y * TILE, col = blockIdx.x * TILE + tx;

  float acc[TILE / ROWS] = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += TILE) {
    for (int r = ty; r < TILE; r += ROWS) {
      int ar = row0 + r, ak = k0 + tx;
      As[r][tx] = (ar < M && ak < K) ? a[(long)ar * K + ak] : 0.0f;
      int bk = k0 + r;
      Bs[r][tx] = (bk < K && col < N) ? b[(long)bk * N + col] : 0.0f;
    }
    __syncthreads();
    for (int k = 0; k < TILE; ++k) {
      float bv = Bs[k][tx];
#pragma unroll
      for (int j = 0; j < TILE / ROWS; ++j)
        acc[j] += As[ty + j * ROWS][k] * bv;
    }
    __syncthreads();
  }
#pragma unroll
  for (int j = 0; j < TILE / ROWS; ++j) {
    int r = row0 + ty + j * ROWS;
    if (r < M && col < N)
      c[(long)r * N + col] = acc[j];
  }
}
