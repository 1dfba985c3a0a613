// A dependent chain of v_mfma_f32_32x32x8_f16 (8 passes, 32 cycles per
// AMD's matrix instruction calculator): acc = A * B + acc, `iters` x 4.
#include "asmevo_hip.h"

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float16 __attribute__((ext_vector_type(16)));

extern "C" __global__ void mfma_chain(float *out, const _Float16 *in,
                                      int iters) {
  unsigned lane = threadIdx.x & 63;
  half4 a, b;
  for (int j = 0; j < 4; ++j) {
    a[j] = in[lane * 4 + j];
    b[j] = in[256 + lane * 4 + j];
  }
  float16 acc = {};
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 4; ++k)
      acc = __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, acc, 0, 0, 0);
  }
  for (int j = 0; j < 16; ++j)
    out[lane * 16 + j] = acc[j];
}
