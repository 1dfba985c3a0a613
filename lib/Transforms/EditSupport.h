//===- EditSupport.h - What the rule-based passes share ---------*- C++ -*-===//
//
// Passes that delete, shrink or move instructions must not introduce a
// hazard or waitcnt violation. They keep the analyses' instruction sequence
// in step with the MachineInstrs (SeqView), test an edit against the hazard
// rules of the consumers near it before making it (HazardBaseline), log
// every edit so that a function can be put back as it was (EditLog), and
// compare the whole function's violations after the pass with those before,
// site by site (SiteSet, with advisories): a pass that would introduce one
// undoes its edits in that function.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_TRANSFORMS_EDITSUPPORT_H
#define ASMEVO_LIB_TRANSFORMS_EDITSUPPORT_H

#include "FactsCache.h"
#include "ViolationSites.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "asmevo/Analysis/ISAFacts.h"
#include "asmevo/Lift/LiftedModule.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/CodeGen/MachineBasicBlock.h"
#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace asmevo {

/// The entry block and the blocks up to and including the preload entry:
/// the fixed prologue, which no pass moves or rewrites.
llvm::SmallPtrSet<llvm::MachineBasicBlock *, 8>
fixedBlocks(llvm::MachineFunction &MF, const LiftedFunction &LF);

/// The analyses' sequence of a function and the MachineInstr of each entry.
/// The analysis numbers instructions as buildInstrSeq lays them out; a pass
/// that maps those numbers back to MachineInstrs refuses to go on when the
/// two counts differ (an error naming \p Pass, not a wrong edit).
llvm::Error checkSameInstructions(llvm::StringRef Pass, size_t Analysed,
                                  size_t InFunction);

struct SeqView {
  InstrSeq Seq;
  std::vector<llvm::MachineInstr *> At;

  static SeqView build(llvm::MachineFunction &MF, const ISAFacts &F);
  /// Drops entry \p I (its MachineInstr is edited by the caller).
  void erase(unsigned I);
  /// Puts back an entry erase(I) dropped, with its block \p B.
  void insert(unsigned I, unsigned B, InstrRecord R, llvm::MachineInstr *MI);
  /// erase(I), and whether the consumers around I keep their hazards as
  /// \p Base had them; when not, the entry is put back. An entry between
  /// two SMEM or two VMEM instructions is never erased: it may be what
  /// keeps them out of one soft clause.
  bool tryErase(unsigned I, const class HazardBaseline &Base);
  /// Moves entry \p From to just before entry \p To (same block, To >
  /// From; To may be the block's end).
  void moveDown(unsigned From, unsigned To);
  /// Consumers whose hazards an edit at \p I can change: every instruction
  /// reachable from \p I within MaxHazardWindow wait states (loops
  /// included), and \p I itself.
  std::vector<unsigned> consumersAround(unsigned I) const;
  /// Does a path from an instruction outside this function (a caller, or
  /// the code after a call) reach \p I within MaxHazardWindow wait states,
  /// or leave the function from \p I within them? Then the hazards across
  /// that boundary are unknown and an edit near it is not made.
  bool nearFunctionBoundary(unsigned I, bool IsKernel) const;
};

/// A VALU whose result is written through a destination select (SDWA,
/// VOP3 op_sel[3], or VOP3P, whose op_sel_hi bit LLVM reads as one): on
/// gfx940+ LLVM (GCNHazardRecognizer, the dst-sel forwarding hazard) puts
/// one wait state between it and a VALU reading that VGPR. The rule table
/// in lib/Analysis does not have this rule yet; the passes keep it anyway.
bool isDstSelProducer(const llvm::MachineInstr &MI, const OpcodeFacts &F);

/// The hazard hits of a function before a pass, by consumer and rule.
class HazardBaseline {
public:
  HazardBaseline(const SeqView &V, const ISAFacts &F);
  /// True when no consumer in \p Consumers has a hit (advisory rules
  /// included) that was not there before, or misses more wait states.
  bool noWorse(const SeqView &V, llvm::ArrayRef<unsigned> Consumers) const;

private:
  /// Consumers of \p V at \p Consumers that read, with no wait state
  /// between, a VGPR a dst-sel producer writes.
  std::vector<const llvm::MachineInstr *>
  dstSelHits(const SeqView &V, llvm::ArrayRef<unsigned> Consumers) const;

  const ISAFacts &F;
  std::map<std::pair<const llvm::MachineInstr *, const HazardRule *>, int>
      Missing;
  llvm::DenseSet<const llvm::MachineInstr *> DstSel;
};

/// Edits of one function, undoable together.
class EditLog {
public:
  explicit EditLog(llvm::MachineFunction &MF) : MF(MF) {}
  ~EditLog() { commit(); }
  void setImm(llvm::MachineInstr &MI, unsigned OpIdx, int64_t V);
  /// Moves \p MI to just before \p Pos in its block.
  void moveBefore(llvm::MachineInstr &MI, llvm::MachineBasicBlock::iterator Pos);
  void remove(llvm::MachineInstr &MI);
  /// Swaps \p MI with the instruction after it.
  void swapWithNext(llvm::MachineInstr &MI);
  bool empty() const { return Log.empty(); }
  void undo();
  /// Deletes what was removed; the log is emptied.
  void commit();

private:
  struct Rec {
    enum Kind { Imm, Move, Remove } K;
    llvm::MachineInstr *MI;
    unsigned OpIdx;
    int64_t OldImm;
    llvm::MachineBasicBlock *MBB;
    llvm::MachineInstr *Next; ///< Instruction it stood before; null: end.
  };
  llvm::MachineFunction &MF;
  std::vector<Rec> Log;
};

/// Never edited: instructions of a kernel-argument preload prologue (the
/// emulator does not enter it, and its end is a second entry at +256), and
/// the first instruction of a function or of its preload entry (symbols are
/// defined at their addresses).
class EditableRegion {
public:
  EditableRegion(const LiftedFunction &LF);
  bool inPrologue(const llvm::MachineBasicBlock &MBB) const {
    return Prologue.count(&MBB);
  }
  bool pinned(const llvm::MachineInstr &MI) const { return Pinned.count(&MI); }
  bool editable(const llvm::MachineInstr &MI) const {
    return !inPrologue(*MI.getParent()) && !pinned(MI);
  }

private:
  llvm::DenseSet<const llvm::MachineBasicBlock *> Prologue;
  llvm::DenseSet<const llvm::MachineInstr *> Pinned;
};

/// Only registers and immediates: no symbol, block or expression operand
/// (PC-relative code and branch targets are never touched).
bool hasOnlyRegImmOperands(const llvm::MachineInstr &MI);


} // namespace asmevo

#endif
