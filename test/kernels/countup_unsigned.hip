// A uniform loop counted up with an unsigned <= compare (s_cmp_*_u32).
#include "asmevo_hip.h"

extern "C" __global__ void countup_unsigned(const float *__restrict__ x,
                                            float *__restrict__ y,
                                            unsigned start, unsigned bound) {
  float acc = 0.0f;
  int lane = threadIdx.x;
  for (unsigned i = start; i <= bound; i += 8)
    acc += x[(i & 1023u) + lane];
  y[lane] = acc;
}
