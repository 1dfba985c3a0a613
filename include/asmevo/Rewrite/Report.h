//===- Report.h - What an -O run did, for people and for tools --*- C++ -*-===//
//
// One entry per code object: the passes accepted, instructions, registers
// and occupancy before and after, the gate's verdict, and the speedup with
// its source — the cycle model's figures always say they are a model. The
// JSON schema is docs/optimize-report.md.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_REWRITE_REPORT_H
#define ASMEVO_REWRITE_REPORT_H

#include "asmevo/Rewrite/Input.h"
#include "asmevo/Rewrite/Optimizer.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace asmevo {

struct RunReport {
  std::string Tool = "asmevo-opt";
  std::string Input, Output, Spec;
  std::vector<std::string> Pipeline;
  bool TrustStatic = false;
  std::vector<ModuleOutcome> Modules;
  /// Code objects of targets AsmEvo does not optimize, kept as they were.
  std::vector<PassThroughObject> PassThrough;
};

/// The terminal table.
void printRunReport(llvm::raw_ostream &OS, const RunReport &R);
/// Schema version 1 (docs/optimize-report.md).
llvm::json::Value runReportJSON(const RunReport &R);

} // namespace asmevo

#endif
