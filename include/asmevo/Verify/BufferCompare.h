//===- BufferCompare.h - Element comparison, exact or within tolerance -*- C++ -*-===//
//
// Bit-exact by default: a candidate that rounds differently is a different
// program. A tolerance is only ever the user's explicit choice, per buffer
// (`tolerance: {ulp: N}` or `{rel: R, abs: A}`, docs/launch-spec.md); with
// one, NaN matches NaN of any payload and both zeros match.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_VERIFY_BUFFERCOMPARE_H
#define ASMEVO_VERIFY_BUFFERCOMPARE_H

#include "asmevo/Emulator/LaunchSpec.h"
#include "llvm/ADT/ArrayRef.h"
#include <cstdint>
#include <optional>
#include <string>

namespace asmevo {
namespace verify {

/// Whether element \p K1 matches \p K0 (the oracle) under \p Tol.
bool elementsMatch(emu::ElemType T, const emu::Tolerance &Tol,
                   const uint8_t *K0, const uint8_t *K1);

/// Index of the first element of \p K1 that does not match \p K0.
std::optional<uint64_t> firstMismatch(emu::ElemType T,
                                      const emu::Tolerance &Tol,
                                      llvm::ArrayRef<uint8_t> K0,
                                      llvm::ArrayRef<uint8_t> K1);

/// "0x3f800000 (1)": the bits and the value.
std::string formatElement(emu::ElemType T, const uint8_t *P);

} // namespace verify
} // namespace asmevo

#endif
