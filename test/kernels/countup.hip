// A uniform loop counted up by a constant step to a bound from the kernel
// arguments, the shape compilers give `for (i = a; i < n; i += s)`: each
// trip loads one element (its index wraps inside x, so any start and bound
// stay in bounds) and adds it to a per-lane sum.
#include "asmevo_hip.h"

extern "C" __global__ void countup(const float *__restrict__ x,
                                   float *__restrict__ y, int start,
                                   int bound) {
  float acc = 0.0f;
  int lane = threadIdx.x;
  for (int i = start; i < bound; i += 16)
    acc += x[((unsigned)i & 1023u) + lane];
  y[lane] = acc;
}
