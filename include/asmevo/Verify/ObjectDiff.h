//===- ObjectDiff.h - What differs between K0 and K1 besides code -*- C++ -*-===//
//
// An edit need not touch an instruction: one bit of a kernel descriptor
// (the trap handler enable, a float mode, the user SGPR layout) or one
// metadata field changes how hardware runs the same code. The verifier
// lists every such difference, field by field, and says whether the runs
// judge it: only fields the emulator reads when it launches the kernel
// can be, and only for kernels the spec launches. Every other difference
// makes the verdict `unknown` unless the user accepts it by name
// (`--accept=descriptor:FIELD`, `--accept=metadata:.KEY`).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_VERIFY_OBJECTDIFF_H
#define ASMEVO_VERIFY_OBJECTDIFF_H

#include "llvm/ADT/StringRef.h"
#include <set>
#include <string>
#include <vector>

namespace asmevo {
class CodeObject;

namespace verify {

struct ObjectDifference {
  enum Judgement { ByRuns, Unknown, Accepted };
  /// The kernel the field belongs to; empty for object-wide metadata.
  std::string Kernel;
  /// "descriptor" or "metadata".
  std::string In;
  /// The name `--accept=` takes after "In:": a descriptor field, or a
  /// metadata key path without array indices (".args.name").
  std::string Field;
  /// Where exactly, when that says more than Field (".args[2].name").
  std::string Location;
  std::string K0Value, K1Value;
  Judgement J = Unknown;
  /// Why the runs cannot judge it (for Unknown and Accepted).
  std::string Why;

  std::string acceptName() const { return In + ":" + Field; }
  /// One line for humans.
  std::string describe() const;
};
llvm::StringRef judgementName(ObjectDifference::Judgement J);

/// Whether the emulator reads descriptor field \p Name when it launches a
/// kernel (lib/Emulator/Engine.cpp), so that runs see what it does.
bool emulatorModelsDescriptorField(llvm::StringRef Name);

/// Every descriptor and metadata difference between \p K0 and \p K1.
/// \p Launched: kernels the spec runs; \p Accepted: acceptName()s;
/// \p OnHardware: the runs are on a GPU, which reads every descriptor
/// field (metadata is still read only by our own dispatcher).
std::vector<ObjectDifference>
diffObjects(const CodeObject &K0, const CodeObject &K1,
            const std::set<std::string> &Launched,
            const std::set<std::string> &Accepted, bool OnHardware = false);

} // namespace verify
} // namespace asmevo

#endif
