//===- SearchDriver.h - asmevo-opt --hot-windows, --list-anchors -*- C++ -*-===//
#ifndef ASMEVO_TOOLS_OPT_SEARCHDRIVER_H
#define ASMEVO_TOOLS_OPT_SEARCHDRIVER_H
#include "asmevo/Lift/LiftedModule.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <vector>
namespace asmevo {
/// --hot-windows or --list-anchors was given.
bool searchCommandRequested();
/// Runs it over every lifted code object; JSON on \p OS. \p SpecPath is
/// the driver's --spec (the cycle model needs a launch), \p Kernels its
/// --kernels.
llvm::Error runSearchCommand(llvm::raw_ostream &OS,
                             std::vector<std::unique_ptr<LiftedModule>> &LMs,
                             llvm::StringRef SpecPath,
                             const std::vector<std::string> &Kernels);
} // namespace asmevo
#endif
