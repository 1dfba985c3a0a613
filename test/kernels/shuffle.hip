// Wavefront reductions with __shfl_down and __shfl_xor (ds_bpermute_b32),
// one global atomic per wave.
#include "asmevo_hip.h"

extern "C" __global__ void wave_reduce(float *sum, int *maxv, const float *in,
                                       int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? in[i] : 0.0f;
  int m = i < n ? (int)in[i] : -2147483647 - 1;
  for (int off = warpSize / 2; off > 0; off >>= 1) {
    v += __shfl_down(v, off);
    int o = __shfl_xor(m, off);
    m = o > m ? o : m;
  }
  if (__lane_id() == 0) {
    atomicAdd(sum, v);
    atomicMax(maxv, m);
  }
}
