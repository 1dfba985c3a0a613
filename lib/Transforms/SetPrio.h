//===- SetPrio.h - Raise wave priority around memory issue ------*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_SETPRIO_H
#define ASMEVO_LIB_TRANSFORMS_SETPRIO_H

#include "asmevo/Analysis/ISAFacts.h"
#include "asmevo/Transforms/Pass.h"
#include <memory>

namespace asmevo {

/// In an innermost loop with at least -setprio-min-mfma MFMAs, wraps the
/// memory-issue phase of each loop block (its first to its last vector
/// memory load, up to the first s_waitcnt, barrier or sleep after the
/// first load) in s_setprio 1 ... s_setprio 0, so that a wave issuing its
/// loads gets ahead of waves that only feed the matrix unit, as
/// hand-tuned MFMA kernels do. Both instructions sit in the same block, so
/// every path that raises the priority lowers it again before leaving the
/// block. Functions that already use s_setprio (tuned by hand) and
/// preload prologues are left alone. Inserted SALU instructions only add
/// wait states; the hazard and waitcnt checks run after, and the function
/// is put back if they find more than before. The cycle model ignores
/// priorities (docs/timing-model.md): there it costs two issue slots.
class SetPrioPass : public Pass {
public:
  llvm::StringRef name() const override { return "setprio"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  std::unique_ptr<ISAFacts> Facts;
  const LiftedModule *FactsFor = nullptr;
};

} // namespace asmevo

#endif
