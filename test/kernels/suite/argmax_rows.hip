// Row argmax (torch.argmax(x, dim=1)), first index among equal maxima:
// per-thread strided scan, then (value, index) pairs reduced across the
// wavefront with __shfl_xor and across waves through LDS.
// Launch: block 256, grid rows.
#include "asmevo_hip.h"

#define BLOCK 256
#define WAVES (BLOCK / 64)

__device__ __forceinline__ void better(float &v, int &i, float ov, int oi) {
  if (ov > v || (ov == v && oi < i)) {
    v = ov;
    i = oi;
  }
}

extern "C" __global__ __launch_bounds__(BLOCK) void
argmax_rows(const float *__restrict__ x, int *__restrict__ out, int rows,
            int cols) {
  __shared__ float wave_val[WAVES];
  __shared__ int wave_idx[WAVES];
  const float *row = x + (long)blockIdx.x * cols;
  float bv = -INFINITY;
  int bi = 0x7fffffff;
  for (int c = threadIdx.x; c < cols; c += BLOCK) {
    float v = row[c];
    if (v > bv) {
      bv = v;
      bi = c;
    }
  }
  for (int mask = 32; mask > 0; mask >>= 1)
    better(bv, bi, __shfl_xor(bv, mask), __shfl_xor(bi, mask));
  unsigned lane = threadIdx.x % 64, wave = threadIdx.x / 64;
  if (lane == 0) {
    wave_val[wave] = bv;
    wave_idx[wave] = bi;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < WAVES; ++w)
      better(bv, bi, wave_val[w], wave_idx[w]);
    out[blockIdx.x] = bi;
  }
}
