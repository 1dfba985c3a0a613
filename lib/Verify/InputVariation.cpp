//===- InputVariation.cpp - Scales, signs and special values for inputs --===//
#include "asmevo/Verify/InputVariation.h"
#include "asmevo/Emulator/Float.h"
#include "asmevo/Emulator/Random.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/xxhash.h"
#include <cmath>
#include <cstring>
#include <random>

using namespace llvm;
using namespace asmevo::emu;

namespace asmevo {
namespace verify {

std::string InputVariation::describe() const {
  if (isIdentity())
    return "as specified";
  std::string S;
  auto Add = [&](const Twine &T) {
    if (!S.empty())
      S += ", ";
    S += T.str();
  };
  if (Normal)
    Add("normal");
  if (Scale != 1)
    Add("x" + formatv("{0}", format("%g", Scale)).str());
  if (Negate)
    Add("negated");
  if (SpecialEvery)
    Add("special values 1 in " + Twine(SpecialEvery));
  return S;
}

InputVariation variationForSeed(unsigned K) {
  InputVariation V;
  switch (K % 5) {
  case 0:
    break;
  case 1: // Large magnitudes of the other sign, another distribution.
    V.Normal = true;
    V.Scale = 3;
    V.Negate = true;
    break;
  case 2: // Small magnitudes, where denormals and signed zeros matter.
    V.Scale = 0.01;
    V.SpecialEvery = 16;
    break;
  case 3:
    V.Negate = true;
    break;
  case 4:
    V.SpecialEvery = 3;
    break;
  }
  return V;
}

bool isVaried(const SpecBuffer &B) {
  if (!isFloatType(B.Type))
    return false;
  if (B.R != SpecBuffer::In && B.R != SpecBuffer::InOut)
    return false;
  switch (B.Init.K) {
  case InitSpec::Default:
  case InitSpec::Uniform:
  case InitSpec::Normal:
    return true;
  default:
    return false;
  }
}

double decodeElement(ElemType T, const uint8_t *P) {
  auto Load = [&](auto X) {
    std::memcpy(&X, P, sizeof(X));
    return X;
  };
  switch (T) {
  case ElemType::I8:
    return Load(int8_t());
  case ElemType::U8:
    return Load(uint8_t());
  case ElemType::I16:
    return Load(int16_t());
  case ElemType::U16:
    return Load(uint16_t());
  case ElemType::I32:
    return Load(int32_t());
  case ElemType::U32:
    return Load(uint32_t());
  case ElemType::I64:
    return double(Load(int64_t()));
  case ElemType::U64:
  case ElemType::Ptr:
    return double(Load(uint64_t()));
  case ElemType::F16:
    return f16ToF32(Load(uint16_t()));
  case ElemType::BF16:
    return bf16ToF32(Load(uint16_t()));
  case ElemType::F32:
    return Load(float());
  case ElemType::F64:
    return Load(double());
  case ElemType::FP8:
    return f8ToF32(*P, FP8FNUZ);
  case ElemType::BF8:
    return f8ToF32(*P, BF8FNUZ);
  }
  return 0;
}

/// Half the smallest normal of \p T: a denormal in every float format.
static double denormalOf(ElemType T) {
  switch (T) {
  case ElemType::F16:
    return std::ldexp(1.0, -15);
  case ElemType::F64:
    return std::ldexp(1.0, -1023);
  case ElemType::FP8:
    return std::ldexp(1.0, -8);
  case ElemType::BF8:
    return std::ldexp(1.0, -16);
  default: // f32, bf16
    return std::ldexp(1.0, -127);
  }
}

void applyVariation(const InputVariation &V, HostBuffer &B, uint64_t Seed) {
  if (V.isIdentity() || !isVaried(*B.Spec))
    return;
  const SpecBuffer &S = *B.Spec;
  ElemType T = S.Type;
  unsigned ES = elemSize(T);
  // The spec's range (or mean/std) gives the normal distribution's shape.
  double Centre = 0, Width = 1;
  if (S.Init.K == InitSpec::Uniform) {
    Centre = (S.Init.A + S.Init.B) / 2;
    Width = (S.Init.B - S.Init.A) / 2;
  } else if (S.Init.K == InitSpec::Normal) {
    Centre = S.Init.A;
    Width = S.Init.B;
  }
  std::mt19937_64 Rng(Seed * 0x2545F4914F6CDD1Dull ^
                      xxh3_64bits(S.Name));
  NormalSampler Normal(Centre, Width > 0 ? Width : 1);
  const double Den = denormalOf(T);
  const double Specials[] = {0.0, -0.0, Den, -Den, INFINITY, -INFINITY, NAN};
  uint8_t *P = B.Initial.data();
  for (uint64_t E = 0; E < B.Count; ++E) {
    uint8_t *Q = P + E * ES;
    double X = V.Normal ? Normal(Rng) : decodeElement(T, Q);
    X *= V.Scale;
    if (V.Negate)
      X = -X;
    if (V.SpecialEvery && Rng() % V.SpecialEvery == 0)
      X = Specials[Rng() % std::size(Specials)];
    encodeScalar(ScalarValue::ofFloat(X), T, Q);
  }
}

} // namespace verify
} // namespace asmevo
