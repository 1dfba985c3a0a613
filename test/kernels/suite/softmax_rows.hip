// Row softmax (torch.softmax(x, dim=1)), numerically stable: one workgroup
// per row; row maximum and sum of exponentials by LDS tree reductions.
// Launch: block 256, grid rows.
#include "asmevo_hip.h"

#define BLOCK 256

__device__ __forceinline__ float block_max(float v, float *smem) {
  unsigned tid = threadIdx.x;
  smem[tid] = v;
  __syncthreads();
  for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s)
      smem[tid] = fmaxf(smem[tid], smem[tid + s]);
    __syncthreads();
  }
  float r = smem[0];
  __syncthreads();
  return r;
}

__device__ __forceinline__ float block_sum(float v, float *smem) {
  unsigned tid = threadIdx.x;
  smem[tid] = v;
  __syncthreads();
  for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
    if (tid < s)
      smem[tid] += smem[tid + s];
    __syncthreads();
  }
  float r = smem[0];
  __syncthreads();
  return r;
}

extern "C" __global__ __launch_bounds__(BLOCK) void
softmax_rows(const float *__restrict__ x, float *__restrict__ y, int rows,
             int cols) {
  __shared__ float smem[BLOCK];
  const float *in = x + (long)blockIdx.x * cols;
  float *out = y + (long)blockIdx.x * cols;

  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += BLOCK)
    m = fmaxf(m, in[c]);
  m = block_max(m, smem);

  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += BLOCK)
    s += expf(in[c] - m);
  s = block_sum(s, smem);

  float inv = 1.0f / s;
  for (int c = threadIdx.x; c < cols; c += BLOCK)
    out[c] = expf(in[c] - m) * inv;
}
