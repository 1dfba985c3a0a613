//===- Info.h - What asmevo-opt --info prints ----------------- -*- C++ -*-===//
#ifndef ASMEVO_REWRITE_INFO_H
#define ASMEVO_REWRITE_INFO_H
#include "asmevo/Lift/LiftedModule.h"
namespace asmevo {
/// Targets, functions, descriptors and metadata as YAML.
void printInfo(llvm::raw_ostream &OS, const LiftedModule &LM);
} // namespace asmevo
#endif
