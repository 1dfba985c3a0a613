//===- VALUOps.h - Templates turning lane functions into handlers -*- C++ -*-//
//
// An operation is a struct with a static lane function and its operand
// types; vop32<Op> / vop64<Op> wrap it into a handler that works for every
// encoding of the instruction (e32, e64, DPP, SDWA).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_EMULATOR_VALUOPS_H
#define ASMEVO_LIB_EMULATOR_VALUOPS_H

#include "Semantics.h"
#include "VALU.h"

namespace asmevo {
namespace emu {

/// 32-bit result from up to three 32-bit sources.
template <class Op> void vop32(Wave &W, const DInst &I) {
  alignas(64) uint32_t B0[64], B1[64], B2[64], R[64];
  uint64_t Mask = activeMask(W, I);
  const uint32_t *A = src32(W, I, 0, Op::T0, B0, Mask);
  const uint32_t *B = A, *C = A;
  if constexpr (Op::N > 1)
    B = src32(W, I, 1, Op::T1, B1, Mask);
  if constexpr (Op::N > 2)
    C = src32(W, I, 2, Op::T2, B2, Mask);
  if constexpr (Op::ReadsDst)
    C = W.vreg(I.Def[0]);
  for (unsigned L = 0; L < 64; ++L)
    R[L] = Op::f(A[L], B[L], C[L]);
  if constexpr (Op::TD == Ty::F32)
    outMods32(W, I, R);
  else if constexpr (Op::TD == Ty::F16)
    outMods16(W, I, R);
  store32(W, I, R, Mask);
}

/// 64-bit (or mixed-width) operation on uint64 lanes.
template <class Op> void vop64(Wave &W, const DInst &I) {
  alignas(64) uint64_t A[64], B[64], C[64], R[64];
  uint64_t Mask = W.exec();
  if (I.E != Enc::DPP)
    src64(W, I, 0, Op::T0, A);
  else if (!dppSrc64(W, I, Op::T0, A, Mask))
    return;
  if constexpr (Op::N > 1)
    src64(W, I, 1, Op::T1, B);
  if constexpr (Op::N > 2)
    src64(W, I, 2, Op::T2, C);
  for (unsigned L = 0; L < 64; ++L)
    R[L] = Op::f(A[L], Op::N > 1 ? B[L] : 0, Op::N > 2 ? C[L] : 0);
  if constexpr (is64(Op::TD)) {
    if constexpr (Op::TD == Ty::F64)
      outMods64(W, I, R);
    store64(W, I, R, Mask);
  } else {
    alignas(64) uint32_t R32[64];
    for (unsigned L = 0; L < 64; ++L)
      R32[L] = uint32_t(R[L]);
    if constexpr (Op::TD == Ty::F32)
      outMods32(W, I, R32);
    store32(W, I, R32, Mask);
  }
}

/// Compare producing a lane mask: VCC (e32) or an SGPR pair (e64, SDWA);
/// inactive lanes give 0. V_CMPX also writes EXEC.
template <class Op, bool X> void vopc(Wave &W, const DInst &I) {
  uint64_t Exec = W.exec();
  uint64_t Res = 0;
  if constexpr (is64(Op::T0)) {
    alignas(64) uint64_t A[64], B[64];
    src64(W, I, 0, Op::T0, A);
    src64(W, I, 1, Op::T1, B);
    for (unsigned L = 0; L < 64; ++L)
      Res |= uint64_t(Op::f(A[L], B[L])) << L;
  } else {
    alignas(64) uint32_t B0[64], B1[64];
    uint64_t Mask = Exec;
    const uint32_t *A = src32(W, I, 0, Op::T0, B0, Mask);
    const uint32_t *B = src32(W, I, 1, Op::T1, B1, Mask);
    for (unsigned L = 0; L < 64; ++L)
      Res |= uint64_t(Op::f(A[L], B[L])) << L;
  }
  Res &= Exec;
  if (I.NumDefs)
    storeMask(W, I.Def[0], Res);
  else
    W.setVcc(Res);
  if constexpr (X)
    W.setExec(Res);
}

#define ASMEVO_OP32(NAME, TA, TB, TC, TDST, NSRC, RDST, EXPR)                  \
  struct NAME {                                                                \
    [[maybe_unused]] static constexpr Ty T0 = TA, T1 = TB, T2 = TC, TD = TDST;                  \
    [[maybe_unused]] static constexpr unsigned N = NSRC;                                        \
    [[maybe_unused]] static constexpr bool ReadsDst = RDST;                                     \
    static inline uint32_t f(uint32_t a, uint32_t b, uint32_t c) {             \
      (void)a;                                                                 \
      (void)b;                                                                 \
      (void)c;                                                                 \
      return EXPR;                                                             \
    }                                                                          \
  };

#define ASMEVO_OP64(NAME, TA, TB, TC, TDST, NSRC, EXPR)                        \
  struct NAME {                                                                \
    [[maybe_unused]] static constexpr Ty T0 = TA, T1 = TB, T2 = TC, TD = TDST;                  \
    [[maybe_unused]] static constexpr unsigned N = NSRC;                                        \
    static inline uint64_t f(uint64_t a, uint64_t b, uint64_t c) {             \
      (void)a;                                                                 \
      (void)b;                                                                 \
      (void)c;                                                                 \
      return EXPR;                                                             \
    }                                                                          \
  };

#define ASMEVO_CMP(NAME, TA, TB, EXPR)                                         \
  struct NAME {                                                                \
    static constexpr Ty T0 = TA, T1 = TB;                                      \
    template <typename U> static inline bool f(U a, U b) { return EXPR; }      \
  };

// Encodings bit masks for SemEntry::Encodings.
constexpr uint8_t EncAll = 0x1f;
constexpr uint8_t EncNoSDWA = 0x0f;   // Native, E32, E64, DPP
constexpr uint8_t EncNoDPPSDWA = 0x07; // Native, E32, E64

} // namespace emu
} // namespace asmevo

#endif
