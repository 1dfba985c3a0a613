// Block-wide sum in LDS: tree reduction with __syncthreads() between steps,
// one atomicAdd per block. Launch with 256 threads per block.
#include "asmevo_hip.h"

#define BLOCK 256

extern "C" __global__ __launch_bounds__(BLOCK) void lds_reduce(float *sum,
                                                                const float *in,
                                                                int n) {
  __shared__ float partial[BLOCK];
  unsigned tid = threadIdx.x;
  int i = blockIdx.x * BLOCK + tid;
  partial[tid] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s)
      partial[tid] += partial[tid + s];
    __syncthreads();
  }
  if (tid == 0)
    atomicAdd(sum, partial[0]);
}
