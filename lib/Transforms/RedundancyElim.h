//===- RedundancyElim.h - Instructions that change nothing ------*- C++ -*-===//
#ifndef ASMEVO_LIB_TRANSFORMS_REDUNDANCYELIM_H
#define ASMEVO_LIB_TRANSFORMS_REDUNDANCYELIM_H

#include "EditSupport.h"
#include "asmevo/Transforms/Pass.h"

namespace asmevo {

/// Deletes instructions whose effect is already there or never seen:
///  - waits: an s_waitcnt that the operations in flight already satisfy
///    on every path (the waitcnt analysis' upper bound of pending
///    operations is within its value on each counter), in kernels only (a
///    callee does not know what its caller left in flight);
///  - duplicate moves: s_mov_b32/b64 or v_mov_b32_e32 of a register or
///    immediate the destination already holds from an earlier move in the
///    block (either direction: `s_mov_b64 s[2:3], exec` ...
///    `s_mov_b64 exec, s[2:3]` with neither written between restores
///    nothing; this is the redundant EXEC save/restore pair); a VALU move
///    counts only under the same EXEC;
///  - dead writes: a SALU or plain VALU instruction without side effects
///    whose every destination (SCC, VCC and carries included) is written
///    again in the block before anything reads it, by a full write (a
///    VGPR only by a plain 32-bit VALU under the same EXEC); EXEC, M0 and
///    the other special registers are never taken as dead.
/// Each deletion is one rewrite, in layout order, made only when the hazard
/// rules of the consumers around it still hold (the deleted instruction no
/// longer counts as a wait state); the function is put back when its
/// violations (by site) grow.
class RedundancyElimPass : public Pass {
public:
  llvm::StringRef name() const override { return "redundancy-elim"; }
  llvm::Expected<bool> run(LiftedModule &LM, LiftedFunction &LF) override;

private:
  FactsCache Facts;
};

} // namespace asmevo

#endif
