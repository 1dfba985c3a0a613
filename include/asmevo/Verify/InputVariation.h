//===- InputVariation.h - Scales, signs and special values for inputs -*- C++ -*-===//
//
// One input distribution lets a candidate that is only right "on average
// data" through: a kernel that drops a sign, saturates early or mishandles
// NaN can agree with K0 on uniform [-1, 1] inputs. Each input seed of a
// verification therefore varies the float inputs the spec fills from a
// distribution: other scales, the other sign, a normal distribution, and
// special values (zeros of both signs, denormals of the element type, ±Inf,
// NaN). Inputs the user pinned (files, constants, iota, zeros, explicit
// special values) and integer inputs (often indices) are left as written.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_VERIFY_INPUTVARIATION_H
#define ASMEVO_VERIFY_INPUTVARIATION_H

#include "asmevo/Emulator/LaunchSession.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>

namespace asmevo {
namespace verify {

struct InputVariation {
  double Scale = 1;
  bool Negate = false;
  /// Regenerate from a normal distribution with the spec's centre and
  /// half-width as mean and standard deviation.
  bool Normal = false;
  /// One element in this many becomes a special value (0: none).
  unsigned SpecialEvery = 0;

  bool isIdentity() const {
    return Scale == 1 && !Negate && !Normal && !SpecialEvery;
  }
  /// Short description for receipts ("x3, negated, normal").
  std::string describe() const;
};

/// The variation of the \p K-th input seed (0 = the spec as written).
InputVariation variationForSeed(unsigned K);

/// Whether a buffer's initial content is subject to variation.
bool isVaried(const emu::SpecBuffer &B);

/// Rewrites \p B.Initial by \p V; \p Seed places the special values.
void applyVariation(const InputVariation &V, emu::HostBuffer &B,
                    uint64_t Seed);

/// Element \p P of type \p T as a double (floats and integers).
double decodeElement(emu::ElemType T, const uint8_t *P);

} // namespace verify
} // namespace asmevo

#endif
