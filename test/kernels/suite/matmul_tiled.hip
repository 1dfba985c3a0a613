// C = A * B (row-major, M x K times K x N) with 16 x 16 tiles of A and B
// staged in LDS; out-of-range tile elements are loaded as zero.
// Launch: block (16, 16), grid (ceil(N / 16), ceil(M / 16)).
#include "asmevo_hip.h"

#define TILE 16

extern "C" __global__ __launch_bounds__(TILE *TILE) void
matmul_tiled(const float *__restrict__ A, const float *__restrict__ B,
             float *__restrict__ C, int M, int N, int K) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int tx = threadIdx.x, ty = threadIdx.y;
  int row = blockIdx.y * TILE + ty;
  int col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int k0 = 0; k0 < K; k0 += TILE) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
    Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N)
    C[row * N + col] = acc;
}
