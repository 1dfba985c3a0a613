//===- RewriteGuard.h - Undo a rewrite that adds a static violation -*- C++ -*-===//
//
// The rule-based passes that move or merge instructions (pack-f32,
// mem-widen, scalarize) prove their own data dependencies, but wait-state
// hazards and waitcnt scores depend on everything around the edit. Rather
// than re-deriving those rules, each rewrite is checked against the same
// analyses `asmevo-opt --analyze` runs: the count of violations per rule
// (hazard rule id, soft clause, waitcnt kind) must not go up. A rewrite that
// raises one is undone by the pass.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_TRANSFORMS_REWRITEGUARD_H
#define ASMEVO_LIB_TRANSFORMS_REWRITEGUARD_H

#include "FactsCache.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "asmevo/Analysis/ISAFacts.h"
#include <map>
#include <string>

namespace llvm {
class MachineInstr;
class MachineOperand;
} // namespace llvm

namespace asmevo {

class RewriteGuard {
public:
  RewriteGuard(const LiftedModule &LM, LiftedFunction &LF, const ISAFacts &F);
  /// Re-analyzes the function; true when no rule has more violations than
  /// at the last accepted state (which then becomes the new baseline).
  bool accept();
  /// Violations of the function before any rewrite.
  unsigned initialViolations() const { return Initial; }

private:
  std::map<std::string, unsigned> count() const;
  const LiftedModule &LM;
  LiftedFunction &LF;
  const ISAFacts &F;
  std::map<std::string, unsigned> Base;
  unsigned Initial = 0;
};

/// The slot range of a register operand (empty for anything else).
SlotRange operandSlots(const llvm::MachineOperand &MO, const ISAFacts &F);

/// A 32-bit value the hardware encodes as an inline constant for an FP32
/// or integer operand (CDNA3 ISA 3.6.2: -16..64, +-0.5, +-1, +-2, +-4,
/// 1/(2*pi)).
bool isInlineConstant32(int64_t Imm);


} // namespace asmevo

#endif
