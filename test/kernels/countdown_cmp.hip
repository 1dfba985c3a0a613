// A uniform loop counted down by a constant step, leaving when i > bound
// fails (loop-unroll's guarded form, mirrored).
#include "asmevo_hip.h"

extern "C" __global__ void countdown_cmp(const float *__restrict__ x,
                                         float *__restrict__ y, int start,
                                         int bound) {
  float acc = 0.0f;
  int lane = threadIdx.x;
  for (int i = start; i > bound; i -= 16)
    acc += x[((unsigned)i & 1023u) + lane];
  y[lane] = acc;
}
