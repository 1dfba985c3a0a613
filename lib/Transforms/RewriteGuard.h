//===- RewriteGuard.h - Undo a rewrite that adds a static violation -*- C++ -*-===//
//
// The rule-based passes that move or merge instructions (pack-f32,
// mem-widen, scalarize) prove their own data dependencies, but wait-state
// hazards and waitcnt scores depend on everything around the edit. Rather
// than re-deriving those rules, each rewrite is checked against the same
// analyses `asmevo-opt --analyze` runs, site by site (ViolationSites): a
// rewrite after which the function has a violation its input did not have
// is undone by the pass. (Counting violations per rule was not enough: a
// rewrite that moved a waitcnt need from one register to another, or a
// hazard from one MFMA to another, kept the count and went through.)
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_TRANSFORMS_REWRITEGUARD_H
#define ASMEVO_LIB_TRANSFORMS_REWRITEGUARD_H

#include "FactsCache.h"
#include "ViolationSites.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "asmevo/Analysis/ISAFacts.h"

namespace llvm {
class MachineInstr;
class MachineOperand;
} // namespace llvm

namespace asmevo {

class RewriteGuard {
public:
  RewriteGuard(const LiftedModule &LM, LiftedFunction &LF, const ISAFacts &F);
  /// Re-analyzes the function; true when it has no violation site the
  /// function had not before the pass.
  bool accept();

private:
  const LiftedModule &LM;
  LiftedFunction &LF;
  const ISAFacts &F;
  SiteSet Input;
};

/// The slot range of a register operand (empty for anything else).
SlotRange operandSlots(const llvm::MachineOperand &MO, const ISAFacts &F);

/// A 32-bit value the hardware encodes as an inline constant for an FP32
/// or integer operand (CDNA3 ISA 3.6.2: -16..64, +-0.5, +-1, +-2, +-4,
/// 1/(2*pi)).
bool isInlineConstant32(int64_t Imm);


} // namespace asmevo

#endif
