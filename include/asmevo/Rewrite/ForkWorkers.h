//===- ForkWorkers.h - Work in forked processes, answers over pipes -*- C++ -*-//
//
// The optimizer's parallelism: LLVM's CodeGen state (one LLVMContext, one
// MachineModuleInfo per lifted module) is not safe to share between
// threads, so workers are processes forked after the expensive lift, each
// inheriting the parent's memory copy-on-write, each answering with text.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_REWRITE_FORKWORKERS_H
#define ASMEVO_REWRITE_FORKWORKERS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace asmevo {

/// Runs \p Child(W) for each W in [1, N) in a process forked from this one
/// while \p Parent runs here; returns the children's answers (index W-1)
/// once every child has exited. A child that dies before answering is an
/// error; so is \p Parent's. A child never returns from the fork: it
/// answers and exits without running destructors or exit handlers.
llvm::Expected<std::vector<std::string>>
forkWorkers(unsigned N, llvm::function_ref<std::string(unsigned)> Child,
            llvm::function_ref<llvm::Error()> Parent);

} // namespace asmevo

#endif
