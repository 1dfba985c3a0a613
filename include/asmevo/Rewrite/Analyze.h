//===- Analyze.h - What asmevo-opt --analyze prints ----------- -*- C++ -*-===//
#ifndef ASMEVO_REWRITE_ANALYZE_H
#define ASMEVO_REWRITE_ANALYZE_H
#include "asmevo/Lift/LiftedModule.h"
#include "llvm/Support/Error.h"
namespace asmevo {
/// Per function: blocks, loops, register use and occupancy, waitcnt
/// violations and slack, hazards. \p JSON selects the schema documented in
/// docs/analysis-json.md; otherwise YAML-style text.
llvm::Error printAnalysis(llvm::raw_ostream &OS, LiftedModule &LM, bool JSON);
} // namespace asmevo
#endif
