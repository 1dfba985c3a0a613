// Row maxima (torch.amax(x, dim=1)): one workgroup per row; per-thread
// strided maxima, a wavefront reduction with __shfl_down, then one value per
// wave through LDS.
// Launch: block 256 (any multiple of the wave size up to 1024), grid rows.
#include "asmevo_hip.h"

extern "C" __global__ void reduce_max_rows(const float *__restrict__ x,
                                           float *__restrict__ out, int rows,
                                           int cols) {
  __shared__ float wave_max[1024 / 64];
  const float *row = x + (long)blockIdx.x * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    m = fmaxf(m, row[c]);
  for (int off = warpSize / 2; off > 0; off >>= 1)
    m = fmaxf(m, __shfl_down(m, off));
  unsigned lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
  if (lane == 0)
    wave_max[wave] = m;
  __syncthreads();
  if (threadIdx.x == 0) {
    float r = wave_max[0];
    for (unsigned w = 1; w < blockDim.x / warpSize; ++w)
      r = fmaxf(r, wave_max[w]);
    out[blockIdx.x] = r;
  }
}
