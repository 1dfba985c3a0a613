//===- HostBuffer.cpp -----------------------------------------------------===//
#include "HostBuffer.h"
#include "llvm/ADT/StringSwitch.h"
#include <cmath>
#include <cstring>

using namespace llvm;
using namespace asmevo::suite;

std::optional<ElemType> asmevo::suite::parseElemType(StringRef Name) {
  return StringSwitch<std::optional<ElemType>>(Name)
      .Case("i8", ElemType::I8)
      .Case("u8", ElemType::U8)
      .Case("i16", ElemType::I16)
      .Case("u16", ElemType::U16)
      .Case("i32", ElemType::I32)
      .Case("u32", ElemType::U32)
      .Case("i64", ElemType::I64)
      .Case("u64", ElemType::U64)
      .Case("f16", ElemType::F16)
      .Case("bf16", ElemType::BF16)
      .Case("f32", ElemType::F32)
      .Case("f64", ElemType::F64)
      .Default(std::nullopt);
}

StringRef asmevo::suite::elemTypeName(ElemType T) {
  switch (T) {
  case ElemType::I8:
    return "i8";
  case ElemType::U8:
    return "u8";
  case ElemType::I16:
    return "i16";
  case ElemType::U16:
    return "u16";
  case ElemType::I32:
    return "i32";
  case ElemType::U32:
    return "u32";
  case ElemType::I64:
    return "i64";
  case ElemType::U64:
    return "u64";
  case ElemType::F16:
    return "f16";
  case ElemType::BF16:
    return "bf16";
  case ElemType::F32:
    return "f32";
  case ElemType::F64:
    return "f64";
  }
  return "?";
}

unsigned asmevo::suite::elemSize(ElemType T) {
  switch (T) {
  case ElemType::I8:
  case ElemType::U8:
    return 1;
  case ElemType::I16:
  case ElemType::U16:
  case ElemType::F16:
  case ElemType::BF16:
    return 2;
  case ElemType::I32:
  case ElemType::U32:
  case ElemType::F32:
    return 4;
  case ElemType::I64:
  case ElemType::U64:
  case ElemType::F64:
    return 8;
  }
  return 1;
}

bool asmevo::suite::isFloatType(ElemType T) {
  return T == ElemType::F16 || T == ElemType::BF16 || T == ElemType::F32 ||
         T == ElemType::F64;
}

// Binary16 and bfloat16 differ only in exponent and mantissa widths.
namespace {
struct SmallFloatFormat {
  int MantBits;
  int ExpBits;
  int bias() const { return (1 << (ExpBits - 1)) - 1; }
};
constexpr SmallFloatFormat HalfFormat{10, 5};
constexpr SmallFloatFormat BF16Format{7, 8};
} // namespace

static double decodeSmall(uint16_t Bits, SmallFloatFormat F) {
  bool Neg = Bits >> 15;
  int Exp = (Bits >> F.MantBits) & ((1 << F.ExpBits) - 1);
  int Mant = Bits & ((1 << F.MantBits) - 1);
  double V;
  if (Exp == (1 << F.ExpBits) - 1)
    V = Mant ? std::nan("") : INFINITY;
  else if (Exp == 0)
    V = std::ldexp((double)Mant, 1 - F.bias() - F.MantBits);
  else
    V = std::ldexp((double)(Mant | (1 << F.MantBits)),
                   Exp - F.bias() - F.MantBits);
  return Neg ? -V : V;
}

static uint16_t encodeSmall(double V, SmallFloatFormat F) {
  uint16_t Sign = std::signbit(V) ? 0x8000 : 0;
  uint16_t ExpMask = (uint16_t)(((1 << F.ExpBits) - 1) << F.MantBits);
  if (std::isnan(V))
    return ExpMask | (uint16_t)(1 << (F.MantBits - 1));
  double A = std::fabs(V);
  int MinExp = 1 - F.bias();
  int E = 0;
  std::frexp(A, &E); // A = m * 2^E with m in [0.5, 1)
  int Exp = std::max(E - 1, MinExp);
  // A / Quantum is exact (scaling by a power of two), so one nearbyint
  // (round to nearest even in the default mode) is the only rounding.
  double Quantum = std::ldexp(1.0, Exp - F.MantBits);
  double M = std::nearbyint(A / Quantum);
  if (M >= (double)(2 << F.MantBits)) { // carried into the next binade
    M /= 2;
    ++Exp;
  }
  if (A == 0 || M == 0)
    return Sign;
  if (M < (double)(1 << F.MantBits)) // subnormal
    return Sign | (uint16_t)M;
  int Biased = Exp + F.bias();
  if (Biased >= (1 << F.ExpBits) - 1)
    return Sign | ExpMask; // infinity
  return Sign | (uint16_t)(Biased << F.MantBits) |
         (uint16_t)((uint32_t)M - (1u << F.MantBits));
}

double asmevo::suite::halfToDouble(uint16_t Bits) {
  return decodeSmall(Bits, HalfFormat);
}
double asmevo::suite::bf16ToDouble(uint16_t Bits) {
  return decodeSmall(Bits, BF16Format);
}
uint16_t asmevo::suite::doubleToHalf(double V) {
  return encodeSmall(V, HalfFormat);
}
uint16_t asmevo::suite::doubleToBF16(double V) {
  return encodeSmall(V, BF16Format);
}

uint64_t HostBuffer::getBits(uint64_t I) const {
  uint64_t V = 0;
  std::memcpy(&V, Bytes.data() + I * elemSize(Type), elemSize(Type));
  return V; // little-endian host assumed (x86-64, AArch64)
}

template <typename T> static T load(const uint8_t *P) {
  T V;
  std::memcpy(&V, P, sizeof(T));
  return V;
}
template <typename T> static void store(uint8_t *P, T V) {
  std::memcpy(P, &V, sizeof(T));
}

double HostBuffer::get(uint64_t I) const {
  const uint8_t *P = Bytes.data() + I * elemSize(Type);
  switch (Type) {
  case ElemType::I8:
    return load<int8_t>(P);
  case ElemType::U8:
    return load<uint8_t>(P);
  case ElemType::I16:
    return load<int16_t>(P);
  case ElemType::U16:
    return load<uint16_t>(P);
  case ElemType::I32:
    return load<int32_t>(P);
  case ElemType::U32:
    return load<uint32_t>(P);
  case ElemType::I64:
    return (double)load<int64_t>(P);
  case ElemType::U64:
    return (double)load<uint64_t>(P);
  case ElemType::F16:
    return halfToDouble(load<uint16_t>(P));
  case ElemType::BF16:
    return bf16ToDouble(load<uint16_t>(P));
  case ElemType::F32:
    return load<float>(P);
  case ElemType::F64:
    return load<double>(P);
  }
  return 0;
}

void HostBuffer::set(uint64_t I, double V) {
  uint8_t *P = Bytes.data() + I * elemSize(Type);
  // Integers go through int64_t so negative values wrap like a C cast.
  int64_t IV = std::isfinite(V) ? (int64_t)V : 0;
  switch (Type) {
  case ElemType::I8:
    store<int8_t>(P, (int8_t)IV);
    return;
  case ElemType::U8:
    store<uint8_t>(P, (uint8_t)IV);
    return;
  case ElemType::I16:
    store<int16_t>(P, (int16_t)IV);
    return;
  case ElemType::U16:
    store<uint16_t>(P, (uint16_t)IV);
    return;
  case ElemType::I32:
    store<int32_t>(P, (int32_t)IV);
    return;
  case ElemType::U32:
    store<uint32_t>(P, (uint32_t)IV);
    return;
  case ElemType::I64:
    store<int64_t>(P, IV);
    return;
  case ElemType::U64:
    store<uint64_t>(P, (uint64_t)IV);
    return;
  case ElemType::F16:
    store<uint16_t>(P, doubleToHalf(V));
    return;
  case ElemType::BF16:
    store<uint16_t>(P, doubleToBF16(V));
    return;
  case ElemType::F32:
    store<float>(P, (float)V);
    return;
  case ElemType::F64:
    store<double>(P, V);
    return;
  }
}
