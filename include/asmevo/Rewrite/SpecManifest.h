//===- SpecManifest.h - Which launch spec belongs to which kernel -*- C++ -*-===//
//
// What `asmevo-link --optimize --specs` reads (docs/spec-manifest.md): a
// manifest of rules (a glob over kernel symbol names, an optional target
// id, an optional launch spec), or a directory of launch specs, each a rule
// for the kernel its launches name.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_REWRITE_SPECMANIFEST_H
#define ASMEVO_REWRITE_SPECMANIFEST_H

#include "asmevo/CodeObject/TargetInfo.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/GlobPattern.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

struct SpecRule {
  /// Where the rule is, for messages: "m.yaml: rule 2" or the spec file.
  std::string Where;
  std::string KernelGlob;
  /// "gfx90a", "gfx90a:xnack-": the processor and the features the object
  /// must have; empty: any target.
  std::string Target;
  /// Absolute or relative to the manifest; empty: the static gate only
  /// (needs --trust-static).
  std::string SpecPath;
  /// GlobPattern refers to its pattern text: kept here, where moving the
  /// rule does not move it.
  std::shared_ptr<const std::string> GlobText;
  llvm::GlobPattern Glob;

  /// Compiles \p Pattern into Glob.
  llvm::Error setGlob(std::string Pattern);

  /// Does the rule's glob match \p Name (as in the object) or its
  /// demangled form?
  bool matchesKernel(llvm::StringRef Name) const;
  bool matchesTarget(const TargetInfo &T) const;
};

struct SpecManifest {
  std::string Path;
  std::vector<SpecRule> Rules;

  /// \p Path is a manifest file or a directory of launch specs.
  static llvm::Expected<SpecManifest> load(llvm::StringRef Path);
  static llvm::Expected<SpecManifest> parse(llvm::StringRef Text,
                                            llvm::StringRef Path);
  /// The first rule that matches \p Kernel of an object for \p T.
  const SpecRule *find(llvm::StringRef Kernel, const TargetInfo &T) const;
};

} // namespace asmevo

#endif
