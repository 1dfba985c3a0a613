//===- FunctionAnalysis.h - Everything known about one function -*- C++ -*-===//
//
// The per-function view that passes, agents and `asmevo-opt --analyze`
// consume: the instruction sequence with its CFG, loops (LLVM's generic
// MachineDominatorTree / MachineLoopInfo on the lifted MachineFunction),
// physical-register liveness over hardware slots, registers used, hazards
// and waitcnt state.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_ANALYSIS_FUNCTIONANALYSIS_H
#define ASMEVO_ANALYSIS_FUNCTIONANALYSIS_H

#include "asmevo/Analysis/Hazards.h"
#include "asmevo/Analysis/LDSPartition.h"
#include "asmevo/Analysis/Waitcnt.h"
#include "asmevo/Lift/LiftedModule.h"
#include <string>
#include <vector>

namespace llvm {
class MachineFunction;
class MachineBasicBlock;
} // namespace llvm

namespace asmevo {

/// Lays out \p MF's blocks (layout order) as an InstrSeq; \p Blocks gets the
/// MachineBasicBlock of each block index.
InstrSeq
buildInstrSeq(const llvm::MachineFunction &MF, const ISAFacts &F,
              std::vector<const llvm::MachineBasicBlock *> *Blocks = nullptr);

/// The same, decoded from the code object's bytes, for functions the lifter
/// left without a MachineFunction: blocks split at branch targets and after
/// control transfers (and at the preload entry of a kernel).
InstrSeq buildInstrSeqFromCode(const LiftedModule &LM, const CodeRange &CR,
                               const ISAFacts &F);

struct LoopSummary {
  unsigned Header = 0; ///< Block index.
  uint64_t HeaderAddr = ~0ull;
  unsigned Depth = 1;
  unsigned NumBlocks = 0;
  unsigned NumInstrs = 0;
  unsigned NumMFMA = 0;
  unsigned NumVMEM = 0;
  unsigned NumDS = 0;
};

struct CFGSummary {
  unsigned NumBlocks = 0;
  unsigned NumEdges = 0;
  unsigned Unreachable = 0;       ///< Blocks the entry does not dominate/reach.
  std::vector<LoopSummary> Loops; ///< Preorder (outer loops first).
};

/// Dominators and loops through LLVM's generic analyses.
CFGSummary analyzeCFG(llvm::MachineFunction &MF, const InstrSeq &Seq,
                      const std::vector<const llvm::MachineBasicBlock *> &BBs);

/// Physical-register liveness over slots (SlotSet per block boundary).
struct Liveness {
  std::vector<SlotSet> LiveIn, LiveOut; ///< Per block.
  unsigned MaxLiveVGPRs = 0, MaxLiveAGPRs = 0, MaxLiveSGPRs = 0;
  /// Live slots just before instruction \p Idx (walks its block).
  SlotSet liveBefore(const InstrSeq &Seq, unsigned Idx) const;
};
Liveness computeLiveness(const InstrSeq &Seq);

/// Highest register of each file the code touches (explicitly or
/// implicitly).
struct RegisterUse {
  int MaxSGPR = -1, MaxVGPR = -1, MaxAGPR = -1;
  bool VCC = false, FlatScratch = false, XnackMask = false;
  unsigned sgprs() const { return MaxSGPR + 1; }
  unsigned vgprs() const { return MaxVGPR + 1; }
  unsigned agprs() const { return MaxAGPR + 1; }
  void merge(const RegisterUse &O);
};
RegisterUse computeRegisterUse(const InstrSeq &Seq);

struct FunctionAnalysis {
  LiftedFunction *LF = nullptr;
  /// No MachineFunction: the sequence was decoded from the bytes and loops
  /// (which need LLVM's analyses) are not reported.
  bool FromBytes = false;
  InstrSeq Seq;
  CFGSummary CFG;
  Liveness Live;
  RegisterUse Regs;
  std::vector<HazardHit> Hazards; ///< Wait-state rules.
  /// Hits of rules only LLVM's model has (HazardRule::Advisory): reported,
  /// not counted in violations().
  std::vector<HazardHit> Advisories;
  std::vector<HazardHit> SoftClauses;
  WaitcntResult Waits;
  /// Set when every LDS access provably stays in its wave's slice.
  std::optional<LDSPartition> WavePrivateLDS;
  std::string WavePrivateWhyNot; ///< Why not, for kernels that use LDS.
  unsigned NumNops = 0, NumWaitcnts = 0;
  /// Wait states s_nops provide beyond what the hazard rules need.
  unsigned SlackWaitcnts = 0;

  unsigned violations() const {
    return Hazards.size() + SoftClauses.size() + Waits.Violations.size();
  }
};

struct AnalysisOptions {
  bool Liveness = true;
  WaitcntOptions Waitcnt;
};

/// Runs every analysis on one lifted function (simple or not: functions
/// that the lifter keeps as bytes still have a MachineFunction).
FunctionAnalysis analyzeFunction(const LiftedModule &LM, LiftedFunction &LF,
                                 const ISAFacts &F,
                                 const AnalysisOptions &Opts = {});

} // namespace asmevo

#endif
