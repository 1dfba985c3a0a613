//===- Expr.h - Integer expressions of launch specs -------------*- C++ -*-===//
//
// The expression language of docs/launch-spec.md ("Expressions"): signed
// 64-bit integers, names of integer scalars, + - * / % (truncating, division
// by zero is an error), unary -, parentheses, min, max, ceil_div, align.
//
//===----------------------------------------------------------------------===//

#ifndef ASMEVO_SUITE_REFERENCE_EXPR_H
#define ASMEVO_SUITE_REFERENCE_EXPR_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <optional>

namespace asmevo {
namespace suite {

using NameLookup =
    llvm::function_ref<std::optional<int64_t>(llvm::StringRef Name)>;

llvm::Expected<int64_t> evalExpr(llvm::StringRef Text, NameLookup Lookup);

} // namespace suite
} // namespace asmevo

#endif
