//===- LaunchSpec.h - The launch-spec format (docs/launch-spec.md) -*- C++ -*-//
//
// A parsed, not yet evaluated, launch spec: expressions stay strings until
// a LaunchSession evaluates them against concrete scalar values (the
// defaults, a variant, or values a verifier draws from the ranges).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_EMULATOR_LAUNCHSPEC_H
#define ASMEVO_EMULATOR_LAUNCHSPEC_H

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {
namespace emu {

constexpr unsigned LaunchSpecVersion = 1;

enum class ElemType : uint8_t {
  I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, FP8, BF8, Ptr
};
llvm::StringRef elemTypeName(ElemType T);
std::optional<ElemType> parseElemType(llvm::StringRef S);
unsigned elemSize(ElemType T);
bool isFloatType(ElemType T);

/// A scalar's value: integers exactly, floats as double.
struct ScalarValue {
  bool IsFloat = false;
  int64_t I = 0;
  double F = 0;
  static ScalarValue ofInt(int64_t V) { return {false, V, double(V)}; }
  static ScalarValue ofFloat(double V) { return {true, int64_t(V), V}; }
};
using ScalarEnv = std::map<std::string, ScalarValue>;

/// Evaluates an integer expression (docs/launch-spec.md "Expressions").
/// Deepest nesting of parentheses, unary signs and function calls an
/// expression may have (docs/launch-spec.md): the evaluator recurses once
/// per level.
constexpr unsigned MaxExprDepth = 256;

/// Evaluates \p Expr in signed 64-bit integers; an overflow (including
/// INT64_MIN / -1 and INT64_MIN % -1), a division by zero or nesting deeper
/// than MaxExprDepth is an error.
llvm::Expected<int64_t> evalExpr(llvm::StringRef Expr, const ScalarEnv &Env);

struct SpecScalar {
  std::string Name;
  ElemType Type = ElemType::I32;
  std::string Value;          ///< Literal or (integers) expression.
  std::optional<std::pair<double, double>> Range;
  std::vector<double> Values; ///< Allowed values.
  int64_t MultipleOf = 0;
  bool isDerived() const;     ///< Value is an expression of other scalars.
};

struct PtrRef {
  bool Null = false;
  std::string Buffer;
  std::string Offset = "0";   ///< Expression, bytes.
};

struct InitSpec {
  enum Kind { Default, Zeros, Canary, Uniform, Normal, Constant, Iota,
              Special, Permutation, File, Pointers };
  Kind K = Default;
  double A = 0, B = 0;        ///< min/max, mean/std, value, start/step.
  std::string Path;
  std::vector<PtrRef> Ptrs;
};

struct Tolerance {
  std::optional<double> Ulp, Rel, Abs;
  bool any() const { return Ulp || Rel || Abs; }
};

struct SpecBuffer {
  enum Role { In, Out, InOut, Temp };
  std::string Name;
  ElemType Type = ElemType::U8;
  std::string Count;
  Role R = In;
  InitSpec Init;
  Tolerance Tol;
  uint64_t Guard = 256;
  uint64_t Align = 256;
  bool Compare = true;
  bool Nondeterministic = false;
  struct Patch {
    std::string At;
    PtrRef P;
  };
  std::vector<Patch> Patches;
  bool writable() const { return R == Out || R == InOut; }
};

/// One kernel argument (metadata order) or one kernarg field (raw).
struct SpecArg {
  enum Kind { Name, BufferAt, Literal, Null, Hidden };
  Kind K = Name;
  std::string Ref;      ///< Buffer or scalar name / hidden argument name.
  std::string Offset;   ///< BufferAt: byte offset expression.
  std::string Value;    ///< Literal: value or expression.
  ElemType Type = ElemType::U32;
  std::string At;       ///< Raw fields: byte offset expression.
};

struct SpecLaunch {
  std::string Kernel;
  std::string Grid[3] = {"1", "1", "1"};
  std::string Block[3] = {"1", "1", "1"};
  std::string DynamicLDS = "0";
  bool Raw = false;          ///< kernarg: instead of args:
  std::vector<SpecArg> Args; ///< args (metadata order) or raw fields
  std::string KernargSize;   ///< raw only
  bool HiddenAuto = true;
};

struct LaunchSpec {
  unsigned Version = LaunchSpecVersion;
  std::string Path; ///< For messages and relative file paths.
  uint64_t Seed = 1;
  std::vector<SpecScalar> Scalars;
  std::vector<SpecBuffer> Buffers;
  std::vector<SpecLaunch> Launches;
  std::vector<std::map<std::string, std::string>> Variants;
  /// Scalar overrides for timing (`timing:`): the size a timing model or a
  /// GPU measurement should use; verification ignores it.
  std::map<std::string, std::string> Timing;

  const SpecScalar *scalar(llvm::StringRef N) const;
  const SpecBuffer *buffer(llvm::StringRef N) const;

  static llvm::Expected<LaunchSpec> parse(llvm::StringRef Text,
                                          llvm::StringRef Path);
  static llvm::Expected<LaunchSpec> load(llvm::StringRef Path);
};

} // namespace emu
} // namespace asmevo

#endif
