// A kernel that calls a non-inlined __device__ function, so the code object
// contains a real call (s_getpc_b64 / s_swappc_b64) plus the callee's
// prologue/epilogue and stack-frame bookkeeping.
#include "asmevo_hip.h"

__attribute__((noinline)) __device__ float poly_eval(const float *coef,
                                                     int degree, float x) {
  float acc = coef[degree];
  for (int k = degree - 1; k >= 0; --k)
    acc = acc * x + coef[k];
  return acc;
}

extern "C" __global__ void device_call(float *out, const float *x,
                                       const float *coef, int degree, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = poly_eval(coef, degree, x[i]);
}
