// ReLU: y = x > 0 ? x : 0, one element per thread.
// Launch: block 256, grid ceil(n / 256).
// Kernel-argument preload: all three arguments (see CMakeLists.txt).
#include "asmevo_hip.h"

extern "C" __global__ void relu(const float *__restrict__ x,
                                float *__restrict__ y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    y[i] = v > 0.0f ? v : 0.0f;
  }
}
