//===- Info.h - asmevo-opt --info -------------------------------*- C++ -*-===//
#ifndef ASMEVO_TOOLS_OPT_INFO_H
#define ASMEVO_TOOLS_OPT_INFO_H
#include "asmevo/Lift/LiftedModule.h"
namespace asmevo {
/// Targets, functions, descriptors and metadata as YAML.
void printInfo(llvm::raw_ostream &OS, const LiftedModule &LM);
} // namespace asmevo
#endif
