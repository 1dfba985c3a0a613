// 2-D max pooling without padding (torch.nn.functional.max_pool2d):
// x (nc, h, w) -> y (nc, (h - kernel) / stride + 1, (w - kernel) / stride + 1).
// One output element per thread.
// Launch: block 256, grid ceil(nc * ho * wo / 256).
#include "asmevo_hip.h"

extern "C" __global__ void maxpool2d(const float *__restrict__ x,
                                     float *__restrict__ y, int nc, int h,
                                     int w, int kernel, int stride) {
  int ho = (h - kernel) / stride + 1, wo = (w - kernel) / stride + 1;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= nc * ho * wo)
    return;
  int ox = idx % wo, oy = (idx / wo) % ho, ch = idx / (wo * ho);
  const float *p = x + (long)ch * h * w + (oy * stride) * w + ox * stride;
  float m = -INFINITY;
  for (int dy = 0; dy < kernel; ++dy)
    for (int dx = 0; dx < kernel; ++dx)
      m = fmaxf(m, p[dy * w + dx]);
  y[idx] = m;
}
