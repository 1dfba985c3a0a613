// One 16x16x16 fp16 MFMA per wave (v_mfma_f32_16x16x16_f16, available on
// gfx90a, gfx942 and gfx950), accumulating over K in a loop. Launch with one
// 64-lane wave per 16x16 output tile. Lane l holds A[l%16][4*(l/16)..+3],
// B[4*(l/16)..+3][l%16] and C rows 4*(l/16)..+3 of column l%16.
#include "asmevo_hip.h"

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float4 __attribute__((ext_vector_type(4)));

extern "C" __global__ void mfma_f16_gemm(float *c, const _Float16 *a,
                                         const _Float16 *b, int k) {
  unsigned lane = threadIdx.x & 63;
  unsigned row = lane & 15, quad = lane >> 4;
  float4 acc = {0.0f, 0.0f, 0.0f, 0.0f};
  for (int k0 = 0; k0 < k; k0 += 16) {
    half4 av, bv;
    for (int j = 0; j < 4; ++j) {
      av[j] = a[row * k + k0 + quad * 4 + j];
      bv[j] = b[(k0 + quad * 4 + j) * 16 + row];
    }
    acc = __builtin_amdgcn_mfma_f32_16x16x16f16(av, bv, acc, 0, 0, 0);
  }
  for (int j = 0; j < 4; ++j)
    c[(quad * 4 + j) * 16 + row] = acc[j];
}
