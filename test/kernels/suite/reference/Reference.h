//===- Reference.h - Host references of the kernel suite --------*- C++ -*-===//
//
// One function per suite kernel computes, from the same inputs and scalars
// the kernel gets, the exact (double-precision) value of every output
// element and, for float outputs, the magnitude its rounding error scales
// with (for a dot product: sum |a_i b_i|, not |result|, because of
// cancellation). The comparison then accepts
//
//   |got - expected| <= Abs + Rel * scale      (scale defaults to |expected|)
//
// with Rel and Abs stated and justified per kernel in the registry
// (Registry.cpp, mirrored in ../README.md). Integer outputs, and float
// outputs with Rel = Abs = 0, are compared bit for bit.
//
//===----------------------------------------------------------------------===//

#ifndef ASMEVO_SUITE_REFERENCE_REFERENCE_H
#define ASMEVO_SUITE_REFERENCE_REFERENCE_H

#include "SuiteSpec.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"
#include <cmath>

namespace asmevo {
namespace suite {

template <typename T> struct ElemTypeOf;
template <> struct ElemTypeOf<float> {
  static constexpr ElemType Value = ElemType::F32;
};
template <> struct ElemTypeOf<Half> {
  static constexpr ElemType Value = ElemType::F16;
};
template <> struct ElemTypeOf<BFloat16> {
  static constexpr ElemType Value = ElemType::BF16;
};
template <> struct ElemTypeOf<int32_t> {
  static constexpr ElemType Value = ElemType::I32;
};
template <> struct ElemTypeOf<uint32_t> {
  static constexpr ElemType Value = ElemType::U32;
};
template <> struct ElemTypeOf<uint8_t> {
  static constexpr ElemType Value = ElemType::U8;
};

/// An expected output: exact values, and per-element error scales (NaN =
/// use |value|).
struct ExpectedBuffer {
  std::vector<double> Values;
  std::vector<double> Scales;
};

/// What a reference function sees. Accessors record the first misuse
/// (unknown name, wrong element type, wrong size) and return empty arrays;
/// a reference calls takeError() after declaring its buffers and before
/// touching their elements.
class RefContext {
public:
  RefContext(const SuiteSpec &Spec, const ScalarValues &Scalars,
             const llvm::StringMap<HostBuffer> &Inputs,
             llvm::StringMap<ExpectedBuffer> &Outputs)
      : Spec(Spec), Scalars(Scalars), Inputs(Inputs), Outputs(Outputs) {}

  int64_t i(llvm::StringRef Name);
  double f(llvm::StringRef Name);

  /// An in or inout buffer's initial content: at least \p MinCount elements.
  template <typename T>
  llvm::ArrayRef<T> in(llvm::StringRef Name, uint64_t MinCount) {
    const HostBuffer *B = input(Name, ElemTypeOf<T>::Value, MinCount);
    if (!B)
      return {};
    return llvm::ArrayRef<T>(reinterpret_cast<const T *>(B->bytes().data()),
                             B->count());
  }

  /// An out or inout buffer's expected values, exactly \p Count elements
  /// (the spec's count must agree): zero for out, the initial content for
  /// inout.
  llvm::MutableArrayRef<double> out(llvm::StringRef Name, uint64_t Count);
  /// Error scales of an output declared with out().
  llvm::MutableArrayRef<double> scale(llvm::StringRef Name);

  llvm::Error takeError() {
    return Err.empty()
               ? llvm::Error::success()
               : llvm::createStringError(llvm::inconvertibleErrorCode(), Err);
  }

private:
  const SuiteSpec &Spec;
  const ScalarValues &Scalars;
  const llvm::StringMap<HostBuffer> &Inputs;
  llvm::StringMap<ExpectedBuffer> &Outputs;
  std::string Err;

  void fail(const llvm::Twine &Msg);
  const HostBuffer *input(llvm::StringRef Name, ElemType Type,
                          uint64_t MinCount);
};

/// Comparison tolerance of float outputs: |got - exp| <= Abs + Rel * scale.
struct Tolerance {
  double Rel = 0;
  double Abs = 0;
  bool exact() const { return Rel == 0 && Abs == 0; }
};

using ReferenceFn = llvm::Error (*)(RefContext &);

struct KernelReference {
  const char *Name; // kernel symbol = spec and source file name
  ReferenceFn Compute;
  Tolerance Tol;   // for every float output
  const char *Why; // one-line justification of Tol
};

llvm::ArrayRef<KernelReference> kernelReferences();
const KernelReference *findKernelReference(llvm::StringRef Name);

// The reference functions, grouped by file.
#define ASMEVO_SUITE_REF(Name) llvm::Error Name##Ref(RefContext &C);
#include "Kernels.def"

} // namespace suite
} // namespace asmevo

#endif
