//===- SuiteSpec.h - The parts of a launch spec the references need -*- C++
//-*-===//
//
// A reader for the subset of the launch-spec format (docs/launch-spec.md,
// version 1) that computing expected outputs needs: scalars (type and
// value), buffers (type, count, role, init), variants, seed and the kernel
// name. Launch geometry and arguments are the emulator's business and are
// skipped here; `asmevo-verify` owns the complete, strict reader.
//
//===----------------------------------------------------------------------===//

#ifndef ASMEVO_SUITE_REFERENCE_SUITESPEC_H
#define ASMEVO_SUITE_REFERENCE_SUITESPEC_H

#include "HostBuffer.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include <string>
#include <utility>
#include <vector>

namespace asmevo {
namespace suite {

enum class BufferRole { In, Out, InOut, Temp };

struct InitSpec {
  enum Kind {
    Default,
    Zeros,
    Canary,
    Uniform,
    Normal,
    Constant,
    Iota,
    Special,
    Permutation,
    File,
    Pointers
  };
  Kind K = Default;
  double A = 0, B = 0; // uniform min/max, normal mean/std, constant, iota
  std::string Path;    // file (relative to the spec)
};

struct ScalarSpec {
  std::string Name;
  ElemType Type;
  std::string Value; // literal, or an expression for integer types
};

struct BufferSpec {
  std::string Name;
  ElemType Type;
  std::string Count; // expression
  BufferRole Role;
  InitSpec Init;
  bool Compare = true;
};

struct SuiteSpec {
  std::string Path;
  std::string Kernel;
  // The (first) launch: grid and block entries as expressions, and the
  // metadata-order argument names ("" for an entry that is not a name).
  std::vector<std::string> Grid, Block, Args;
  std::vector<ScalarSpec> Scalars;
  std::vector<BufferSpec> Buffers;
  std::vector<std::vector<std::pair<std::string, std::string>>> Variants;
  uint64_t Seed = 1;

  const BufferSpec *buffer(llvm::StringRef Name) const;
};

llvm::Expected<SuiteSpec> readSuiteSpec(llvm::StringRef Path);

/// Resolved scalar values: integers exactly, floats as double.
struct ScalarValue {
  ElemType Type;
  int64_t Int = 0;
  double Float = 0;
};
using ScalarValues = llvm::StringMap<ScalarValue>;

/// Scalar values of the default sizes (\p Variant 0) or of
/// `variants[Variant - 1]`, then \p Overrides ("NAME=VALUE"), evaluated in
/// declaration order.
llvm::Expected<ScalarValues>
resolveScalars(const SuiteSpec &Spec, unsigned Variant,
               llvm::ArrayRef<std::string> Overrides);

/// Evaluates an expression of the spec's integer scalars.
llvm::Expected<int64_t> evalSpecExpr(const SuiteSpec &Spec,
                                     llvm::StringRef Text,
                                     const ScalarValues &Scalars);

/// The element count of \p B under \p Scalars.
llvm::Expected<uint64_t> bufferCount(const SuiteSpec &Spec, const BufferSpec &B,
                                     const ScalarValues &Scalars);

} // namespace suite
} // namespace asmevo

#endif
