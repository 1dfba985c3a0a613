// Direct 1-D convolution (torch.nn.functional.conv1d, stride 1, no padding,
// with bias): x (batch, cin, len), w (cout, cin, klen), bias (cout),
// y (batch, cout, len - klen + 1). One output element per thread.
// Launch: block 256, grid ceil(batch * cout * (len - klen + 1) / 256).
#include "asmevo_hip.h"

extern "C" __global__ void conv1d(const float *__restrict__ x,
                                  const float *__restrict__ w,
                                  const float *__restrict__ bias,
                                  float *__restrict__ y, int batch, int cin,
                                  int cout, int len, int klen) {
  int olen = len - klen + 1;
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= batch * cout * olen)
    return;
  int t = idx % olen;
  int co = (idx / olen) % cout;
  int b = idx / (olen * cout);
  float acc = bias[co];
  for (int ci = 0; ci < cin; ++ci) {
    const float *xr = x + ((long)b * cin + ci) * len + t;
    const float *wr = w + ((long)co * cin + ci) * klen;
    for (int k = 0; k < klen; ++k)
      acc += xr[k] * wr[k];
  }
  y[idx] = acc;
}
