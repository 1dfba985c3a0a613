// Inclusive prefix sum of each 256-element segment (the first pass of a
// device-wide scan): a wavefront scan with __shfl_up, wave totals through
// LDS; also writes each segment's total to block_sums.
// Launch: block 256, grid ceil(n / 256); block_sums has one entry per
// workgroup.
#include "asmevo_hip.h"

#define BLOCK 256
#define WAVES (BLOCK / 64)

extern "C" __global__ __launch_bounds__(BLOCK) void
block_scan(const int *__restrict__ in, int *__restrict__ out,
           int *__restrict__ block_sums, int n) {
  __shared__ int wave_sum[WAVES];
  int tid = threadIdx.x;
  int i = blockIdx.x * BLOCK + tid;
  int lane = tid % 64, wave = tid / 64;
  int v = i < n ? in[i] : 0;
  for (int off = 1; off < 64; off <<= 1) {
    int t = __shfl_up(v, off);
    if (lane >= off)
      v += t;
  }
  if (lane == 63)
    wave_sum[wave] = v;
  __syncthreads();
  int prefix = 0;
  for (int w = 0; w < wave; ++w)
    prefix += wave_sum[w];
  v += prefix;
  if (i < n)
    out[i] = v;
  if (tid == BLOCK - 1)
    block_sums[blockIdx.x] = v;
}
