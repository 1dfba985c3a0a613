// GELU, tanh approximation (PyTorch's approximate="tanh"):
//   y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
// Launch: block 256, grid ceil(n / 256).
#include "asmevo_hip.h"

extern "C" __global__ void gelu_tanh(const float *__restrict__ x,
                                     float *__restrict__ y, int n) {
  const float kSqrt2OverPi = 0.7978845608028654f;
  const float kCoeff = 0.044715f;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float v = x[i];
    float inner = kSqrt2OverPi * (v + kCoeff * v * v * v);
    y[i] = 0.5f * v * (1.0f + tanhf(inner));
  }
}
