// C = A * B, row-major A (M x K), B (K x N), C (M x N): one output element
// per thread, operands read straight from global memory.
// Launch: block (16, 16), grid (ceil(N / 16), ceil(M / 16)).
#include "asmevo_hip.h"

extern "C" __global__ void matmul_naive(const float *__restrict__ A,
                                        const float *__restrict__ B,
                                        float *__restrict__ C, int M, int N,
                                        int K) {
  int row = blockIdx.y * blockDim.y + threadIdx.y;
  int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < M && col < N) {
    float acc = 0.0f;
    for (int k = 0; k < K; ++k)
      acc += A[row * K + k] * B[k * N + col];
    C[row * N + col] = acc;
  }
}
