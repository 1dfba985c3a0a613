// Scatter-add (torch.Tensor.index_add_ on a 1-D int32 tensor):
// out[idx[i]] += src[i] with global atomics; indices outside [0, out_size)
// are skipped. Integer atomics, so the result does not depend on the order.
// Launch: block 256, grid ceil(n / 256).
#include "asmevo_hip.h"

extern "C" __global__ void scatter_add(const int *__restrict__ idx,
                                       const int *__restrict__ src,
                                       int *__restrict__ out, int n,
                                       int out_size) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    int j = idx[i];
    if (j >= 0 && j < out_size)
      atomicAdd(&out[j], src[i]);
  }
}
