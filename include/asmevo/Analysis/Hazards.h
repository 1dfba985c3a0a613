//===- Hazards.h - Wait-state hazards as data tables ------------*- C++ -*-===//
//
// The "manually inserted wait states" rules of gfx90a, gfx942 and gfx950:
// a producer instruction, a consumer instruction, a register relation
// between them and the number of wait states (instructions, or s_nop N
// counting N+1) the consumer must issue after the producer. Every rule
// names its source:
//   [MI200-ISA] AMD Instinct MI200 ISA reference, section 4.5 "Manually
//               Inserted Wait States (NOPs)";
//   [CDNA3-ISA] AMD Instinct MI300 (CDNA3) ISA reference, section 4.5,
//               same title (gfx940/942; LLVM applies the gfx940 rules to
//               gfx950 as well);
//   [LLVM]      llvm/lib/Target/AMDGPU/GCNHazardRecognizer.cpp, the function
//               named in the rule (what the compiler inserts).
// The table is the single source: the static checker walks it over the
// CFG of a lifted function, and HazardWindow walks it over the stream of
// issued instructions (the emulator's run-time scoreboard).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_ANALYSIS_HAZARDS_H
#define ASMEVO_ANALYSIS_HAZARDS_H

#include "asmevo/Analysis/InstrRecord.h"
#include "llvm/ADT/ArrayRef.h"
#include <deque>
#include <string>
#include <vector>

namespace asmevo {

/// Instruction predicates for producers and consumers.
enum class HzInst : uint8_t {
  VALU,             ///< Any VALU (TSFlags), MFMA included.
  LegacyVALU,       ///< VALU that is not an MFMA.
  LegacyVALUNotDot, ///< ... and not a DOT.
  SALU,
  Trans,
  NonTransVALU,
  VMem,        ///< Buffer/global/scratch/flat (not DS).
  VecMemOrExp, ///< VMEM, FLAT, DS or export.
  ValuNotMFMA, ///< Consumer: VALU that is not an MFMA (VALU read).
  ValuOrVecMemOrExp,
  MFMA,
  XDL,   ///< MFMA on the XDL unit.
  SMFMA, ///< Non-XDL, non-DGEMM MFMA.
  DGEMM,
  NonXDLMFMA, ///< SMFMA or DGEMM.
  DOT,
  RWLaneSel, ///< v_readlane/v_writelane (lane select operand).
  RWLaneAny, ///< v_readlane, v_readfirstlane, v_writelane.
  ReadLane,  ///< v_readlane, v_readfirstlane.
  DivFmas,
  DPP,
  SetReg,
  GetReg,
  M0Reader,  ///< s_movrel*, s_sendmsg/ttracedata, GDS, ds_*_addtid.
  LDSDMA,    ///< buffer/global/scratch load ... lds (M0 = LDS address).
  WideStore, ///< VMEM store of more than 64 bits of data (MUBUF
             ///< only without an soffset register).
  FMA64,
  PermlaneSwap, ///< v_permlane16_swap / v_permlane32_swap (gfx950).
  DstSelVALU,   ///< SDWA/VOP3 VALU writing through a destination select.
  DstSelVOP3P,  ///< VOP3P with src0 op_sel_hi (LLVM's DST_OP_SEL reading).
};

/// Which operands of the producer and consumer must overlap.
enum class HzRel : uint8_t {
  SGPRDefUse,      ///< P writes an SGPR/VCC/EXEC/M0 that C reads (any use).
  SGPRDefExplUse,  ///< P writes an SGPR C reads explicitly, or VCC C reads,
                   ///< as a value or v_cndmask lane mask (not a carry-in).
  SGPRDefCarryUse, ///< P writes the SGPR pair/VCC C reads as a carry-in.
  SGPRDefLaneSel,  ///< P writes C's lane-select SGPR.
  VCCDef,          ///< P writes VCC (C is fixed by the predicate).
  ExecDef,         ///< P writes EXEC.
  M0Def,           ///< P writes M0.
  VGPRDefVecUse,   ///< P writes a VGPR/AGPR that C reads.
  VGPRDefExplUse,  ///< P writes a VGPR C reads explicitly.
  VGPRDefSrc0,     ///< P writes the VGPR C reads as src0.
  VGPRDefDPPSrc,   ///< P writes the VGPR C reads through DPP (src0).
  DstSrcCOverlap,  ///< P's dst overlaps C's srcC but is not identical.
  DstSrcCExact,    ///< P's dst is exactly C's srcC.
  DstSrcAB,        ///< P's dst overlaps C's srcA/srcB (explicit, not srcC).
  DstUse,          ///< P's dst overlaps any explicit use of C.
  DstDef,          ///< P's dst overlaps a def of C (write after write).
  SrcCDef,         ///< P's srcC overlaps a def of C (write after read).
  DataDef,         ///< P's store data overlaps a vector def of C.
  SameHwReg,       ///< s_setreg/s_getreg of the same hardware register.
  None,            ///< Any producer within the window.
  VCCDefReadsVCCZ, ///< P writes VCC, C reads src_vccz.
  ExecDefReadsEXECZ,
  DotDstUseOtherOp,  ///< DOT dst read by a different opcode.
  DotDstSrcABSameOp, ///< DOT dst read as srcA/B by the same opcode.
  DotDstDefOtherOp,  ///< DOT dst written by a different opcode.
};

enum : uint8_t {
  TgtGFX90A = 1,
  TgtGFX94X = 2,
  TgtGFX950 = 4,
  TgtGFX940Plus = TgtGFX94X | TgtGFX950,
  TgtAll = TgtGFX90A | TgtGFX94X | TgtGFX950,
};

struct HazardRule {
  const char *Id;
  uint8_t Targets;
  HzInst Producer;
  HzInst Consumer;
  HzRel Rel;
  /// Fixed wait states, used when ByPasses is all zero.
  int8_t Fixed;
  /// Wait states by producer passes 2, 4, 8, 16 (MFMA rules). For DGEMM
  /// producers index 1 is the 4x4 shape and 2/3 the 16x16 shape.
  int8_t ByPasses[4];
  /// When set, the wait is producer passes + PassesPlus (gfx940 formulas).
  int8_t PassesPlus;
  const char *Source;
  const char *Text;
  /// Only LLVM's model asks for these wait states; the ISA table says the
  /// hardware needs none. Reported as an advisory, not a violation: a
  /// hand-written kernel may rely on the table, but code a compiler built
  /// carries LLVM's wait states and an edit must not remove them.
  bool Advisory = false;
};

/// The rule table (all targets; filter with ruleApplies).
llvm::ArrayRef<HazardRule> hazardRules();
bool ruleApplies(const HazardRule &R, GPUGen G);

/// Wait states \p R requires between \p P and \p C, or 0 when the
/// relation does not hold. \p Conflict receives the register involved.
int hazardWaitStates(const HazardRule &R, const InstrRecord &P,
                     const InstrRecord &C, SlotRange *Conflict = nullptr);

struct HazardHit {
  const HazardRule *Rule = nullptr;
  unsigned Consumer = 0; ///< Index of the consumer instruction.
  unsigned Producer = 0; ///< Index of the producer instruction.
  int Missing = 0;       ///< Wait states missing (s_nop count = Missing-1).
  SlotRange Reg;
};

/// A function laid out as a sequence with blocks, for the static walk.
struct InstrSeq {
  std::vector<InstrRecord> Instrs;
  std::vector<unsigned> BlockBegin;         ///< Per block, first index.
  std::vector<unsigned> BlockOf;            ///< Per instruction.
  std::vector<std::vector<unsigned>> Preds; ///< Per block.
  std::vector<std::vector<unsigned>> Succs; ///< Per block.
  unsigned blockEnd(unsigned B) const {
    return B + 1 < BlockBegin.size() ? BlockBegin[B + 1]
                                     : (unsigned)Instrs.size();
  }
};

/// All hazards of \p Seq: for every consumer, every rule whose producer is
/// closer (in wait states, along any CFG path) than the rule requires.
std::vector<HazardHit> checkHazards(const InstrSeq &Seq, const ISAFacts &F);
/// The same for the consumers in \p Consumers only (indices into \p Seq):
/// what a pass asks after an edit that can only change the distances seen
/// by instructions near it.
std::vector<HazardHit> checkHazardsAt(const InstrSeq &Seq, const ISAFacts &F,
                                      llvm::ArrayRef<unsigned> Consumers);
/// More wait states than any rule of the table asks for: an edit changes
/// no hazard of a consumer this many wait states or more after it.
constexpr unsigned MaxHazardWindow = 24;

/// Soft-clause (xnack replay) violations: consecutive SMEM or VMEM
/// instructions where one writes a register the clause reads
/// ([LLVM] checkSoftClauseHazards). Reported with Rule = softClauseRule().
std::vector<HazardHit> checkSoftClauses(const InstrSeq &Seq, const ISAFacts &F);
const HazardRule &softClauseRule();

/// The run-time form: feed instructions as they issue.
class HazardWindow {
public:
  explicit HazardWindow(const ISAFacts &F);
  /// Hazards \p C would have if issued now (Producer counts back: 1 = the
  /// previous instruction).
  std::vector<HazardHit> check(const InstrRecord &C) const;
  void issue(const InstrRecord &I);
  void reset() { History.clear(); }

private:
  std::vector<const HazardRule *> Rules;
  std::deque<InstrRecord> History; ///< Most recent first.
};

} // namespace asmevo

#endif
