// Embedding lookup (a row gather): out[i][d] = table[idx[i]][d]; an index
// outside [0, num_rows) yields a zero row (like a padding index) instead of
// reading out of bounds. One output element per thread.
// Launch: block 256, grid ceil(n_idx * dim / 256).
// Kernel-argument preload: all six arguments (see CMakeLists.txt).
#include "asmevo_hip.h"

extern "C" __global__ void embedding_gather(const int *__restrict__ idx,
                                            const float *__restrict__ table,
                                            float *__restrict__ out,
                                            int n_idx, int dim,
                                            int num_rows) {
  int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= n_idx * dim)
    return;
  int i = e / dim, d = e % dim;
  int r = idx[i];
  out[e] = (r >= 0 && r < num_rows) ? table[(long)r * dim + d] : 0.0f;
}
