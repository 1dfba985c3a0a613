// Row sums of a rows x cols matrix (torch.sum(x, dim=1)): one workgroup per
// row; each thread accumulates a strided slice, then a tree reduction in LDS.
// Launch: block 256, grid rows.
#include "asmevo_hip.h"

#define BLOCK 256

extern "C" __global__ __launch_bounds__(BLOCK) void
reduce_sum_rows(const float *__restrict__ x, float *__restrict__ out, int rows,
                int cols) {
  __shared__ float partial[BLOCK];
  unsigned tid = threadIdx.x;
  const float *row = x + (long)blockIdx.x * cols;
  float acc = 0.0f;
  for (int c = tid; c < cols; c += BLOCK)
    acc += row[c];
  partial[tid] = acc;
  __syncthreads();
  for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s)
      partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    out[blockIdx.x] = partial[0];
}
