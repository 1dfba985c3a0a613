//===- Random.h - Fast seeded deviates for generated inputs -----*- C++ -*-===//
//
// libstdc++'s std::normal_distribution works in long double (logl) and
// dominated the time of generating a verification's inputs; this one is
// the Box-Muller transform in double precision. Values depend only on the
// engine's output, so generated inputs stay reproducible across builds.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_EMULATOR_RANDOM_H
#define ASMEVO_EMULATOR_RANDOM_H

#include <cmath>
#include <cstdint>

namespace asmevo {
namespace emu {

class NormalSampler {
public:
  NormalSampler(double Mean, double Std) : Mean(Mean), Std(Std) {}

  template <typename Engine> double operator()(Engine &R) {
    if (HaveSpare) {
      HaveSpare = false;
      return Mean + Std * Spare;
    }
    // U1 in (0, 1] keeps log() finite; 53 random bits each.
    double U1 = double((uint64_t(R()) >> 11) + 1) * 0x1.0p-53;
    double U2 = double(uint64_t(R()) >> 11) * 0x1.0p-53;
    double Rad = std::sqrt(-2.0 * std::log(U1));
    double Ang = 6.283185307179586 * U2;
    Spare = Rad * std::sin(Ang);
    HaveSpare = true;
    return Mean + Std * Rad * std::cos(Ang);
  }

private:
  double Mean, Std;
  double Spare = 0;
  bool HaveSpare = false;
};

} // namespace emu
} // namespace asmevo

#endif
