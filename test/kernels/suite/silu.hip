// SiLU (swish): y = x * sigmoid(x) = x / (1 + exp(-x)), grid-stride loop.
// Launch: block 256, any grid (the spec uses 128 workgroups, so each thread
// handles several elements).
#include "asmevo_hip.h"

extern "C" __global__ void silu(const float *__restrict__ x,
                                float *__restrict__ y, int n) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    float v = x[i];
    y[i] = v / (1.0f + expf(-v));
  }
}
