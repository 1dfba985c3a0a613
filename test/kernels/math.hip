// Element-wise math from asmevo_hip.h: the inline expansions of expf, logf,
// sqrtf, tanhf, erff (GELU), rsqrtf, fminf/fmaxf, floorf and __expf.
#include "asmevo_hip.h"

extern "C" __global__ void math_gelu(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float x = in[i];
  float gelu = 0.5f * x * (1.0f + erff(x * 0.70710678f));
  float t = tanhf(x);
  float l = logf(1.0f + expf(fminf(x, 20.0f))); // softplus
  float r = rsqrtf(fmaxf(fabsf(x), 1e-6f)) + sqrtf(fabsf(x));
  out[i] = gelu + t + l + r + floorf(x) + __expf(-x * x);
}
