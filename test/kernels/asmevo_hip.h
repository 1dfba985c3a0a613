//===- asmevo_hip.h - Minimal HIP device-side API for AsmEvo test kernels -===//
//
// The single header included by every test kernel under test/kernels/.
//
// The kernels are compiled with
//   clang -x hip -nogpuinc -nogpulib --cuda-device-only ...
// so neither the HIP runtime headers nor the ROCm device libraries (ocml,
// ockl) are available. Everything a HIP author normally expects is provided
// here on top of clang builtins only. Only device code is supported; there is
// no host side.
//
// Every function is `static inline` + always_inline, so the only real calls
// (s_swappc_b64) in the test code objects are the ones a kernel asks for with
// __attribute__((noinline)).
//
//===----------------------------------------------------------------------===//

#ifndef ASMEVO_TEST_KERNELS_ASMEVO_HIP_H
#define ASMEVO_TEST_KERNELS_ASMEVO_HIP_H

#if !defined(__HIP__) || !defined(__AMDGPU__)
#error "asmevo_hip.h is for HIP device compilation (clang -x hip --cuda-device-only)"
#endif

//===----------------------------------------------------------------------===//
// Function / variable space qualifiers (clang's CUDA/HIP attributes)
//===----------------------------------------------------------------------===//

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __forceinline__ inline __attribute__((always_inline))
#define __launch_bounds__(MaxThreads)                                          \
  __attribute__((amdgpu_flat_work_group_size(1, MaxThreads)))

#define ASMEVO_DEVFN static __device__ inline __attribute__((always_inline))

typedef unsigned char asmevo_u8;
typedef unsigned short asmevo_u16;
typedef unsigned int asmevo_u32;
typedef unsigned long long asmevo_u64;

// AMDGPU address space 4 = constant (scalar loads), 3 = local (LDS).
#define ASMEVO_CONSTANT_AS __attribute__((address_space(4)))

#define warpSize (__builtin_amdgcn_wavefrontsize())

//===----------------------------------------------------------------------===//
// threadIdx / blockIdx / blockDim / gridDim
//===----------------------------------------------------------------------===//
//
// Work-group and grid sizes are read from the HSA kernel dispatch packet
// (hsa_kernel_dispatch_packet_t, pointed to by __builtin_amdgcn_dispatch_ptr):
//   offset  4: uint16 workgroup_size_x   offset 12: uint32 grid_size_x
//   offset  6: uint16 workgroup_size_y   offset 16: uint32 grid_size_y
//   offset  8: uint16 workgroup_size_z   offset 20: uint32 grid_size_z
// (grid_size is in work-items, so gridDim = ceil(grid_size / workgroup_size).)
//
// Why the dispatch packet and not the code-object-v5 implicit kernargs
// (hidden_group_size at implicitarg_ptr+12/14/16)? The packet layout does not
// depend on the code object version, and it keeps the explicit kernarg
// segment free of the 256-byte hidden-argument block, so kernarg_size in the
// kernel descriptor and the kernarg-preload prologue stay small and easy to
// read in tests. The cost is two user SGPRs (enable_sgpr_dispatch_ptr) in
// kernels that use blockDim/gridDim, which is itself a useful thing for the
// optimizer's tests to see.

ASMEVO_DEVFN const ASMEVO_CONSTANT_AS asmevo_u8 *__asmevo_dispatch_packet() {
  return (const ASMEVO_CONSTANT_AS asmevo_u8 *)__builtin_amdgcn_dispatch_ptr();
}

ASMEVO_DEVFN asmevo_u32 __asmevo_group_size(unsigned Dim) {
  const ASMEVO_CONSTANT_AS asmevo_u16 *P =
      (const ASMEVO_CONSTANT_AS asmevo_u16 *)(__asmevo_dispatch_packet() + 4);
  return P[Dim];
}

ASMEVO_DEVFN asmevo_u32 __asmevo_grid_size(unsigned Dim) {
  const ASMEVO_CONSTANT_AS asmevo_u32 *P =
      (const ASMEVO_CONSTANT_AS asmevo_u32 *)(__asmevo_dispatch_packet() + 12);
  return P[Dim];
}

ASMEVO_DEVFN asmevo_u32 __asmevo_num_groups(unsigned Dim) {
  asmevo_u32 G = __asmevo_grid_size(Dim), W = __asmevo_group_size(Dim);
  return (G + W - 1) / W;
}

// `threadIdx.x` etc. are properties (clang accepts __declspec(property) in
// HIP mode), so they have type unsigned int like in HIP.
#define ASMEVO_BUILTIN_DIM3(TypeName, GetX, GetY, GetZ)                        \
  struct TypeName {                                                            \
    __device__ __attribute__((always_inline)) asmevo_u32 get_x() const {       \
      return GetX;                                                             \
    }                                                                          \
    __device__ __attribute__((always_inline)) asmevo_u32 get_y() const {       \
      return GetY;                                                             \
    }                                                                          \
    __device__ __attribute__((always_inline)) asmevo_u32 get_z() const {       \
      return GetZ;                                                             \
    }                                                                          \
    __declspec(property(get = get_x)) asmevo_u32 x;                            \
    __declspec(property(get = get_y)) asmevo_u32 y;                            \
    __declspec(property(get = get_z)) asmevo_u32 z;                            \
  };

ASMEVO_BUILTIN_DIM3(__asmevo_thread_idx_t, __builtin_amdgcn_workitem_id_x(),
                    __builtin_amdgcn_workitem_id_y(),
                    __builtin_amdgcn_workitem_id_z())
ASMEVO_BUILTIN_DIM3(__asmevo_block_idx_t, __builtin_amdgcn_workgroup_id_x(),
                    __builtin_amdgcn_workgroup_id_y(),
                    __builtin_amdgcn_workgroup_id_z())
ASMEVO_BUILTIN_DIM3(__asmevo_block_dim_t, __asmevo_group_size(0),
                    __asmevo_group_size(1), __asmevo_group_size(2))
ASMEVO_BUILTIN_DIM3(__asmevo_grid_dim_t, __asmevo_num_groups(0),
                    __asmevo_num_groups(1), __asmevo_num_groups(2))

#undef ASMEVO_BUILTIN_DIM3

// Empty constexpr objects: never materialised in memory at -O1 and above.
static constexpr __asmevo_thread_idx_t threadIdx{};
static constexpr __asmevo_block_idx_t blockIdx{};
static constexpr __asmevo_block_dim_t blockDim{};
static constexpr __asmevo_grid_dim_t gridDim{};

//===----------------------------------------------------------------------===//
// Synchronisation
//===----------------------------------------------------------------------===//

ASMEVO_DEVFN void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

ASMEVO_DEVFN void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
ASMEVO_DEVFN void __threadfence_block() {
  __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup");
}

//===----------------------------------------------------------------------===//
// Atomics: relaxed ordering, agent (device) scope, like HIP's defaults.
//===----------------------------------------------------------------------===//

#define ASMEVO_ATOMIC_SCOPE __HIP_MEMORY_SCOPE_AGENT

#define ASMEVO_ATOMIC_RMW(Name, Builtin, T)                                    \
  ASMEVO_DEVFN T Name(T *Addr, T Val) {                                        \
    return Builtin(Addr, Val, __ATOMIC_RELAXED, ASMEVO_ATOMIC_SCOPE);          \
  }

ASMEVO_ATOMIC_RMW(atomicAdd, __hip_atomic_fetch_add, int)
ASMEVO_ATOMIC_RMW(atomicAdd, __hip_atomic_fetch_add, unsigned int)
ASMEVO_ATOMIC_RMW(atomicAdd, __hip_atomic_fetch_add, unsigned long long)
ASMEVO_ATOMIC_RMW(atomicAdd, __hip_atomic_fetch_add, float)
ASMEVO_ATOMIC_RMW(atomicSub, __hip_atomic_fetch_sub, int)
ASMEVO_ATOMIC_RMW(atomicSub, __hip_atomic_fetch_sub, unsigned int)
ASMEVO_ATOMIC_RMW(atomicMax, __hip_atomic_fetch_max, int)
ASMEVO_ATOMIC_RMW(atomicMax, __hip_atomic_fetch_max, unsigned int)
ASMEVO_ATOMIC_RMW(atomicMin, __hip_atomic_fetch_min, int)
ASMEVO_ATOMIC_RMW(atomicMin, __hip_atomic_fetch_min, unsigned int)
ASMEVO_ATOMIC_RMW(atomicAnd, __hip_atomic_fetch_and, int)
ASMEVO_ATOMIC_RMW(atomicAnd, __hip_atomic_fetch_and, unsigned int)
ASMEVO_ATOMIC_RMW(atomicOr, __hip_atomic_fetch_or, int)
ASMEVO_ATOMIC_RMW(atomicOr, __hip_atomic_fetch_or, unsigned int)
ASMEVO_ATOMIC_RMW(atomicExch, __hip_atomic_exchange, int)
ASMEVO_ATOMIC_RMW(atomicExch, __hip_atomic_exchange, unsigned int)
ASMEVO_ATOMIC_RMW(atomicExch, __hip_atomic_exchange, float)

#undef ASMEVO_ATOMIC_RMW

#define ASMEVO_ATOMIC_CAS(T)                                                   \
  ASMEVO_DEVFN T atomicCAS(T *Addr, T Compare, T Val) {                        \
    __hip_atomic_compare_exchange_strong(Addr, &Compare, Val, __ATOMIC_RELAXED,\
                                         __ATOMIC_RELAXED,                     \
                                         ASMEVO_ATOMIC_SCOPE);                 \
    return Compare; /* holds the old value whether or not it swapped */        \
  }

ASMEVO_ATOMIC_CAS(int)
ASMEVO_ATOMIC_CAS(unsigned int)
ASMEVO_ATOMIC_CAS(unsigned long long)

#undef ASMEVO_ATOMIC_CAS

//===----------------------------------------------------------------------===//
// Wave-level shuffles (ds_bpermute_b32; works in any wave size)
//===----------------------------------------------------------------------===//

ASMEVO_DEVFN unsigned __lane_id() {
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
}

// Source lane for __shfl_xor: Self ^ LaneMask, but stay inside the
// Width-sized segment that contains Self (otherwise read Self).
ASMEVO_DEVFN int __asmevo_shfl_xor_src(int LaneMask, int Width) {
  int Self = (int)__lane_id();
  int Src = Self ^ LaneMask;
  int SegEnd = (Self & ~(Width - 1)) + Width;
  return Src < SegEnd ? Src : Self;
}

// Source lane for __shfl_down: Self + Delta if still inside the segment.
ASMEVO_DEVFN int __asmevo_shfl_down_src(unsigned Delta, int Width) {
  int Self = (int)__lane_id();
  return (Self & (Width - 1)) + (int)Delta < Width ? Self + (int)Delta : Self;
}

// ds_bpermute takes a byte address (lane * 4).
ASMEVO_DEVFN int __shfl_xor(int Var, int LaneMask, int Width = warpSize) {
  return __builtin_amdgcn_ds_bpermute(__asmevo_shfl_xor_src(LaneMask, Width) << 2,
                                      Var);
}
ASMEVO_DEVFN unsigned __shfl_xor(unsigned Var, int LaneMask,
                                 int Width = warpSize) {
  return (unsigned)__shfl_xor((int)Var, LaneMask, Width);
}
ASMEVO_DEVFN float __shfl_xor(float Var, int LaneMask, int Width = warpSize) {
  return __builtin_bit_cast(
      float, __shfl_xor(__builtin_bit_cast(int, Var), LaneMask, Width));
}

ASMEVO_DEVFN int __shfl_down(int Var, unsigned Delta, int Width = warpSize) {
  return __builtin_amdgcn_ds_bpermute(__asmevo_shfl_down_src(Delta, Width) << 2,
                                      Var);
}
ASMEVO_DEVFN unsigned __shfl_down(unsigned Var, unsigned Delta,
                                  int Width = warpSize) {
  return (unsigned)__shfl_down((int)Var, Delta, Width);
}
ASMEVO_DEVFN float __shfl_down(float Var, unsigned Delta,
                               int Width = warpSize) {
  return __builtin_bit_cast(
      float, __shfl_down(__builtin_bit_cast(int, Var), Delta, Width));
}

// Source lane for __shfl_up: Self - Delta if still inside the segment.
ASMEVO_DEVFN int __asmevo_shfl_up_src(unsigned Delta, int Width) {
  int Self = (int)__lane_id();
  return (Self & (Width - 1)) >= (int)Delta ? Self - (int)Delta : Self;
}

ASMEVO_DEVFN int __shfl_up(int Var, unsigned Delta, int Width = warpSize) {
  return __builtin_amdgcn_ds_bpermute(__asmevo_shfl_up_src(Delta, Width) << 2,
                                      Var);
}
ASMEVO_DEVFN unsigned __shfl_up(unsigned Var, unsigned Delta,
                                int Width = warpSize) {
  return (unsigned)__shfl_up((int)Var, Delta, Width);
}
ASMEVO_DEVFN float __shfl_up(float Var, unsigned Delta, int Width = warpSize) {
  return __builtin_bit_cast(
      float, __shfl_up(__builtin_bit_cast(int, Var), Delta, Width));
}

//===----------------------------------------------------------------------===//
// Single-precision math
//===----------------------------------------------------------------------===//
//
// The __builtin_* forms below become LLVM intrinsics (llvm.exp.f32,
// llvm.log.f32, llvm.sqrt.f32, ...) because the AMDGPU toolchain compiles
// with -fno-math-errno; the AMDGPU backend expands them inline without any
// library (exp/log to about 1 ulp, sqrt correctly rounded).

#ifndef INFINITY
#define INFINITY (__builtin_inff())
#endif

ASMEVO_DEVFN float fabsf(float X) { return __builtin_fabsf(X); }
ASMEVO_DEVFN float fmaxf(float A, float B) { return __builtin_fmaxf(A, B); }
ASMEVO_DEVFN float fminf(float A, float B) { return __builtin_fminf(A, B); }
ASMEVO_DEVFN float floorf(float X) { return __builtin_floorf(X); }
ASMEVO_DEVFN float sqrtf(float X) { return __builtin_sqrtf(X); }
ASMEVO_DEVFN float expf(float X) { return __builtin_expf(X); }
ASMEVO_DEVFN float logf(float X) { return __builtin_logf(X); }

// Hardware reciprocal square root (v_rsq_f32): about 1 ulp, denormal inputs
// are not rescaled.
ASMEVO_DEVFN float rsqrtf(float X) { return __builtin_amdgcn_rsqf(X); }

// Fast exp: one v_exp_f32 (2^x) of x*log2(e). The rounding of the product
// makes the relative error grow with |x| (~|x| * 2^-24 extra); no denormal
// handling.
ASMEVO_DEVFN float __expf(float X) {
  return __builtin_amdgcn_exp2f(X * 1.44269504088896341f);
}

// tanhf: odd function, evaluated on a = |x|.
//  * a < 0.3: Maclaurin series of tanh up to x^11 (truncation < 1e-9
//    relative);
//  * a >= 0.3: tanh(a) = (1 - e) / (1 + e) with e = exp(-2a) <= 0.549, so
//    the subtraction loses at most about one bit; for large a, e underflows
//    to 0 and the result is exactly 1 (no overflow, unlike the e^{2a} form).
// Measured on the host (this code with libm expf, every 7th float, both
// signs) against double-precision tanh: max error 2.2 ulp, near a = 0.55;
// the device expf (about 1 ulp) may add roughly one ulp more.
ASMEVO_DEVFN float tanhf(float X) {
  float A = __builtin_fabsf(X);
  float R;
  if (A < 0.3f) {
    float S = A * A;
    // Coefficients 1, -1/3, 2/15, -17/315, 62/2835, -1382/155925.
    float P = -8.86323552990219656e-3f;
    P = __builtin_fmaf(P, S, 2.18694885361552028e-2f);
    P = __builtin_fmaf(P, S, -5.39682539682539683e-2f);
    P = __builtin_fmaf(P, S, 1.33333333333333333e-1f);
    P = __builtin_fmaf(P, S, -3.33333333333333333e-1f);
    R = __builtin_fmaf(P * S, A, A);
  } else {
    float E = expf(-2.0f * A);
    R = (1.0f - E) / (1.0f + E);
  }
  return __builtin_copysignf(R, X);
}

// erff: odd function, evaluated on a = |x|.
//  * a < 0.5: Maclaurin series 2/sqrt(pi) * sum (-1)^n a^(2n+1)/(n!(2n+1)),
//    n = 0..6 (truncation < 1e-9 relative); keeps full relative accuracy
//    near 0, where the rational form below would cancel.
//  * a >= 0.5: Abramowitz & Stegun, Handbook of Mathematical Functions,
//    formula 7.1.26: erf(a) = 1 - (a1 t + a2 t^2 + a3 t^3 + a4 t^4 + a5 t^5)
//    e^{-a^2}, t = 1/(1 + p a), p = 0.3275911, a1 = 0.254829592,
//    a2 = -0.284496736, a3 = 1.421413741, a4 = -1.453152027,
//    a5 = 1.061405429, with the published bound |error| <= 1.5e-7 (absolute).
// Measured on the host (this code with libm expf, every 7th float, both
// signs) against double-precision erf: max absolute error 3.4e-7 (= 5.6 ulp,
// near a = 0.52: the 1.4e-7 of the formula itself plus float rounding);
// below 0.5 within 2.5 ulp; exactly 1.0f from a = 3.92 on.
ASMEVO_DEVFN float erff(float X) {
  float A = __builtin_fabsf(X);
  float R;
  if (A < 0.5f) {
    float S = A * A;
    // 2/sqrt(pi) times 1, -1/3, 1/10, -1/42, 1/216, -1/1320, 1/9360.
    float P = 1.20553330e-4f;
    P = __builtin_fmaf(P, S, -8.54832702e-4f);
    P = __builtin_fmaf(P, S, 5.22397763e-3f);
    P = __builtin_fmaf(P, S, -2.68661706e-2f);
    P = __builtin_fmaf(P, S, 1.12837917e-1f);
    P = __builtin_fmaf(P, S, -3.76126389e-1f);
    P = __builtin_fmaf(P, S, 1.12837917e+0f);
    R = P * A;
  } else {
    float T = 1.0f / __builtin_fmaf(0.3275911f, A, 1.0f);
    float P = 1.061405429f;
    P = __builtin_fmaf(P, T, -1.453152027f);
    P = __builtin_fmaf(P, T, 1.421413741f);
    P = __builtin_fmaf(P, T, -0.284496736f);
    P = __builtin_fmaf(P, T, 0.254829592f);
    R = 1.0f - P * T * expf(-A * A);
  }
  return __builtin_copysignf(R, X);
}

#undef ASMEVO_DEVFN

#endif // ASMEVO_TEST_KERNELS_ASMEVO_HIP_H
