// Matrix-vector product y = A x, A (m x n) row-major: one wavefront per row
// (four rows per workgroup), lanes stride along the row, the partial dot
// products are summed with __shfl_down.
// Launch: block 256, grid ceil(m / 4).
#include "asmevo_hip.h"

extern "C" __global__ void gemv(const float *__restrict__ A,
                                const float *__restrict__ x,
                                float *__restrict__ y, int m, int n) {
  int lane = threadIdx.x % warpSize;
  int row = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;
  if (row >= m)
    return;
  const float *a = A + (long)row * n;
  float acc = 0.0f;
  for (int c = lane; c < n; c += warpSize)
    acc += a[c] * x[c];
  for (int off = warpSize / 2; off > 0; off >>= 1)
    acc += __shfl_down(acc, off);
  if (lane == 0)
    y[row] = acc;
}
