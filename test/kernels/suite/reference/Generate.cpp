//===- Generate.cpp -------------------------------------------------------===//
#include "Generate.h"
#include "ArrayFile.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <cmath>
#include <map>

using namespace llvm;
using namespace asmevo::suite;

namespace {
/// SplitMix64 (Steele, Lea, Flood: "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): small, fast, and good enough for test data.
class Rng {
public:
  explicit Rng(uint64_t Seed) : State(Seed) {}
  uint64_t next() {
    uint64_t Z = (State += 0x9e3779b97f4a7c15ull);
    Z = (Z ^ (Z >> 30)) * 0xbf58476d1ce4e5b9ull;
    Z = (Z ^ (Z >> 27)) * 0x94d049bb133111ebull;
    return Z ^ (Z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double unit() { return (double)(next() >> 11) * 0x1p-53; }

private:
  uint64_t State;
};
} // namespace

static uint64_t mix(uint64_t H, StringRef S) {
  for (unsigned char C : S)
    H = (H ^ C) * 0x100000001b3ull; // FNV-1a
  return (H ^ 0xff) * 0x100000001b3ull;
}

/// The stream seed: the seed, the buffer name and every scalar value (in
/// name order, so declaration order does not matter).
static uint64_t streamSeed(uint64_t Seed, StringRef Name,
                           const ScalarValues &Scalars) {
  uint64_t H = mix(0xcbf29ce484222325ull ^ Seed, Name);
  std::map<std::string, const ScalarValue *> Sorted;
  for (const auto &S : Scalars)
    Sorted[S.getKey().str()] = &S.getValue();
  for (const auto &[K, V] : Sorted) {
    H = mix(H, K);
    H = mix(H, isFloatType(V->Type) ? std::to_string(V->Float)
                                    : std::to_string(V->Int));
  }
  return H;
}

Expected<HostBuffer>
asmevo::suite::generateBuffer(const SuiteSpec &Spec, const BufferSpec &B,
                              uint64_t Count, uint64_t Seed,
                              const ScalarValues &Scalars) {
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             "'" + Spec.Path + "': buffers." + B.Name +
                                 ".init: " + Msg);
  };
  InitSpec Init = B.Init;
  bool Float = isFloatType(B.Type);
  if (Init.K == InitSpec::Default) {
    if (B.Role == BufferRole::Out || B.Role == BufferRole::Temp) {
      Init.K = InitSpec::Canary;
    } else {
      Init.K = InitSpec::Uniform;
      Init.A = Float ? -1 : 0;
      Init.B = Float ? 1 : 100;
    }
  }

  HostBuffer Buf(B.Type, Count);
  Rng R(streamSeed(Seed, B.Name, Scalars));
  switch (Init.K) {
  case InitSpec::Default:
  case InitSpec::Zeros:
    break;
  case InitSpec::Canary: {
    uint8_t Byte = 0xA5 ^ (uint8_t)(mix(0, B.Name) & 0x5a);
    std::fill(Buf.bytes().begin(), Buf.bytes().end(), Byte);
    break;
  }
  case InitSpec::Uniform:
    for (uint64_t I = 0; I < Count; ++I) {
      if (Float) {
        Buf.set(I, Init.A + (Init.B - Init.A) * R.unit());
      } else {
        int64_t Lo = (int64_t)Init.A, Hi = (int64_t)Init.B;
        if (Hi < Lo)
          return Fail("max < min");
        uint64_t Span = (uint64_t)(Hi - Lo) + 1;
        Buf.set(I, (double)(Lo + (int64_t)(Span ? R.next() % Span : R.next())));
      }
    }
    break;
  case InitSpec::Normal:
    if (!Float)
      return Fail("'normal' is for float buffers");
    for (uint64_t I = 0; I < Count; ++I) {
      // Box-Muller; 1 - unit() is in (0, 1], so the log is finite.
      double U1 = 1.0 - R.unit(), U2 = R.unit();
      double Z = std::sqrt(-2.0 * std::log(U1)) * std::cos(2 * M_PI * U2);
      Buf.set(I, Init.A + Init.B * Z);
    }
    break;
  case InitSpec::Constant:
    for (uint64_t I = 0; I < Count; ++I)
      Buf.set(I, Init.A);
    break;
  case InitSpec::Iota:
    for (uint64_t I = 0; I < Count; ++I)
      Buf.set(I, Init.A + Init.B * (double)I);
    break;
  case InitSpec::Special: {
    if (!Float)
      return Fail("'special' is for float buffers");
    static const double Specials[] = {0.0,      -0.0,      0x1p-149, -0x1p-149,
                                      INFINITY, -INFINITY, NAN,      1.0,
                                      -1.0,     65504.0,   0x1p-20,  3.0e38};
    for (uint64_t I = 0; I < Count; ++I)
      Buf.set(I, I % 3 == 0 ? Specials[R.next() % std::size(Specials)]
                            : 2.0 * R.unit() - 1.0);
    break;
  }
  case InitSpec::Permutation: {
    if (Float)
      return Fail("'permutation' is for integer buffers");
    std::vector<uint64_t> P(Count);
    for (uint64_t I = 0; I < Count; ++I)
      P[I] = I;
    for (uint64_t I = Count; I > 1; --I)
      std::swap(P[I - 1], P[R.next() % I]);
    for (uint64_t I = 0; I < Count; ++I)
      Buf.set(I, (double)P[I]);
    break;
  }
  case InitSpec::File: {
    SmallString<256> Path(Init.Path);
    if (!sys::path::is_absolute(Path)) {
      Path = sys::path::parent_path(Spec.Path);
      sys::path::append(Path, Init.Path);
    }
    return readArrayFile(Path, B.Type, Count);
  }
  case InitSpec::Pointers:
    return Fail("pointer buffers are not supported by the suite references");
  }
  return Buf;
}
