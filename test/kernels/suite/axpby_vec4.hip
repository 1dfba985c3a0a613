// out = a * x + b * y, four elements per thread with 128-bit loads and
// stores; the last partial group of four is done element by element.
// The buffers must be 16-byte aligned (launch specs align to 256).
// Launch: block 256, grid ceil(ceil(n / 4) / 256).
// Kernel-argument preload: all six arguments (see CMakeLists.txt).
#include "asmevo_hip.h"

typedef float float4 __attribute__((ext_vector_type(4)));

extern "C" __global__ void axpby_vec4(const float *__restrict__ x,
                                      const float *__restrict__ y,
                                      float *__restrict__ out, float a,
                                      float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int base = i * 4;
  if (base + 3 < n) {
    float4 xv = *reinterpret_cast<const float4 *>(x + base);
    float4 yv = *reinterpret_cast<const float4 *>(y + base);
    *reinterpret_cast<float4 *>(out + base) = a * xv + b * yv;
  } else {
    for (int j = base; j < n; ++j)
      out[j] = a * x[j] + b * y[j];
  }
}
