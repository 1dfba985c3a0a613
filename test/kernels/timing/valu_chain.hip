// VALU chains: `iters` x 32 dependent v_fma_f32 (one chain), the same work
// as 4 independent chains, and a dependent chain of v_exp_f32
// (transcendental, quarter rate).
#include "asmevo_hip.h"

extern "C" __global__ void valu_dependent(float *out, float a, float b,
                                          int iters) {
  float x = out[threadIdx.x];
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 32; ++k)
      x = __builtin_fmaf(x, a, b);
  }
  out[threadIdx.x] = x;
}

extern "C" __global__ void valu_independent(float *out, float a, float b,
                                            int iters) {
  float x0 = out[threadIdx.x], x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      x0 = __builtin_fmaf(x0, a, b);
      x1 = __builtin_fmaf(x1, a, b);
      x2 = __builtin_fmaf(x2, a, b);
      x3 = __builtin_fmaf(x3, a, b);
    }
  }
  out[threadIdx.x] = x0 + x1 + x2 + x3;
}

extern "C" __global__ void trans_dependent(float *out, int iters) {
  float x = out[threadIdx.x];
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 32; ++k)
      x = __builtin_amdgcn_exp2f(x);
  }
  out[threadIdx.x] = x;
}
