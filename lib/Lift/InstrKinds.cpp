//===- InstrKinds.cpp -----------------------------------------------------===//
#include "asmevo/Lift/InstrKinds.h"

using namespace llvm;
using namespace asmevo;

FlowKind asmevo::classifyFlow(StringRef Name) {
  if (Name.starts_with("S_BRANCH"))
    return FlowKind::Branch;
  if (Name.starts_with("S_CBRANCH_"))
    return FlowKind::CondBranch;
  if (Name.starts_with("S_SETPC_B64"))
    return FlowKind::Return;
  if (Name.starts_with("S_SWAPPC_B64"))
    return FlowKind::Call;
  if (Name.starts_with("S_ENDPGM") || Name.starts_with("S_CODE_END"))
    return FlowKind::EndProgram;
  return FlowKind::None;
}

bool asmevo::isGetPC(StringRef Name) { return Name.starts_with("S_GETPC_B64"); }

bool asmevo::isTerminatorKind(FlowKind K) {
  return K == FlowKind::Branch || K == FlowKind::CondBranch ||
         K == FlowKind::Return || K == FlowKind::EndProgram;
}
