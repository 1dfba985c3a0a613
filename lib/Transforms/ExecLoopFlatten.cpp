//===- ExecLoopFlatten.cpp - Guarded exec loops into one block ------------===//
#include "ExecLoopFlatten.h"
#include "EditSupport.h"
#include "ExecMask.h"
#include "ViolationSites.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"

using namespace llvm;
using namespace asmevo;

namespace {

class Flattener {
public:
  Flattener(asmevo::Pass &P, LiftedModule &LM, LiftedFunction &LF,
            const ISAFacts &F)
      : P(P), LM(LM), LF(LF), MF(*LF.MF), F(F),
        TII(*MF.getSubtarget().getInstrInfo()),
        TRI(*MF.getSubtarget().getRegisterInfo()) {}
  /// \p Ifs: straight-line ifs (exec-if-flatten) instead of loops.
  bool run(bool Ifs);

private:
  /// One loop: the guard block H, the body B, the latch L, the exit X, and
  /// the instructions the rewrite takes out (the guard's skip branch, the
  /// body's branch to the latch, the latch's exit branch) or adds.
  struct Loop {
    MachineBasicBlock *H = nullptr, *B = nullptr, *L = nullptr, *X = nullptr;
    /// When X is not laid out after B: a new block after the loop that
    /// branches to X.
    MachineBasicBlock *E = nullptr;
    MachineInstr *SkipH = nullptr, *BrB = nullptr, *TermL = nullptr;
    MachineInstr *NewTerm = nullptr;
    MachineInstr *FirstB = nullptr, *FirstL = nullptr;
    std::vector<MachineBasicBlock *> SuccH, SuccB, SuccL;
    /// B's instructions given implicit uses, with their operand counts.
    std::vector<std::pair<MachineInstr *, unsigned>> Widened;
    /// An if rather than a loop: L is the join block (no exit branch), and
    /// LNext the block it was laid out before (where undo puts it back).
    bool If = false;
    MachineBasicBlock *LNext = nullptr;
  };

  StringRef nameOf(const MachineInstr &MI) const {
    return TII.getName(MI.getOpcode());
  }
  bool isExec(const MachineOperand &MO) const {
    return MO.isReg() && isExecRegister(TRI, MO.getReg());
  }
  bool isVectorReg(Register R) const {
    StringRef N = TRI.getName(R);
    return N.starts_with("VGPR") || N.starts_with("AGPR");
  }
  static std::vector<MachineInstr *> instrs(MachineBasicBlock &MBB) {
    std::vector<MachineInstr *> V;
    for (MachineInstr &MI : MBB)
      if (!MI.isMetaInstruction())
        V.push_back(&MI);
    return V;
  }
  /// \p MI does nothing but what EXEC masks, or nothing at all.
  bool masked(const MachineInstr &MI) const;
  /// Memory kind for soft clauses: 1 SMEM, 2 VMEM, 0 other.
  unsigned clauseKind(const MachineInstr *MI) const {
    if (!MI)
      return 0;
    const OpcodeFacts &OF = F.get(MI->getOpcode());
    return OF.is(ic::SMEM) ? 1 : OF.is(ic::VMEM) ? 2 : 0;
  }
  std::optional<Loop> match(MachineBasicBlock &H) const;
  std::optional<Loop> matchIf(MachineBasicBlock &H) const;
  /// H ending in sS = s_and_saveexec_b64 sC ; s_cbranch_execz T, falling
  /// through to B: fills Lp's H, SkipH, L (= T) and B.
  bool matchGuard(MachineBasicBlock &H, Loop &Lp, MachineInstr *&Save,
                  Register &SS) const;
  bool isRestore(const MachineInstr &MI, Register S) const {
    return isRestoreExec(MI, TII, TRI, S);
  }
  /// The first \p N instructions of \p IB do nothing under EXEC = 0 that
  /// \p Join can see.
  bool bodySafe(ArrayRef<MachineInstr *> IB, size_t N,
                MachineBasicBlock &Join) const;
  void widen(Loop &Lp);
  /// B's and then L's instructions appended to H (the branches between
  /// them taken out), with what undo() needs to put them back.
  void merge(Loop &Lp);
  /// B and L out of the function, H's successors \p HSuccs.
  void detach(Loop &Lp, llvm::ArrayRef<MachineBasicBlock *> HSuccs);
  /// The opcode \p Name (its "_vi" form where there is one); ~0u: none.
  unsigned opcode(StringRef Name) const {
    return LM.target().encodedOpcode(Name);
  }
  /// \p MBB ends in a branch, a return or the end of the program.
  bool endsWithoutFallThrough(MachineBasicBlock &MBB) const {
    std::vector<MachineInstr *> I = instrs(MBB);
    if (I.empty())
      return false;
    FlowKind K = F.get(I.back()->getOpcode()).Flow;
    return K == FlowKind::Branch || K == FlowKind::Return ||
           K == FlowKind::EndProgram;
  }
  void flatten(Loop &Lp);
  void flattenIf(Loop &Lp);
  void undo(Loop &Lp);
  static std::vector<MachineBasicBlock *> succs(MachineBasicBlock *MBB) {
    return std::vector<MachineBasicBlock *>(MBB->succ_begin(),
                                            MBB->succ_end());
  }
  static void setSuccs(MachineBasicBlock *MBB,
                       ArrayRef<MachineBasicBlock *> To) {
    while (!MBB->succ_empty())
      MBB->removeSuccessor(MBB->succ_begin());
    for (MachineBasicBlock *S : To)
      MBB->addSuccessorWithoutProb(S);
  }

  asmevo::Pass &P;
  LiftedModule &LM;
  LiftedFunction &LF;
  MachineFunction &MF;
  const ISAFacts &F;
  const TargetInstrInfo &TII;
  const TargetRegisterInfo &TRI;
  SmallPtrSet<MachineBasicBlock *, 8> Pinned;
};

bool Flattener::masked(const MachineInstr &MI) const {
  const OpcodeFacts &OF = F.get(MI.getOpcode());
  if (OF.is(ic::Nop | ic::Waitcnt))
    return true;
  if (MI.isCall() || MI.isBranch() || MI.isReturn() || MI.isTerminator() ||
      OF.Flow != FlowKind::None || MI.getPostInstrSymbol())
    return false;
  if (OF.is(ic::Barrier | ic::SMEM | ic::MFMA | ic::Message | ic::Sleep |
            ic::SetPrio | ic::SetReg | ic::GDS | ic::LDSDMA | ic::MovRel |
            ic::EndPgm | ic::CacheCtl | ic::Export))
    return false;
  // Lane reads and writes ignore EXEC; v_cmpx writes it; DS append,
  // consume and GWS are wave-level.
  StringRef N = OF.Name;
  for (StringRef S : {"LANE", "CMPX", "GPR_IDX", "APPEND", "CONSUME", "GWS",
                      "ORDERED"})
    if (N.contains(S))
      return false;
  bool VMem = OF.is(ic::VMEM) &&
              (OF.is(ic::Global | ic::Scratch) || !OF.is(ic::FLAT));
  // Scalar ALU work runs whatever EXEC is, like nothing else here: it is
  // allowed when what it writes is dead at the join (bodySafe), as the
  // lane-mask arithmetic of a nested if is; an inner if's EXEC pair
  // (bodySafe checks that each is closed) leaves EXEC as it found it.
  bool SALU = !OF.isVALU() && !OF.is(ic::DS | ic::VMEM | ic::SMEM) &&
              N.starts_with("S_");
  if (SALU)
    for (StringRef S : {"GETREG", "SETREG", "MEMTIME", "MEMREALTIME", "PC",
                        "TRAP", "CACHE", "SENDMSG", "SLEEP", "SETPRIO",
                        "DENORM", "ROUND", "SETVSKIP", "SETHALT", "BRANCH",
                        "ENDPGM", "BARRIER", "WAKEUP", "TTRACE", "PERF",
                        "MOVREL", "RFE", "CALL", "ICACHE", "SETKILL"})
      if (N.contains(S))
        return false;
  if (!OF.isVALU() && !OF.is(ic::DS) && !VMem && !SALU)
    return false;
  for (const MachineOperand &MO : MI.operands()) {
    if (MO.isMBB() || MO.isSymbol() || MO.isGlobal() || MO.isMCSymbol())
      return false;
    if (MO.isReg() && MO.isDef() && isExec(MO) &&
        !isOp(N, "S_AND_SAVEEXEC_B64") && !isOp(N, "S_OR_B64"))
      return false;
  }
  return true;
}

bool Flattener::matchGuard(MachineBasicBlock &H, Loop &Lp, MachineInstr *&Save,
                           Register &SS) const {
  Lp.H = &H;
  std::vector<MachineInstr *> IH = instrs(H);
  if (IH.size() < 2 || Pinned.count(&H))
    return false;
  Save = IH[IH.size() - 2];
  Lp.SkipH = IH.back();
  if (!isOp(nameOf(*Lp.SkipH), "S_CBRANCH_EXECZ") ||
      !Lp.SkipH->getOperand(0).isMBB() ||
      !isSaveExec(*Save, TII))
    return false;
  SS = Save->getOperand(0).getReg();
  Lp.L = Lp.SkipH->getOperand(0).getMBB();
  Lp.B = H.getNextNode();
  return Lp.B && Lp.B != Lp.L && Lp.L != &H && !Pinned.count(Lp.B) &&
         !Pinned.count(Lp.L) && H.succ_size() == 2 && H.isSuccessor(Lp.L) &&
         H.isSuccessor(Lp.B);
}

std::optional<Flattener::Loop>
Flattener::match(MachineBasicBlock &H) const {
  Loop Lp;
  MachineInstr *Save = nullptr;
  Register SS;
  if (!matchGuard(H, Lp, Save, SS))
    return std::nullopt;
  MachineBasicBlock *L = Lp.L, *B = Lp.B;
  if (L->getNextNode() != &H)
    return std::nullopt;
  // B: lane-masked work ; s_branch L, reached from H only.
  std::vector<MachineInstr *> IB = instrs(*B);
  if (IB.empty() || B->pred_size() != 1 || *B->pred_begin() != &H ||
      B->succ_size() != 1 || !B->isSuccessor(L))
    return std::nullopt;
  Lp.BrB = IB.back();
  if (!isOp(nameOf(*Lp.BrB), "S_BRANCH") || !Lp.BrB->getOperand(0).isMBB() ||
      Lp.BrB->getOperand(0).getMBB() != L)
    return std::nullopt;
  // L: exec |= sS ; ... ; exec &= ~sM ; s_cbranch_execz X, reached from H
  // and B only, falling through to H.
  std::vector<MachineInstr *> IL = instrs(*L);
  if (IL.size() < 3 || L->pred_size() != 2 || !L->isPredecessor(&H) ||
      !L->isPredecessor(B) || L->succ_size() != 2 || !L->isSuccessor(&H))
    return std::nullopt;
  MachineInstr &Restore = *IL.front();
  if (!isRestore(Restore, SS))
    return std::nullopt;
  Lp.TermL = IL.back();
  MachineInstr &Andn2 = *IL[IL.size() - 2];
  if (!isOp(nameOf(*Lp.TermL), "S_CBRANCH_EXECZ") ||
      !Lp.TermL->getOperand(0).isMBB() ||
      !isOp(nameOf(Andn2), "S_ANDN2_B64") || !isExec(Andn2.getOperand(0)) ||
      !isExec(Andn2.getOperand(1)))
    return std::nullopt;
  Lp.X = Lp.TermL->getOperand(0).getMBB();
  if (Lp.X == &H || Lp.X == B || !L->isSuccessor(Lp.X))
    return std::nullopt;
  // B under EXEC = 0 must do nothing the latch can see.
  if (!bodySafe(IB, IB.size() - 1, *L))
    return std::nullopt;
  // The removed branches kept apart memory instructions that would now
  // form one soft clause.
  MachineInstr *BeforeSkip = Save;
  if (clauseKind(BeforeSkip) && clauseKind(BeforeSkip) == clauseKind(IB[0]))
    return std::nullopt;
  MachineInstr *LastB = IB.size() > 1 ? IB[IB.size() - 2] : nullptr;
  if (clauseKind(LastB) && clauseKind(LastB) == clauseKind(&Restore))
    return std::nullopt;
  return Lp;
}

bool Flattener::bodySafe(ArrayRef<MachineInstr *> IB, size_t N,
                         MachineBasicBlock &Join) const {
  SmallVector<Register, 2> Open;
  for (size_t I = 0; I < N; ++I) {
    if (!masked(*IB[I]))
      return false;
    if (writesExec(*IB[I], TRI)) {
      const MachineInstr &MI = *IB[I];
      if (isSaveExec(MI, TII)) {
        Open.push_back(MI.getOperand(0).getReg());
      } else if (!Open.empty() && isRestore(MI, Open.back())) {
        Open.pop_back();
      } else {
        return false;
      }
    } else if (llvm::any_of(Open, [&](Register R) {
                 return IB[I]->modifiesRegister(R, &TRI);
               })) {
      return false;
    }
    for (const MachineOperand &MO : IB[I]->operands()) {
      // EXEC: only in closed pairs, which leave it as it was.
      if (!MO.isReg() || !MO.isDef() || !MO.getReg() ||
          isVectorReg(MO.getReg()) || isExec(MO))
        continue;
      for (const auto &LI : Join.liveins())
        if (TRI.regsOverlap(LI.PhysReg, MO.getReg()))
          return false;
    }
  }
  return Open.empty();
}

std::optional<Flattener::Loop>
Flattener::matchIf(MachineBasicBlock &H) const {
  Loop Lp;
  Lp.If = true;
  MachineInstr *Save = nullptr;
  Register SS;
  if (!matchGuard(H, Lp, Save, SS))
    return std::nullopt;
  MachineBasicBlock *J = Lp.L, *B = Lp.B;
  // B: lane-masked work, reached from H only, then J (by s_branch or by
  // falling through).
  std::vector<MachineInstr *> IB = instrs(*B);
  if (IB.empty() || B->pred_size() != 1 || *B->pred_begin() != &H ||
      B->succ_size() != 1 || !B->isSuccessor(J))
    return std::nullopt;
  size_t NB = IB.size();
  if (isOp(nameOf(*IB.back()), "S_BRANCH")) {
    Lp.BrB = IB.back();
    if (!Lp.BrB->getOperand(0).isMBB() || Lp.BrB->getOperand(0).getMBB() != J)
      return std::nullopt;
    --NB;
  } else if (B->getNextNode() != J) {
    return std::nullopt;
  }
  // J: exec |= sS first, reached from H and B only.
  std::vector<MachineInstr *> IJ = instrs(*J);
  if (IJ.empty() || J->pred_size() != 2 || !J->isPredecessor(&H) ||
      !J->isPredecessor(B) || J->isSuccessor(J))
    return std::nullopt;
  MachineInstr &Restore = *IJ.front();
  if (!isRestore(Restore, SS))
    return std::nullopt;
  // A J that leaves on EXEC = 0 and falls back into H is the latch of an
  // exec loop: exec-loop-flatten's.
  if (J->getNextNode() == &H && isOp(nameOf(*IJ.back()), "S_CBRANCH_EXECZ"))
    return std::nullopt;
  // Where J falls through to, the merged block must branch to, unless J
  // ends in a branch or the end of the program.
  if (J != B->getNextNode() && !endsWithoutFallThrough(*J) &&
      (!J->getNextNode() || !J->isSuccessor(J->getNextNode())))
    return std::nullopt;
  if (!bodySafe(IB, NB, *J))
    return std::nullopt;
  if (clauseKind(Save) && clauseKind(Save) == clauseKind(IB[0]))
    return std::nullopt;
  if (clauseKind(IB[NB - 1]) &&
      clauseKind(IB[NB - 1]) == clauseKind(&Restore))
    return std::nullopt;
  return Lp;
}

void Flattener::flattenIf(Loop &Lp) {
  MachineBasicBlock *B = Lp.B, *J = Lp.L;
  Lp.LNext = J->getNextNode();
  MachineBasicBlock *Fall =
      J != B->getNextNode() && !endsWithoutFallThrough(*J) ? J->getNextNode()
                                                            : nullptr;
  merge(Lp);
  if (Fall)
    Lp.NewTerm = BuildMI(*Lp.H, Lp.H->end(), DebugLoc(),
                         TII.get(opcode("S_BRANCH")))
                     .addMBB(Fall);
  detach(Lp, Lp.SuccL);
}

void Flattener::widen(Loop &Lp) {
  MachineBasicBlock *H = Lp.H, *B = Lp.B;
  // A write in B keeps the lanes EXEC masks off, which the original
  // reached L with through the skip branch: in one block, an implicit use
  // of each vector register B writes keeps those old values visibly live
  // for the passes after this one (dead writes, constants into readers).
  // Only a value that exists is kept: registers live into H, or written in
  // H or earlier in B (unit by unit; the verifier refuses a use of a
  // register nothing defined).
  BitVector Defined(TRI.getNumRegUnits());
  auto Define = [&](MCRegister R) {
    for (MCRegUnit U : TRI.regunits(R))
      Defined.set(static_cast<unsigned>(U));
  };
  auto IsDefined = [&](MCRegister R) {
    for (MCRegUnit U : TRI.regunits(R))
      if (!Defined.test(static_cast<unsigned>(U)))
        return false;
    return true;
  };
  for (const auto &LI : H->liveins())
    Define(LI.PhysReg);
  for (MachineInstr &MI : *H)
    for (const MachineOperand &MO : MI.defs())
      if (MO.isReg() && MO.getReg())
        Define(MO.getReg().asMCReg());
  for (MachineInstr &MI : *B) {
    SmallVector<MCRegister, 4> Keep, Defs;
    for (const MachineOperand &MO : MI.defs()) {
      if (!MO.isReg() || !MO.getReg())
        continue;
      Defs.push_back(MO.getReg().asMCReg());
      if (!isVectorReg(MO.getReg()))
        continue;
      for (MCSubRegIterator SR(MO.getReg().asMCReg(), &TRI, true);
           SR.isValid(); ++SR) {
        StringRef N = TRI.getName(*SR);
        if (!N.contains('_') && IsDefined(*SR))
          Keep.push_back(*SR);
      }
    }
    for (MCRegister R : Defs)
      Define(R);
    if (Keep.empty())
      continue;
    Lp.Widened.push_back({&MI, MI.getNumOperands()});
    for (MCRegister R : Keep)
      MachineInstrBuilder(MF, MI).addReg(R, RegState::Implicit);
  }
}

void Flattener::merge(Loop &Lp) {
  MachineBasicBlock *H = Lp.H, *B = Lp.B, *L = Lp.L;
  Lp.SuccH = succs(H);
  Lp.SuccB = succs(B);
  Lp.SuccL = succs(L);
  Lp.SkipH->removeFromParent();
  if (Lp.BrB)
    Lp.BrB->removeFromParent();
  if (Lp.TermL)
    Lp.TermL->removeFromParent();
  widen(Lp);
  Lp.FirstB = B->empty() ? nullptr : &B->front();
  Lp.FirstL = &L->front();
  H->splice(H->end(), B, B->begin(), B->end());
  H->splice(H->end(), L, L->begin(), L->end());
}

void Flattener::detach(Loop &Lp, ArrayRef<MachineBasicBlock *> HSuccs) {
  setSuccs(Lp.B, {});
  setSuccs(Lp.L, {});
  setSuccs(Lp.H, HSuccs);
  MF.remove(Lp.B);
  MF.remove(Lp.L);
}

void Flattener::flatten(Loop &Lp) {
  MachineBasicBlock *H = Lp.H, *B = Lp.B;
  merge(Lp);
  Lp.NewTerm = BuildMI(*H, H->end(), DebugLoc(),
                       TII.get(opcode("S_CBRANCH_EXECNZ")))
                   .addMBB(H);
  // The merged block falls through to where B was followed.
  MachineBasicBlock *Fall = Lp.X;
  if (Lp.X != B->getNextNode()) {
    Lp.E = MF.CreateMachineBasicBlock();
    MF.insert(std::next(MachineFunction::iterator(B)), Lp.E);
    BuildMI(*Lp.E, Lp.E->end(), DebugLoc(), TII.get(opcode("S_BRANCH")))
        .addMBB(Lp.X);
    for (const auto &LI : Lp.X->liveins())
      Lp.E->addLiveIn(LI);
    Lp.E->addSuccessorWithoutProb(Lp.X);
    Fall = Lp.E;
  }
  detach(Lp, {H, Fall});
}

void Flattener::undo(Loop &Lp) {
  MachineBasicBlock *H = Lp.H, *B = Lp.B, *L = Lp.L;
  if (Lp.NewTerm)
    Lp.NewTerm->eraseFromParent();
  if (Lp.E) {
    setSuccs(Lp.E, {});
    MF.erase(Lp.E);
    Lp.E = nullptr;
  }
  // A loop's latch was laid out just before H; an if's join anywhere.
  if (!Lp.If)
    MF.insert(MachineFunction::iterator(H), L);
  else if (Lp.LNext)
    MF.insert(MachineFunction::iterator(Lp.LNext), L);
  else
    MF.push_back(L);
  MF.insert(std::next(MachineFunction::iterator(H)), B);
  L->splice(L->end(), H, Lp.FirstL->getIterator(), H->end());
  if (Lp.FirstB)
    B->splice(B->end(), H, Lp.FirstB->getIterator(), H->end());
  H->insert(H->end(), Lp.SkipH);
  if (Lp.BrB)
    B->insert(B->end(), Lp.BrB);
  if (Lp.TermL)
    L->insert(L->end(), Lp.TermL);
  setSuccs(H, Lp.SuccH);
  setSuccs(B, Lp.SuccB);
  setSuccs(L, Lp.SuccL);
  for (auto &[MI, N] : Lp.Widened)
    while (MI->getNumOperands() > N)
      MI->removeOperand(MI->getNumOperands() - 1);
}

bool Flattener::run(bool Ifs) {
  if (MF.empty())
    return false;
  Pinned = fixedBlocks(MF, LF);
  for (const char *Op : {"S_CBRANCH_EXECNZ", "S_BRANCH"})
    if (opcode(Op) == ~0u)
      return false;
  AnalysisOptions AO;
  AO.Liveness = false;
  FunctionAnalysis A0 = analyzeFunction(LM, LF, F, AO);
  if (A0.FromBytes)
    return false;
  SiteSet Before = SiteSet::of(A0, /*Advisories=*/true);
  std::vector<Loop> Done;
  // Match against the layout as it is; each rewrite removes two blocks,
  // so the walk starts again after it.
  SmallPtrSet<MachineBasicBlock *, 8> Decided;
  bool Again = true;
  while (Again) {
    Again = false;
    for (MachineBasicBlock &MBB : MF) {
      if (Decided.count(&MBB))
        continue;
      std::optional<Loop> Lp = Ifs ? matchIf(MBB) : match(MBB);
      if (!Lp)
        continue;
      // A block rewritten may match again (its next if); one left alone
      // is not asked again.
      if (!P.shouldRewrite()) {
        Decided.insert(&MBB);
        continue;
      }
      if (Ifs)
        flattenIf(*Lp);
      else
        flatten(*Lp);
      Done.push_back(*Lp);
      Again = true;
      break;
    }
  }
  if (Done.empty())
    return false;
  if (!Before.noneIntroducedBy(SiteSet::of(LM, LF, F, /*Advisories=*/true))) {
    for (auto It = Done.rbegin(); It != Done.rend(); ++It)
      undo(*It);
    return false;
  }
  for (Loop &Lp : Done) {
    MF.deleteMachineInstr(Lp.SkipH);
    if (Lp.BrB)
      MF.deleteMachineInstr(Lp.BrB);
    if (Lp.TermL)
      MF.deleteMachineInstr(Lp.TermL);
    MF.deleteMachineBasicBlock(Lp.B);
    MF.deleteMachineBasicBlock(Lp.L);
  }
  return true;
}

} // namespace

Expected<bool> ExecLoopFlattenPass::run(LiftedModule &LM, LiftedFunction &LF) {
  Flattener Fl(*this, LM, LF, Facts.get(LM));
  return Fl.run(/*Ifs=*/false);
}

Expected<bool> ExecIfFlattenPass::run(LiftedModule &LM, LiftedFunction &LF) {
  Flattener Fl(*this, LM, LF, Facts.get(LM));
  return Fl.run(/*Ifs=*/true);
}
