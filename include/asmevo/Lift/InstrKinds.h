//===- InstrKinds.h - Control-flow facts about real MC opcodes --*- C++ -*-===//
//
// LLVM's analyzeBranch and friends only know pseudo opcodes; the lifter
// sees real, encoding-specific ones (S_CBRANCH_SCC0_vi). These helpers key
// on the MC instruction name instead.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIFT_INSTRKINDS_H
#define ASMEVO_LIFT_INSTRKINDS_H

#include "llvm/ADT/StringRef.h"

namespace asmevo {

enum class FlowKind {
  None,
  Branch,      ///< s_branch
  CondBranch,  ///< s_cbranch_*
  Return,      ///< s_setpc_b64 (return or indirect jump)
  Call,        ///< s_swappc_b64
  EndProgram,  ///< s_endpgm*, s_code_end
  Trap,        ///< s_trap / s_sethalt: may not return
};

/// \p Name is an MC instruction name, e.g. "S_CBRANCH_EXECZ_vi".
FlowKind classifyFlow(llvm::StringRef Name);
bool isGetPC(llvm::StringRef Name);
bool isTerminatorKind(FlowKind K);

} // namespace asmevo

#endif
