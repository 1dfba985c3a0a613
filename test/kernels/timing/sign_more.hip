// K0 and K1 of four more sign tests (test/Timing/sign-tests.test): the same
// file compiled twice, K1 with -DASMEVO_SIGN_K1. The instructions whose
// order or form the pair is about are inline assembler (volatile, so the
// compiler keeps their order and form); everything else is the same code.
#include "asmevo_hip.h"

// A load hoisted ahead of independent ALU work: K0 issues the load after
// a chain of 8 dependent v_fma_f32 that do not need it, K1 before them, so
// the load's latency overlaps the chain. One wave per SIMD (64 threads per
// group): nothing else hides the latency.
extern "C" __global__ void sign_hoist(float *y, const float *x, int n,
                                      int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0, w = float(i);
  for (int k = 0; k < iters; ++k) {
    const float *p = x + ((i + k * 64) & (n - 1));
    float u;
#ifdef ASMEVO_SIGN_K1
    asm volatile("global_load_dword %0, %1, off" : "=v"(u) : "v"(p));
#endif
#pragma unroll
    for (int j = 0; j < 8; ++j)
      asm volatile("v_fma_f32 %0, %0, %0, 1.0" : "+v"(w));
#ifndef ASMEVO_SIGN_K1
    asm volatile("global_load_dword %0, %1, off" : "=v"(u) : "v"(p));
#endif
    // The wait names u: the compiler knows nothing of the load's latency.
    asm volatile("s_waitcnt vmcnt(0)" : "+v"(u)::"memory");
    acc += u;
  }
  y[i & (n - 1)] = acc + w;
}

// LDS padding: lane l reads row l of a 64 x 32 dword tile (stride 32
// dwords: every lane of a half-wave in one bank, a 32-way conflict); K1 pads
// rows to 33 dwords (stride 33: each lane in its own bank).
#ifdef ASMEVO_SIGN_K1
#define SIGN_ROW 33
#else
#define SIGN_ROW 32
#endif
extern "C" __global__ void sign_lds_pad(float *y, int iters) {
  __shared__ float t[64 * SIGN_ROW];
  for (int k = threadIdx.x; k < 64 * SIGN_ROW; k += blockDim.x)
    t[k] = float(k);
  __syncthreads();
  float acc = 0;
  unsigned l = threadIdx.x & 63;
  // One ds_read_b32 per iteration in both (the compiler would otherwise
  // widen K0's and K1's reads differently).
  unsigned base = (unsigned)(unsigned long)t + l * SIGN_ROW * 4;
  for (int k = 0; k < iters; ++k) {
    float v;
    asm volatile("ds_read_b32 %0, %1\n\ts_waitcnt lgkmcnt(0)"
                 : "=v"(v)
                 : "v"(base + (k & 31) * 4));
    acc += v;
  }
  y[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// Four global_load_dword of consecutive dwords (K0) against one
// global_load_dwordx4 of the same 16 bytes (K1).
extern "C" __global__ void sign_x4(float *y, const float *x, int n,
                                   int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float acc = 0;
  for (int k = 0; k < iters; ++k) {
    const float *p = x + ((4 * (i + k * 256)) & (n - 1));
    float a, b, c, d;
#ifdef ASMEVO_SIGN_K1
    typedef float f4 __attribute__((ext_vector_type(4)));
    f4 v;
    asm volatile("global_load_dwordx4 %0, %1, off" : "=v"(v) : "v"(p));
    asm volatile("s_waitcnt vmcnt(0)" : "+v"(v)::"memory");
    a = v.x, b = v.y, c = v.z, d = v.w;
#else
    asm volatile("global_load_dword %0, %1, off" : "=v"(a) : "v"(p));
    asm volatile("global_load_dword %0, %1, off offset:4" : "=v"(b) : "v"(p));
    asm volatile("global_load_dword %0, %1, off offset:8" : "=v"(c) : "v"(p));
    asm volatile("global_load_dword %0, %1, off offset:12" : "=v"(d) : "v"(p));
    asm volatile("s_waitcnt vmcnt(0)"
                 : "+v"(a), "+v"(b), "+v"(c), "+v"(d)::"memory");
#endif
    acc += (a + b) + (c + d);
  }
  y[i & (n - 1)] = acc;
}

// Two v_fma_f32 (K0) against one v_pk_fma_f32 doing both lanes' work (K1),
// 4 independent pairs per iteration: VALU throughput bound.
extern "C" __global__ void sign_pk(float *y, int iters) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
#ifdef ASMEVO_SIGN_K1
  typedef float f2 __attribute__((ext_vector_type(2)));
  f2 a[4] = {{float(i), 1}, {2, 3}, {4, 5}, {6, 7}};
  f2 b = {0.5f, 0.25f};
  for (int k = 0; k < iters; ++k)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      asm volatile("v_pk_fma_f32 %0, %0, %1, %1" : "+v"(a[j]) : "v"(b));
  float s = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j)
    s += a[j].x + a[j].y;
#else
  float a[4] = {float(i), 2, 4, 6}, c[4] = {1, 3, 5, 7};
  float bx = 0.5f, by = 0.25f;
  for (int k = 0; k < iters; ++k)
#pragma unroll
    for (int j = 0; j < 4; ++j)
      asm volatile("v_fma_f32 %0, %0, %2, %2\n\tv_fma_f32 %1, %1, %3, %3"
                   : "+v"(a[j]), "+v"(c[j])
                   : "v"(bx), "v"(by));
  float s = 0;
#pragma unroll
  for (int j = 0; j < 4; ++j)
    s += a[j] + c[j];
#endif
  y[i] = s;
}
