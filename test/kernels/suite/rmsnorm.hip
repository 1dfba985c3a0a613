// RMSNorm: y = x / sqrt(mean(x^2) + eps) * weight. One wavefront per row,
// four rows per workgroup; the sum of squares is reduced with __shfl_xor.
// Launch: block 256, grid ceil(rows / 4).
#include "asmevo_hip.h"

extern "C" __global__ void rmsnorm(const float *__restrict__ x,
                                   const float *__restrict__ weight,
                                   float *__restrict__ y, int rows, int cols,
                                   float eps) {
  int lane = threadIdx.x % warpSize;
  int row = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;
  if (row >= rows)
    return;
  const float *in = x + (long)row * cols;
  float *out = y + (long)row * cols;
  float ss = 0.0f;
  for (int c = lane; c < cols; c += warpSize)
    ss += in[c] * in[c];
  for (int mask = warpSize / 2; mask > 0; mask >>= 1)
    ss += __shfl_xor(ss, mask);
  float r = rsqrtf(ss / cols + eps);
  for (int c = lane; c < cols; c += warpSize)
    out[c] = in[c] * r * weight[c];
}
