//===- BitOps.h - Bit-count semantics shared by SALU and VALU -*- C++ -*-===//
//
// Operations the scalar and the vector units both have (S_FLBIT_I32 and
// V_FFBH_I32 are the same operation), defined once so the two cannot drift.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_EMULATOR_BITOPS_H
#define ASMEVO_LIB_EMULATOR_BITOPS_H

#include <cstdint>

namespace asmevo {
namespace emu {

/// The count includes the sign bit: the position, from the MSB, of the
/// first bit that differs from it (ISA: FFBH_I32(0x40000000) = 1; LLVM's
/// sint_to_fp lowering subtracts 1 from it to get the redundant sign bits).
/// -1 when every bit equals the sign bit.
inline int32_t ffbhSigned32(int32_t V) {
  if (V == 0 || V == -1)
    return -1;
  uint32_t U = V < 0 ? ~uint32_t(V) : uint32_t(V);
  return __builtin_clz(U);
}

inline int32_t ffbhSigned64(int64_t V) {
  if (V == 0 || V == -1)
    return -1;
  uint64_t U = V < 0 ? ~uint64_t(V) : uint64_t(V);
  return __builtin_clzll(U);
}

} // namespace emu
} // namespace asmevo

#endif // ASMEVO_LIB_EMULATOR_BITOPS_H
