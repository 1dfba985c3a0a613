// Streaming kernels (STREAM-like, as gpu-benches gpu-stream): a read-only
// sweep (writes only if a value is never-seen) and a triad.
#include "asmevo_hip.h"

extern "C" __global__ void stream_read(const float *x, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] == 12345.5f)
    out[0] = x[i];
}

extern "C" __global__ void stream_triad(float *a, const float *b,
                                        const float *c, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    a[i] = b[i] + s * c[i];
}
