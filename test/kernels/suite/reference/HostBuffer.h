//===- HostBuffer.h - Typed host copies of launch-spec buffers --*- C++ -*-===//
//
// The element types of the launch-spec format (docs/launch-spec.md) and a
// host buffer holding the raw little-endian bytes of one of them, with
// element access as double (every suite element type converts to double
// exactly).
//
//===----------------------------------------------------------------------===//

#ifndef ASMEVO_SUITE_REFERENCE_HOSTBUFFER_H
#define ASMEVO_SUITE_REFERENCE_HOSTBUFFER_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <optional>
#include <vector>

namespace asmevo {
namespace suite {

enum class ElemType {
  I8,
  U8,
  I16,
  U16,
  I32,
  U32,
  I64,
  U64,
  F16,
  BF16,
  F32,
  F64
};

std::optional<ElemType> parseElemType(llvm::StringRef Name);
llvm::StringRef elemTypeName(ElemType T);
unsigned elemSize(ElemType T);
bool isFloatType(ElemType T);

/// IEEE binary16 and bfloat16 as stored in buffers.
struct Half {
  uint16_t Bits;
};
struct BFloat16 {
  uint16_t Bits;
};

double halfToDouble(uint16_t Bits);
double bf16ToDouble(uint16_t Bits);
/// Round to nearest even, directly from double (no double rounding through
/// float); overflow gives infinity, NaN a quiet NaN.
uint16_t doubleToHalf(double V);
uint16_t doubleToBF16(double V);

inline double toDouble(Half H) { return halfToDouble(H.Bits); }
inline double toDouble(BFloat16 B) { return bf16ToDouble(B.Bits); }

class HostBuffer {
public:
  HostBuffer() = default;
  HostBuffer(ElemType Type, uint64_t Count)
      : Type(Type), Bytes(Count * elemSize(Type)) {}

  ElemType type() const { return Type; }
  uint64_t count() const { return Bytes.size() / elemSize(Type); }
  std::vector<uint8_t> &bytes() { return Bytes; }
  const std::vector<uint8_t> &bytes() const { return Bytes; }

  double get(uint64_t I) const;
  /// Stores V converted to the element type: floats round to nearest even,
  /// integers are truncated toward zero and wrap like a C cast of an
  /// in-range value (callers only store representable values).
  void set(uint64_t I, double V);
  /// The element's bytes as an unsigned integer (for bitwise comparison).
  uint64_t getBits(uint64_t I) const;

private:
  ElemType Type = ElemType::U8;
  std::vector<uint8_t> Bytes;
};

} // namespace suite
} // namespace asmevo

#endif
