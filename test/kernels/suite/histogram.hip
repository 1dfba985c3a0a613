// 256-bin byte histogram: a private histogram per workgroup in LDS (LDS
// atomics), merged into the global one with one global atomic per non-empty
// bin. Grid-stride over the input; hist is accumulated into, not cleared.
// Launch: block 256, any grid (the spec uses 64 workgroups).
#include "asmevo_hip.h"

#define BINS 256

extern "C" __global__ void histogram(const unsigned char *__restrict__ data,
                                     unsigned *__restrict__ hist, int n) {
  __shared__ unsigned local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b] != 0)
      atomicAdd(&hist[b], local[b]);
}
