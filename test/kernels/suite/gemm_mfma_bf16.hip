// bf16 GEMM with fp32 accumulation on the matrix cores, BLAS-style update:
//   C (M x N, f32) = alpha * A (M x K, bf16) * B (K x N, bf16) + beta * C
// bf16 values are passed as their 16-bit patterns (unsigned short), as in
// code written before __bf16 arithmetic existed. Each wavefront computes a
// 16 x 16 tile with v_mfma_f32_16x16x16bf16_1k, reading its operand
// fragments directly from global memory (zero outside the matrices); four
// waves per workgroup side by side along N.
// Launch: block 256, grid (ceil(N / 64), ceil(M / 16)).
#include "asmevo_hip.h"

typedef short short4 __attribute__((ext_vector_type(4)));
typedef float float4 __attribute__((ext_vector_type(4)));

extern "C" __global__ __launch_bounds__(256) void
gemm_mfma_bf16(const unsigned short *__restrict__ A,
               const unsigned short *__restrict__ B, float *__restrict__ C,
               int M, int N, int K, float alpha, float beta) {
  int wave = threadIdx.x / 64, lane = threadIdx.x % 64;
  int i = lane % 16, kq = (lane / 16) * 4;
  int row = blockIdx.y * 16 + i;              // row of A this lane loads
  int col = blockIdx.x * 64 + wave * 16 + i;  // column of B and C

  float4 acc = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < K; k0 += 16) {
    short4 a, b;
    for (int j = 0; j < 4; ++j) {
      int k = k0 + kq + j;
      a[j] = (row < M && k < K) ? (short)A[(long)row * K + k] : (short)0;
      b[j] = (k < K && col < N) ? (short)B[(long)k * N + col] : (short)0;
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, acc, 0, 0, 0);
  }
  for (int j = 0; j < 4; ++j) {
    int r = blockIdx.y * 16 + kq + j;
    if (r < M && col < N) {
      long o = (long)r * N + col;
      C[o] = alpha * acc[j] + beta * C[o];
    }
  }
}
