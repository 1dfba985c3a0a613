//===- BufferCompare.cpp - Element comparison, exact or within tolerance -===//
#include "asmevo/Verify/BufferCompare.h"
#include "asmevo/Verify/InputVariation.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <cstring>

using namespace llvm;
using namespace asmevo::emu;

namespace asmevo {
namespace verify {

static uint64_t loadBits(const uint8_t *P, unsigned N) {
  uint64_t B = 0;
  std::memcpy(&B, P, N);
  return B;
}

/// Maps a float's bits onto a line where adjacent representable values are
/// adjacent integers (both zeros at 0), so ULP distance is a subtraction.
static int64_t orderedBits(uint64_t Bits, unsigned Width) {
  uint64_t Sign = 1ull << (Width - 1);
  int64_t Mag = int64_t(Bits & (Sign - 1));
  return (Bits & Sign) ? -Mag : Mag;
}

bool elementsMatch(ElemType T, const Tolerance &Tol, const uint8_t *K0,
                   const uint8_t *K1) {
  unsigned N = elemSize(T);
  if (std::memcmp(K0, K1, N) == 0)
    return true;
  if (!Tol.any() || !isFloatType(T))
    return false;
  double A = decodeElement(T, K0), B = decodeElement(T, K1);
  if (std::isnan(A) || std::isnan(B))
    return std::isnan(A) && std::isnan(B);
  if (Tol.Ulp) {
    int64_t D = orderedBits(loadBits(K0, N), 8 * N) -
                orderedBits(loadBits(K1, N), 8 * N);
    if (double(D < 0 ? -D : D) <= *Tol.Ulp)
      return true;
  }
  if (Tol.Rel || Tol.Abs) {
    if (std::isinf(A) || std::isinf(B))
      return A == B;
    double Bound = Tol.Abs.value_or(0) + Tol.Rel.value_or(0) * std::fabs(A);
    if (std::fabs(A - B) <= Bound)
      return true;
  }
  return false;
}

std::optional<uint64_t> firstMismatch(ElemType T, const Tolerance &Tol,
                                      ArrayRef<uint8_t> K0,
                                      ArrayRef<uint8_t> K1) {
  if (K0.size() != K1.size())
    return 0;
  if (K0 == K1)
    return std::nullopt;
  unsigned ES = elemSize(T);
  for (size_t Off = 0; Off + ES <= K0.size(); Off += ES)
    if (!elementsMatch(T, Tol, &K0[Off], &K1[Off]))
      return Off / ES;
  return std::nullopt;
}

std::string formatElement(ElemType T, const uint8_t *P) {
  unsigned N = elemSize(T);
  std::string S;
  raw_string_ostream OS(S);
  OS << format_hex(loadBits(P, N), 2 + 2 * N);
  if (T != ElemType::Ptr)
    OS << " (" << format(T == ElemType::F64 ? "%.17g" : isFloatType(T) ? "%.9g" : "%.0f",
                         decodeElement(T, P))
       << ")";
  return S;
}

} // namespace verify
} // namespace asmevo
