// Out-of-place matrix transpose through a padded 32 x 32 LDS tile (the
// classic coalesced transpose: 32 x 8 threads, four rows each).
//   out (cols x rows) = in (rows x cols)^T, both row-major.
// Launch: block (32, 8), grid (ceil(cols / 32), ceil(rows / 32)).
// Kernel-argument preload: all four arguments (see CMakeLists.txt).
#include "asmevo_hip.h"

#define TILE_DIM 32
#define BLOCK_ROWS 8

extern "C" __global__ __launch_bounds__(TILE_DIM *BLOCK_ROWS) void
transpose(const float *__restrict__ in, float *__restrict__ out, int rows,
          int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < cols && y + j < rows)
      tile[threadIdx.y + j][threadIdx.x] = in[(long)(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < rows && y + j < cols)
      out[(long)(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}
