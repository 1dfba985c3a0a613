// Direct 2-D convolution, NCHW (torch.nn.functional.conv2d, stride 1,
// zero padding pad, with bias): x (n, c, h, w), wt (k, c, r, s), bias (k),
// y (n, k, h + 2 pad - r + 1, w + 2 pad - s + 1).
// A 16 x 16 block of output pixels per workgroup, one (image, output
// channel) pair per blockIdx.z.
// Launch: block (16, 16), grid (ceil(wo / 16), ceil(ho / 16), n * k).
#include "asmevo_hip.h"

extern "C" __global__ void conv2d(const float *__restrict__ x,
                                  const float *__restrict__ wt,
                                  const float *__restrict__ bias,
                                  float *__restrict__ y, int n, int c, int h,
                                  int w, int k, int r, int s, int pad) {
  int ho = h + 2 * pad - r + 1, wo = w + 2 * pad - s + 1;
  int ox = blockIdx.x * blockDim.x + threadIdx.x;
  int oy = blockIdx.y * blockDim.y + threadIdx.y;
  int img = blockIdx.z / k, oc = blockIdx.z % k;
  if (ox >= wo || oy >= ho)
    return;
  float acc = bias[oc];
  for (int ic = 0; ic < c; ++ic) {
    const float *xp = x + ((long)img * c + ic) * h * w;
    const float *wp = wt + ((long)oc * c + ic) * r * s;
    for (int dy = 0; dy < r; ++dy) {
      int iy = oy + dy - pad;
      if (iy < 0 || iy >= h)
        continue;
      for (int dx = 0; dx < s; ++dx) {
        int ix = ox + dx - pad;
        if (ix >= 0 && ix < w)
          acc += xp[iy * w + ix] * wp[dy * s + dx];
      }
    }
  }
  y[((long)img * k + oc) * ho * wo + (long)oy * wo + ox] = acc;
}
