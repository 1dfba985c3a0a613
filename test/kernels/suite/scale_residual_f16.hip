// Half-precision residual connection: out = alpha * x + residual, computed
// in fp16 on pairs of elements (packed math); an odd last element is done
// alone. alpha is passed as float and rounded to half once.
// Launch: block 256, grid ceil(ceil(n / 2) / 256).
#include "asmevo_hip.h"

typedef _Float16 half2 __attribute__((ext_vector_type(2)));

extern "C" __global__ void scale_residual_f16(const _Float16 *__restrict__ x,
                                              const _Float16 *__restrict__ res,
                                              _Float16 *__restrict__ out,
                                              float alpha, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int base = 2 * i;
  _Float16 a = (_Float16)alpha;
  if (base + 1 < n) {
    half2 xv = *reinterpret_cast<const half2 *>(x + base);
    half2 rv = *reinterpret_cast<const half2 *>(res + base);
    *reinterpret_cast<half2 *>(out + base) = xv * a + rv;
  } else if (base < n) {
    out[base] = x[base] * a + res[base];
  }
}
