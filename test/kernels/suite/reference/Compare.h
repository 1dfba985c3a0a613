//===- Compare.h - Kernel outputs against expected values -------*- C++ -*-===//
#ifndef ASMEVO_SUITE_REFERENCE_COMPARE_H
#define ASMEVO_SUITE_REFERENCE_COMPARE_H

#include "Reference.h"
#include "llvm/Support/raw_ostream.h"

namespace asmevo {
namespace suite {

struct CompareResult {
  uint64_t Count = 0;
  uint64_t Mismatches = 0;
  /// The largest |got - expected| / allowed over all elements (0 when
  /// exact), and where: how close the run came to the tolerance.
  double WorstRatio = 0;
  uint64_t WorstIndex = 0;
};

/// Compares \p Got with \p Exp element by element; prints up to
/// \p MaxReported mismatches (index, got, expected, allowed) to \p OS.
CompareResult compareOutput(llvm::StringRef Name, const HostBuffer &Got,
                            const ExpectedBuffer &Exp, Tolerance Tol,
                            llvm::raw_ostream &OS, unsigned MaxReported = 10);

} // namespace suite
} // namespace asmevo

#endif
