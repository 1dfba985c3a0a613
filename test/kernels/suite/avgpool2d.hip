// 2-D average pooling with zero padding (torch.nn.functional.avg_pool2d):
// x (nc, h, w) -> y (nc, ho, wo), ho = (h + 2 pad - kernel) / stride + 1.
// count_include_pad != 0 divides by kernel^2 (PyTorch's default), otherwise
// by the number of window elements inside the image.
// Launch: block (16, 16), grid (ceil(wo / 16), ceil(ho / 16), nc).
#include "asmevo_hip.h"

extern "C" __global__ void avgpool2d(const float *__restrict__ x,
                                     float *__restrict__ y, int nc, int h,
                                     int w, int kernel, int stride, int pad,
                                     int count_include_pad) {
  int ho = (h + 2 * pad - kernel) / stride + 1;
  int wo = (w + 2 * pad - kernel) / stride + 1;
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  if (ox >= wo || oy >= ho)
    return;
  const float *p = x + (long)blockIdx.z * h * w;
  int y0 = oy * stride - pad, x0 = ox * stride - pad;
  float sum = 0.0f;
  int count = 0;
  for (int dy = 0; dy < kernel; ++dy) {
    int iy = y0 + dy;
    if (iy < 0 || iy >= h)
      continue;
    for (int dx = 0; dx < kernel; ++dx) {
      int ix = x0 + dx;
      if (ix < 0 || ix >= w)
        continue;
      sum += p[iy * w + ix];
      ++count;
    }
  }
  int div = count_include_pad ? kernel * kernel : count;
  y[(long)blockIdx.z * ho * wo + oy * wo + ox] = sum / (float)div;
}
