// Divergent control flow on threadIdx: if/else and a lane-dependent loop,
// so the code has exec-mask manipulation (s_and_saveexec, s_cbranch_execz).
#include "asmevo_hip.h"

extern "C" __global__ void divergence(int *out, const int *in) {
  unsigned tid = threadIdx.x;
  int i = blockIdx.x * blockDim.x + tid;
  int v = in[i];
  if (tid & 1) {
    v = v * 3 + 1;
  } else if (tid < 32) {
    v = v / 2;
  } else {
    for (unsigned k = 0; k < (tid & 7); ++k)
      v ^= v << 1;
  }
  out[i] = v;
}
