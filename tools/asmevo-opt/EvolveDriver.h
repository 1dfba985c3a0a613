//===- EvolveDriver.h - asmevo-opt --evolve, asmevo-opt lineage -*- C++ -*-===//
#ifndef ASMEVO_TOOLS_OPT_EVOLVEDRIVER_H
#define ASMEVO_TOOLS_OPT_EVOLVEDRIVER_H
#include "asmevo/Lift/LiftedModule.h"
#include "llvm/Support/CommandLine.h"
#include <memory>
#include <vector>
namespace asmevo {
extern llvm::cl::SubCommand LineageCommand;
int runLineageCommand();
/// --evolve was given.
bool evolveRequested();
/// --jobs: worker processes, for --evolve's candidates and for -O1/-O2's
/// kernels alike.
unsigned requestedJobs();
struct EvolveDriverOptions {
  std::string Spec, Out, TimingConfig;
  std::vector<std::string> Kernels;
  /// The base pass list (-passes= / -O2): candidate #0 and what mutations
  /// draw passes from; empty: -O2's.
  std::string Pipeline;
  unsigned Sensitivity = 8;
  bool Quiet = false;
};
int runEvolveCommand(std::vector<std::unique_ptr<LiftedModule>> &LMs,
                     const EvolveDriverOptions &D);
} // namespace asmevo
#endif
