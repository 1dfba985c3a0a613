//===- YAMLSyntax.h - Refusing malformed YAML before reading it -*- C++ -*-===//
//
// llvm::yaml::Stream keeps going after a syntax error: a key may come back
// without a value (a null Node*), a mapping may end early, and the error
// goes to stderr through the SourceMgr. Reading such a tree node by node
// means a null check at every step, and one missed check is a crash (the
// launch-spec fuzzer found eighteen). So every YAML file a user hands us is
// parsed once to the end first; a syntax error is refused, with its line
// and column, before anything interprets the tree.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SUPPORT_YAMLSYNTAX_H
#define ASMEVO_SUPPORT_YAMLSYNTAX_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace asmevo {

/// Parses every document of \p Text and returns an error
/// "<Path>:<line>:<col>: <message>" for the first syntax error, or for a
/// node a reader could not walk (a key without a value is fine: YAML makes
/// it null).
llvm::Error checkYAMLSyntax(llvm::StringRef Text, llvm::StringRef Path);

} // namespace asmevo

#endif
