// Grid-stride loop (SAXPY): a loop whose bounds come from kernel arguments
// and the dispatch packet (blockDim, gridDim).
#include "asmevo_hip.h"

extern "C" __global__ void saxpy_grid_stride(float *y, const float *x,
                                             float a, int n) {
  int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] = a * x[i] + y[i];
}
