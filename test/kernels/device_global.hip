// A kernel that reads and writes a __device__ global variable and reads a
// __constant__ table: exercises global-address relocations in the code
// object (R_AMDGPU_REL32_LO/HI against .bss/.data/.rodata symbols).
#include "asmevo_hip.h"

__device__ int g_counter;
__device__ float g_scale = 2.0f;

__constant__ float c_table[8] = {0.0f, 0.5f, 1.0f, 1.5f,
                                 2.0f, 2.5f, 3.0f, 3.5f};

extern "C" __global__ void device_global(float *out, const int *idx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  float v = c_table[idx[i] & 7] * g_scale;
  out[i] = v;
  if (threadIdx.x == 0)
    atomicAdd(&g_counter, 1);
  if (i == 0)
    g_scale = v + 1.0f;
}
