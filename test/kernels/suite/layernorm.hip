// LayerNorm over the last dimension with affine parameters:
//   y = (x - mean) / sqrt(var + eps) * gamma + beta   (biased variance)
// One workgroup per row; mean, then variance of (x - mean), each by an LDS
// tree reduction.
// Launch: block 256, grid rows.
#include "asmevo_hip.h"

#define BLOCK 256

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
layernorm(const float *__restrict__ x, const float *__restrict__ gamma,
          const float *__restrict__ beta, float *__restrict__ y, int rows,
          int cols, float eps) {
  __shared__ float smem[BLOCK];
  const float *in = x + (long)blockIdx.x * cols;
  float *out = y + (long)blockIdx.x * cols;

  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += BLOCK)
    s += in[c];
  float mean = block_sum(s, smem) / cols;

  float sq = 0.0f;
  for (int c = threadIdx.x; c < cols; c += BLOCK) {
    float d = in[c] - mean;
    sq += d * d;
  }
  float rstd = rsqrtf(block_sum(sq, smem) / cols + eps);

  for (int c = threadIdx.x; c < cols; c += BLOCK)
    out[c] = (in[c] - mean) * rstd * gamma[c] + beta[c];
}
