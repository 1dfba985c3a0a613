// s_nop: a loop of 32 x `s_nop 7` (8 wait states each).
#include "asmevo_hip.h"

extern "C" __global__ void nop_loop(unsigned *out, int iters) {
  unsigned x = 0;
  for (int i = 0; i < iters; ++i) {
#pragma unroll
    for (int k = 0; k < 4; ++k)
      __asm__ volatile("s_nop 7\n s_nop 7\n s_nop 7\n s_nop 7\n"
                       "s_nop 7\n s_nop 7\n s_nop 7\n s_nop 7" ::: "memory");
    x += i;
  }
  out[threadIdx.x] = x;
}
