// Kernel-argument preload: compiled with
//   -mllvm -amdgpu-kernarg-preload-count=4
// (see CMakeLists.txt), so the first four explicit arguments arrive in user
// SGPRs. The compiler emits a 256-byte backward-compatibility prologue
// (s_load + s_waitcnt + s_branch over s_nop padding) for firmware that does
// not preload, and sets kernarg_preload in the kernel descriptor.
#include "asmevo_hip.h"

extern "C" __global__ void preload_axpb(float *out, const float *in, float a,
                                        float b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = a * in[i] + b;
}

// No blockDim: without the dispatch pointer more user SGPRs are free.
extern "C" __global__ void preload_scalar(int *out, int x, int y, int z) {
  out[threadIdx.x] = x * (int)threadIdx.x + y - z;
}
