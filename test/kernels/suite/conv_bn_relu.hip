// Fused Conv2d (3 x 3, stride 1, zero padding 1, no bias) + BatchNorm
// (inference: running statistics) + ReLU, NCHW (KernelBench level 2 style):
//   y = relu((conv(x, wt) - mean[k]) * gamma[k] / sqrt(var[k] + eps) + beta[k])
// x (n, c, h, w), wt (k, c, 3, 3), y (n, k, h, w).
// A 16 x 16 block of output pixels per workgroup, one (image, output
// channel) per blockIdx.z; for each input channel the 18 x 18 input patch
// (with halo) is staged in LDS.
// Launch: block (16, 16), grid (ceil(w / 16), ceil(h / 16), n * k).
#include "asmevo_hip.h"

#define TS 16
#define PATCH (TS + 2)

extern "C" __global__ __launch_bounds__(TS *TS) void
conv_bn_relu(const float *__restrict__ x, const float *__restrict__ wt,
             const float *__restrict__ gamma, const float *__restrict__ beta,
             const float *__restrict__ mean, const float *__restrict__ var,
             float *__restrict__ y, int n, int c, int h, int w, int k,
             float eps) {
  __shared__ float patch[PATCH][PATCH];
  int tx = threadIdx.x, ty = threadIdx.y;
  int tid = ty * TS + tx;
  int x0 = blockIdx.x * TS - 1, y0 = blockIdx.y * TS - 1;
  int img = blockIdx.z / k, oc = blockIdx.z % k;

  float acc = 0.0f;
  for (int ic = 0; ic < c; ++ic) {
    const float *xp = x + ((long)img * c + ic) * h * w;
    for (int e = tid; e < PATCH * PATCH; e += TS * TS) {
      int py = e / PATCH, px = e % PATCH;
      int iy = y0 + py, ix = x0 + px;
      patch[py][px] =
          (iy >= 0 && iy < h && ix >= 0 && ix < w) ? xp[iy * w + ix] : 0.0f;
    }
    __syncthreads();
    const float *wp = wt + ((long)oc * c + ic) * 9;
#pragma unroll
    for (int dy = 0; dy < 3; ++dy)
#pragma unroll
      for (int dx = 0; dx < 3; ++dx)
        acc += patch[ty + dy][tx + dx] * wp[dy * 3 + dx];
    __syncthreads();
  }

  int ox = blockIdx.x * TS + tx, oy = blockIdx.y * TS + ty;
  if (ox < w && oy < h) {
    float scale = gamma[oc] * rsqrtf(var[oc] + eps);
    float v = (acc - mean[oc]) * scale + beta[oc];
    y[((long)img * k + oc) * h * w + (long)oy * w + ox] = v > 0.0f ? v : 0.0f;
  }
}
