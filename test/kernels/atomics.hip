// Global atomics from asmevo_hip.h: add (int, unsigned, float), max, min,
// exchange and a compare-and-swap retry loop.
#include "asmevo_hip.h"

extern "C" __global__ void atomics(int *ia, unsigned *ua, float *fa,
                                   const int *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int v = in[i];
  atomicAdd(&ia[0], v);
  atomicAdd(&ua[0], (unsigned)v & 0xffu);
  atomicAdd(&fa[0], (float)v * 0.5f);
  atomicMax(&ia[1], v);
  atomicMin(&ia[2], v);
  atomicExch(&ia[3], i);
  // Saturating add via CAS: ua[1] = min(ua[1] + v, 1000).
  unsigned old = ua[1], assumed;
  do {
    assumed = old;
    unsigned next = assumed + (unsigned)v;
    next = next > 1000u ? 1000u : next;
    old = atomicCAS(&ua[1], assumed, next);
  } while (old != assumed);
}
