// Scaled, masked softmax over the last dimension (attention scores):
//   y[r][c] = softmax_c(mask[r][c] ? -inf : scale * x[r][c])
// A row whose every element is masked gives zeros (not NaN). One wavefront
// per row, four rows per workgroup; reductions with __shfl_xor.
// Launch: block 256, grid ceil(rows / 4).
#include "asmevo_hip.h"

extern "C" __global__ void softmax_mask(const float *__restrict__ x,
                                        const unsigned char *__restrict__ mask,
                                        float *__restrict__ y, int rows,
                                        int cols, float scale) {
  int lane = threadIdx.x % warpSize;
  int row = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;
  if (row >= rows)
    return;
  const float *in = x + (long)row * cols;
  const unsigned char *mk = mask + (long)row * cols;
  float *out = y + (long)row * cols;

  float m = -INFINITY;
  for (int c = lane; c < cols; c += warpSize)
    if (!mk[c])
      m = fmaxf(m, in[c] * scale);
  for (int off = warpSize / 2; off > 0; off >>= 1)
    m = fmaxf(m, __shfl_xor(m, off));

  if (m == -INFINITY) {
    for (int c = lane; c < cols; c += warpSize)
      out[c] = 0.0f;
    return;
  }

  float s = 0.0f;
  for (int c = lane; c < cols; c += warpSize)
    if (!mk[c])
      s += expf(in[c] * scale - m);
  for (int off = warpSize / 2; off > 0; off >>= 1)
    s += __shfl_xor(s, off);

  float inv = 1.0f / s;
  for (int c = lane; c < cols; c += warpSize)
    out[c] = mk[c] ? 0.0f : expf(in[c] * scale - m) * inv;
}
