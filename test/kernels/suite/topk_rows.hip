// Top-8 of each row (torch.topk(x, 8, dim=1, sorted=True)): one thread per
// row keeps a sorted list of the 8 largest values and their column indices
// (insertion sort; among equal values the earlier column ranks first).
// Rows shorter than 8 leave -inf / -1 in the remaining slots.
// Launch: block 64, grid ceil(rows / 64).
#include "asmevo_hip.h"

#define TOPK 8

extern "C" __global__ void topk_rows(const float *__restrict__ x,
                                     float *__restrict__ values,
                                     int *__restrict__ indices, int rows,
                                     int cols) {
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows)
    return;
  float vals[TOPK];
  int ids[TOPK];
  for (int j = 0; j < TOPK; ++j) {
    vals[j] = -INFINITY;
    ids[j] = -1;
  }
  const float *p = x + (long)row * cols;
  for (int c = 0; c < cols; ++c) {
    float v = p[c];
    if (v > vals[TOPK - 1]) {
      int j = TOPK - 1;
      while (j > 0 && vals[j - 1] < v) {
        vals[j] = vals[j - 1];
        ids[j] = ids[j - 1];
        --j;
      }
      vals[j] = v;
      ids[j] = c;
    }
  }
  for (int j = 0; j < TOPK; ++j) {
    values[(long)row * TOPK + j] = vals[j];
    indices[(long)row * TOPK + j] = ids[j];
  }
}
