//===- FactsCache.h - ISAFacts kept per module for a pass -------*- C++ -*-===//
#ifndef ASMEVO_TRANSFORMS_FACTSCACHE_H
#define ASMEVO_TRANSFORMS_FACTSCACHE_H

#include "asmevo/Analysis/ISAFacts.h"
#include "asmevo/Lift/LiftedModule.h"
#include <memory>

namespace asmevo {

/// A pass object runs over every function of a module: the opcode facts
/// are built once per module, not per function.
class FactsCache {
public:
  const ISAFacts &get(const LiftedModule &LM) {
    if (For != &LM) {
      Facts = std::make_unique<ISAFacts>(LM.target());
      For = &LM;
    }
    return *Facts;
  }

private:
  std::unique_ptr<ISAFacts> Facts;
  const LiftedModule *For = nullptr;
};

} // namespace asmevo

#endif
