// Pointer chase, one lane (as te42kyfo/gpu-benches gpu-latency measures
// latency): j = buf[j] & mask, `hops` times. With buf[i] = i + stride (iota)
// and mask = count - 1, each hop moves `stride` elements on, through a
// footprint of count * 4 bytes. The difference of two hop counts gives the
// cycles per hop without the cold start.
#include "asmevo_hip.h"

extern "C" __global__ void pointer_chase(const unsigned *buf, unsigned *out,
                                         unsigned mask, int hops) {
  unsigned j = threadIdx.x; // a VGPR: the loads are vector loads
  for (int i = 0; i < hops; ++i)
    j = buf[j] & mask;
  out[threadIdx.x] = j;
}
