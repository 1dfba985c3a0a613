// K0 of the sign tests (test/Timing/sign-tests.test): a hot loop of two
// independent loads (one wait for both) and VALU work; K1 variants are made from its assembler
// text by the test (an extra s_nop 7 in the loop, a serializing
// s_waitcnt 0).
#include "asmevo_hip.h"

extern "C" __global__ void sign_loop(float *y, const float *x, int n,
                                     int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int k = 0; k < iters; ++k) {
    float u = x[(i + k * 64) & (n - 1)];
    float v = x[(i + k * 64 + n / 2) & (n - 1)];
    acc = __builtin_fmaf(acc, u, v);
  }
  y[i & (n - 1)] = acc;
}
