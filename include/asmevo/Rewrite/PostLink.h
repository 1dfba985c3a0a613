//===- PostLink.h - The post-link step over a whole binary ------*- C++ -*-===//
//
// What `asmevo-link --optimize` does to a HIP executable, shared library,
// offload bundle or code object: every embedded code object of a target
// AsmEvo optimizes gets its kernels that a rule of the spec manifest covers
// optimized behind the gate (SpecManifest.h, Optimizer.h); every other
// kernel, code object and host byte stays as it was (Input.h's
// writeContainer). `--list` says beforehand what would be touched.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_REWRITE_POSTLINK_H
#define ASMEVO_REWRITE_POSTLINK_H

#include "asmevo/Rewrite/Input.h"
#include "asmevo/Rewrite/Report.h"
#include "asmevo/Rewrite/SpecManifest.h"
#include "llvm/Support/raw_ostream.h"
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

struct PostLinkOptions {
  std::vector<std::string> Passes; ///< Expanded (expandPipeline).
  std::optional<SpecManifest> Specs;
  /// Rules without a spec (and, without --specs, every kernel) go through
  /// the static gate.
  bool TrustStatic = false;
  bool AllowCompress = false;
  /// Worker processes; the output does not depend on it.
  unsigned Jobs = 1;
  unsigned Sensitivity = 8;
  std::string TimingConfig = "mi300x";
};

/// One embedded code object as --list shows it.
struct ListedObject {
  std::string Name;
  std::string TargetID;
  bool Optimizable = false;
  std::string Reason; ///< When not optimizable.
  struct Kernel {
    std::string Name;
    const SpecRule *Rule = nullptr;
  };
  std::vector<Kernel> Kernels;
};

/// Every code object of \p In, with its kernels and the rule covering each.
llvm::Expected<std::vector<ListedObject>>
listBinary(const RewriteInput &In, const SpecManifest *Specs);
/// \p StaticForAll: --trust-static without --specs (every kernel of an
/// optimizable target goes through the static gate).
void printListing(llvm::raw_ostream &OS, llvm::ArrayRef<ListedObject> L,
                  bool StaticForAll);

struct PostLinkResult {
  RunReport Report;
  std::vector<uint8_t> Output;
  std::vector<std::string> Warnings;
};

/// The whole job. Errors (a rule that matches nothing, a target the
/// binary lacks, an edit that cannot fit) come before any output exists.
llvm::Expected<PostLinkResult> optimizeBinary(const RewriteInput &In,
                                              const PostLinkOptions &O);

} // namespace asmevo

#endif
