// LDS latency with bank conflicts: one wave; lane l chases its own chain
// through lds[l * stride] (lds[k] = k, so every hop re-reads the same
// address). Lanes l and l + 32/stride share a bank: stride 1 is
// conflict-free, 2/4/8 are 2/4/8-way, 32 puts all 32 lanes of a half-wave
// in one bank (32-way).
#include "asmevo_hip.h"

extern "C" __global__ void lds_conflict(unsigned *out, int stride, int hops) {
  __shared__ unsigned lds[2048];
  for (int k = threadIdx.x; k < 2048; k += blockDim.x)
    lds[k] = k;
  __syncthreads();
  unsigned j = (threadIdx.x * stride) & 2047;
  for (int i = 0; i < hops; ++i)
    j = lds[j];
  out[threadIdx.x] = j;
}
