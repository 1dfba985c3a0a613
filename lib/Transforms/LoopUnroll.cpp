//===- LoopUnroll.cpp - Unroll counted single-block loops by two ----------===//
#include "LoopUnroll.h"
#include "CompareLoop.h"
#include "EditSupport.h"
#include "ExecMask.h"
#include "GuardedDefault.h"
#include "LoadReuse.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "asmevo/Transforms/InstrAnchor.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/Support/CommandLine.h"
#include <functional>
#include <map>
#include <numeric>

using namespace llvm;
using namespace asmevo;

static cl::opt<unsigned> LoopUnrollMaxBody(
    "loop-unroll-max-body",
    cl::desc("loop-unroll: most instructions in a loop body it copies"),
    cl::init(96));

static cl::opt<unsigned> LoopUnrollFactor(
    "loop-unroll-factor",
    cl::desc("loop-unroll: copies of the body per iteration (2, 4 or 8)"),
    cl::init(4));

static cl::opt<unsigned> ExecLoopPipelineDepth(
    "exec-loop-pipeline-depth",
    cl::desc("exec-loop-pipeline: iterations in flight per loop trip (2-8); "
             "a loop that cannot take that many gets 2"),
    cl::init(4));

static cl::opt<bool> LoopUnrollNoRename(
    "loop-unroll-no-rename", cl::Hidden,
    cl::desc("loop-unroll: copy the body without renaming its VGPRs"));

namespace {

/// Union-find over the value webs of one body copy.
struct Webs {
  std::vector<unsigned> Parent;
  std::vector<bool> Fixed;
  unsigned make(bool IsFixed) {
    Parent.push_back(Parent.size());
    Fixed.push_back(IsFixed);
    return Parent.size() - 1;
  }
  unsigned find(unsigned W) {
    while (Parent[W] != W)
      W = Parent[W] = Parent[Parent[W]];
    return W;
  }
  void unite(unsigned A, unsigned B) {
    A = find(A), B = find(B);
    if (A == B)
      return;
    Parent[B] = A;
    Fixed[A] = Fixed[A] || Fixed[B];
  }
  void fix(unsigned W) { Fixed[find(W)] = true; }
  bool fixed(unsigned W) { return Fixed[find(W)]; }
};

/// Marks in \p Used every SGPR index \p MF names (pairs, tuples and
/// halves by their parts); false when a register does not say which SGPRs
/// it is (trap temporaries).
bool scanSGPRs(const MachineFunction &MF, const MCRegisterInfo &MRI,
               std::vector<bool> &Used) {
  for (const MachineBasicBlock &MBB : MF)
    for (const MachineInstr &MI : MBB)
      for (const MachineOperand &MO : MI.operands()) {
        if (!MO.isReg() || !MO.getReg())
          continue;
        // SGPRn, SGPRa_SGPRb..., and their 16-bit halves (SGPRn_LO16).
        SmallVector<StringRef, 8> Parts;
        StringRef(MRI.getName(MO.getReg())).split(Parts, '_');
        for (StringRef P : Parts) {
          unsigned Idx;
          if (P.consume_front("SGPR") && !P.getAsInteger(10, Idx) &&
              Idx < Used.size())
            Used[Idx] = true;
        }
        if (StringRef(MRI.getName(MO.getReg())).starts_with("TTMP"))
          return false;
      }
  return true;
}

class Unroller {
public:
  Unroller(asmevo::Pass &P, LiftedModule &LM, LiftedFunction &LF,
           const ISAFacts &F)
      : P(P), LM(LM), LF(LF), MF(*LF.MF), F(F),
        TII(*MF.getSubtarget().getInstrInfo()),
        TRI(*MF.getSubtarget().getRegisterInfo()),
        MRI(LM.target().regInfo()) {}
  /// \p Exec: pipeline exec-masked loops (exec-loop-pipeline) instead of
  /// unrolling counted ones.
  bool run(bool Exec = false);

private:
  struct Loop {
    MachineBasicBlock *L = nullptr, *Exit = nullptr;
    MachineInstr *Term = nullptr;
    /// An unconditional back branch before Term's block ends (guarded
    /// loops only): not part of the body either.
    MachineInstr *Back = nullptr;
    Register Counter;
  };
  /// What one unroll added, to put it back.
  struct Done {
    Loop Lp;
    /// The new blocks, the first of them the loop's new entry.
    std::vector<MachineBasicBlock *> Blocks;
    std::vector<MachineBasicBlock *> Retargeted;
    /// Instructions added to L (the copies after the first).
    std::vector<MachineInstr *> Copy;
    /// Each body copy, by block, in order: what rename() works on.
    std::vector<std::vector<std::vector<MachineInstr *>>> Copies;
    /// singleTrip(): the exit branch and back branch it took out of L, and
    /// the branch to the exit it put in their place.
    MachineInstr *OldTerm = nullptr, *OldBack = nullptr, *NewTerm = nullptr;
    /// splitGuardedDefaults() on L before the copies were made.
    RegLog Split;
    std::vector<MachineOperand *> SplitUndef;
  };

  StringRef nameOf(const MachineInstr &MI) const {
    return TII.getName(MI.getOpcode());
  }
  std::optional<Loop> match(MachineBasicBlock &MBB) const;
  /// One exec-masked loop, split at its first wait: H (head, up to the
  /// wait), T (tail), X (s_andn2_b64 exec, exec, sM).
  struct ExecLoop {
    MachineBasicBlock *L = nullptr, *Exit = nullptr;
    MachineInstr *Term = nullptr, *X = nullptr;
    std::vector<MachineInstr *> H, T;
    /// Head VALU instructions sunk below the first wait (sinkHead), each
    /// with the instruction it came before; SinkBefore: where they go.
    std::vector<std::pair<MachineInstr *, MachineInstr *>> Sunk;
    MachineInstr *SinkBefore = nullptr;
    /// Tail ALU work that needs nothing the first wait waits for, moved
    /// above it (hoistTail), each with the instruction it came before;
    /// HoistBefore: the wait.
    std::vector<std::pair<MachineInstr *, MachineInstr *>> Hoisted;
    MachineInstr *HoistBefore = nullptr;
    /// Scalars the head writes and reads itself that the first tail also
    /// touches: renamed in the second head (headLocalSGPR).
    std::vector<Register> RenameS;
    /// Tail temporaries moved out of a loaded VGPR (renameLoadReuse) so
    /// that hoistTail could take them; put back with the loop.
    RegLog Reuse;
  };
  /// \p R is a scalar the head of \p EL writes before any read of it,
  /// names only explicitly and whole, and the tail does not read before
  /// writing: the second head can keep it in another register.
  bool headLocalSGPR(const ExecLoop &EL, Register R, Register M) const;
  std::optional<ExecLoop> matchExec(MachineBasicBlock &MBB) const;
  /// Reorders \p Body (the loop without X and its branch) so that head
  /// VALU work the tail races with runs just after the first wait.
  void sinkHead(std::vector<MachineInstr *> &Body, ExecLoop &EL) const;
  /// Reorders \p Body so that tail ALU work the next head needs first (a
  /// loop-carried update the head reads, the scalar lane-mask bookkeeping)
  /// runs just before the first wait, when it reads and writes nothing
  /// the wait is for.
  void hoistTail(std::vector<MachineInstr *> &Body, ExecLoop &EL) const;
  /// The index of \p Body's first s_waitcnt (its size if none).
  size_t firstWait(ArrayRef<MachineInstr *> Body) const {
    return llvm::find_if(Body, [&](MachineInstr *MI) {
             return F.get(MI->getOpcode()).is(ic::Waitcnt);
           }) -
           Body.begin();
  }
  /// A writes a register B reads or writes.
  bool writesInto(const MachineInstr *A, const MachineInstr *B) const {
    for (const MachineOperand &MO : A->operands())
      if (MO.isReg() && MO.isDef() && MO.getReg() &&
          (B->readsRegister(MO.getReg(), &TRI) ||
           B->modifiesRegister(MO.getReg(), &TRI)))
        return true;
    return false;
  }
  /// For each instruction of \p Body up to its first wait: whether it
  /// runs inside an s_and_saveexec_b64 ... s_or_b64 exec, exec, sS pair
  /// (under a narrower EXEC than the loop's).
  /// With \p ToWait false, over all of \p Body; std::nullopt when an
  /// instruction there writes EXEC otherwise or a pair is left open.
  std::optional<std::vector<bool>>
  inSaveRegion(ArrayRef<MachineInstr *> Body, bool ToWait = true) const;
  bool isSave(const MachineInstr &MI) const { return isSaveExec(MI, TII); }
  bool isRestore(const MachineInstr &MI, Register S) const {
    return isRestoreExec(MI, TII, MRI, S);
  }
  /// Rewrites one exec loop; returns what to erase to put it back.
  bool pipelineExec(ExecLoop &EL, std::vector<MachineInstr *> &Added,
                    RegLog &Renamed,
                    std::vector<std::pair<MachineInstr *, int64_t>> &Waits,
                    ArrayRef<unsigned> Saves, ArrayRef<unsigned> Spare);
  bool runExec();
  bool writesExecReg(const MachineInstr &MI) const {
    return writesExec(MI, MRI);
  }
  bool isExecReg(Register R) const { return isExecRegister(MRI, R); }
  bool bodyCopyable(const Loop &Lp) const;
  void unroll(const Loop &Lp, unsigned Factor, Done &D);
  /// Renames the VGPR webs of one body copy that neither the next copy
  /// (Exposed) nor, when \p Last, the exit reads.
  /// \p Log, when given, receives each operand renamed and its old register.
  /// \p AlsoLive: another block the last copy's values flow into.
  void rename(const Loop &Lp, ArrayRef<MachineInstr *> Copy, bool Last,
              std::vector<std::pair<MachineOperand *, Register>> *Log =
                  nullptr,
              const MachineBasicBlock *AlsoLive = nullptr);
  bool hasBarrier(const MachineBasicBlock &MBB) const {
    return llvm::any_of(MBB, [&](const MachineInstr &MI) {
      return F.get(MI.getOpcode()).is(ic::Barrier);
    });
  }
  /// Whether a store or atomic to memory other waves see (global, flat,
  /// buffer; not scratch, not LDS) is in \p L or any block that reaches it.
  bool storesReach(const MachineBasicBlock &L) const;
  /// After a guarded unroll by two, the loop left behind runs exactly one
  /// trip whenever it is entered (fewer than two remain, and it runs at
  /// least one): its back branch can never run, and no run could ever
  /// show it correct. L ends with a branch to the exit instead.
  bool singleTrip(const CompareLoop &CL, Done &D);
  /// Unrolls \p CL under a guard (CompareLoop.h); false when no guard
  /// can be built.
  bool unrollGuarded(const CompareLoop &CL, unsigned Factor, Register Limit,
                     Done &D);
  void undo(Done &D);

  asmevo::Pass &P;
  LiftedModule &LM;
  LiftedFunction &LF;
  MachineFunction &MF;
  const ISAFacts &F;
  const TargetInstrInfo &TII;
  const TargetRegisterInfo &TRI;
  const MCRegisterInfo &MRI;
  std::vector<bool> UsedVGPR = std::vector<bool>(NumVGPRs);
  /// rename() gives a guarded write's implicit uses of its own VGPRs
  /// (the lifter's "masked lanes keep their value") the new name, undef,
  /// instead of keeping the write in place (guarded unrolls only, which
  /// erase their copies whole when undone).
  bool RenameShadows = false;
  unsigned VGPRLimit = 0;
  /// The VGPR limit one wave per SIMD lower (0: none, or below 4 waves).
  unsigned LowerLimit = 0;
  /// exec-loop-pipeline with occupancy-drop >= 2: the limit that many
  /// waves per SIMD lower (tried after LowerLimit); 0 when not asked.
  unsigned DeepLimit = 0;
};

std::optional<Unroller::Loop> Unroller::match(MachineBasicBlock &MBB) const {
  Loop Lp;
  Lp.L = &MBB;
  MachineInstr *Term = nullptr;
  for (auto It = MBB.rbegin(); It != MBB.rend(); ++It)
    if (!It->isMetaInstruction()) {
      Term = &*It;
      break;
    }
  if (!Term || !isOp(nameOf(*Term), "S_CBRANCH_SCC0") ||
      !Term->getOperand(0).isMBB() || Term->getOperand(0).getMBB() != &MBB)
    return std::nullopt;
  Lp.Term = Term;
  Lp.Exit = MBB.getNextNode();
  if (!Lp.Exit || MBB.succ_size() != 2 || !MBB.isSuccessor(&MBB) ||
      !MBB.isSuccessor(Lp.Exit))
    return std::nullopt;
  // The last SCC write before the branch: s_cmp_eq_u32 sC, 0.
  MCRegister SCC = LM.target().reg("scc");
  MachineInstr *Cmp = nullptr;
  for (auto It = std::next(Term->getReverseIterator()); It != MBB.rend();
       ++It)
    if (It->modifiesRegister(SCC, &TRI)) {
      Cmp = &*It;
      break;
    }
  if (!Cmp || !isOp(nameOf(*Cmp), "S_CMP_EQ_U32") ||
      Cmp->getNumExplicitOperands() < 2 || !Cmp->getOperand(0).isReg() ||
      !Cmp->getOperand(1).isImm() || Cmp->getOperand(1).getImm() != 0)
    return std::nullopt;
  Register C = Cmp->getOperand(0).getReg();
  if (!StringRef(MRI.getName(C)).starts_with("SGPR") ||
      StringRef(MRI.getName(C)).contains('_'))
    return std::nullopt;
  Lp.Counter = C;
  // Exactly one write of the counter, before the compare: sC -= 1.
  unsigned Writes = 0;
  bool DecBeforeCmp = false, SeenCmp = false;
  for (MachineInstr &MI : MBB) {
    if (&MI == Cmp)
      SeenCmp = true;
    if (!MI.modifiesRegister(C, &TRI))
      continue;
    ++Writes;
    StringRef N = nameOf(MI);
    bool Add = isOp(N, "S_ADD_I32") || isOp(N, "S_ADD_U32");
    bool Sub = isOp(N, "S_SUB_I32") || isOp(N, "S_SUB_U32");
    if ((!Add && !Sub) || MI.getNumExplicitOperands() < 3 ||
        !MI.getOperand(0).isReg() || MI.getOperand(0).getReg() != C ||
        !MI.getOperand(1).isReg() || MI.getOperand(1).getReg() != C ||
        !MI.getOperand(2).isImm())
      return std::nullopt;
    int64_t Imm = MI.getOperand(2).getImm();
    bool MinusOne = Imm == -1 || Imm == 0xffffffffll;
    if ((Add && !MinusOne) || (Sub && Imm != 1))
      return std::nullopt;
    DecBeforeCmp = !SeenCmp;
  }
  if (Writes != 1 || !DecBeforeCmp)
    return std::nullopt;
  // The parity check writes SCC on the way in: the body must not read the
  // SCC it enters with.
  for (MachineInstr &MI : MBB) {
    if (MI.readsRegister(SCC, &TRI) && &MI != Term)
      return std::nullopt;
    if (MI.modifiesRegister(SCC, &TRI))
      break;
  }
  return Lp;
}

bool Unroller::bodyCopyable(const Loop &Lp) const {
  unsigned N = 0;
  for (MachineInstr &MI : *Lp.L) {
    if (&MI == Lp.Term || &MI == Lp.Back || MI.isMetaInstruction())
      continue;
    if (++N > P.param("max-body", LoopUnrollMaxBody))
      return false;
    if (MI.isCall() || MI.isBranch() || MI.isReturn() || MI.isTerminator())
      return false;
    const OpcodeFacts &OF = F.get(MI.getOpcode());
    if (OF.Flow != FlowKind::None || OF.is(ic::EndPgm) || isGetPC(OF.Name))
      return false;
    StringRef Name = nameOf(MI);
    for (const char *Pfx : {"S_GETPC", "S_SETPC", "S_SWAPPC", "S_CALL",
                            "S_CBRANCH", "S_BRANCH", "S_ENDPGM", "S_TRAP",
                            "S_RFE", "S_SETHALT", "S_SETVSKIP"})
      if (Name.starts_with(Pfx))
        return false;
    // Symbols and relocated operands keep their meaning only in one place.
    for (const MachineOperand &MO : MI.operands())
      if (!MO.isReg() && !MO.isImm())
        return false;
    if (MI.getPostInstrSymbol())
      return false;
  }
  return N > 0;
}

void Unroller::unroll(const Loop &Lp, unsigned Factor, Done &D) {
  MachineBasicBlock &L = *Lp.L;
  D.Lp = Lp;
  std::vector<MachineInstr *> Body;
  for (MachineInstr &MI : L)
    if (&MI != Lp.Term && !MI.isMetaInstruction())
      Body.push_back(&MI);
  auto CloneInto = [&](MachineBasicBlock &B, MachineBasicBlock::iterator At) {
    std::vector<MachineInstr *> C;
    for (MachineInstr *MI : Body) {
      MachineInstr *N = MF.CloneMachineInstr(MI);
      N->setPreInstrSymbol(MF, nullptr);
      B.insert(At, N);
      C.push_back(N);
    }
    return C;
  };
  // L: Factor copies, the first one the original instructions.
  std::vector<std::vector<MachineInstr *>> InL{Body};
  for (unsigned I = 1; I < Factor; ++I) {
    InL.push_back(CloneInto(L, Lp.Term->getIterator()));
    D.Copy.insert(D.Copy.end(), InL.back().begin(), InL.back().end());
  }

  // Before L, per bit j below Factor: C_j tests bit j of sC and P_j runs
  // 2^j iterations when it is set, leaving the loop when sC reaches 0.
  // What reaches L has a multiple of Factor iterations left.
  const TargetContext &TC = LM.target();
  unsigned Bits = Log2_32(Factor);
  std::vector<MachineBasicBlock *> Checks, Peels;
  for (unsigned J = 0; J < Bits; ++J) {
    for (auto *V : {&Checks, &Peels}) {
      MachineBasicBlock *B = MF.CreateMachineBasicBlock();
      MF.insert(L.getIterator(), B);
      for (const auto &LI : L.liveins())
        B->addLiveIn(LI);
      V->push_back(B);
      D.Blocks.push_back(B);
    }
  }
  for (unsigned J = 0; J < Bits; ++J) {
    MachineBasicBlock *Check = Checks[J], *Peel = Peels[J];
    MachineBasicBlock *Next = J + 1 < Bits ? Checks[J + 1] : &L;
    BuildMI(*Check, Check->end(), DebugLoc(),
            TII.get(TC.encodedOpcode("S_BITCMP1_B32")))
        .addReg(Lp.Counter)
        .addImm(J);
    BuildMI(*Check, Check->end(), DebugLoc(),
            TII.get(TC.encodedOpcode("S_CBRANCH_SCC0")))
        .addMBB(Next);
    Check->addSuccessorWithoutProb(Peel);
    Check->addSuccessorWithoutProb(Next);
    std::vector<std::vector<MachineInstr *>> InPeel;
    for (unsigned I = 0; I < (1u << J); ++I)
      InPeel.push_back(CloneInto(*Peel, Peel->end()));
    BuildMI(*Peel, Peel->end(), DebugLoc(),
            TII.get(TC.encodedOpcode("S_CBRANCH_SCC1")))
        .addMBB(Lp.Exit);
    Peel->addSuccessorWithoutProb(Lp.Exit);
    Peel->addSuccessorWithoutProb(Next);
    D.Copies.push_back(std::move(InPeel));
  }
  D.Copies.push_back(std::move(InL));

  // Every way into the loop but its own back edge now enters at C_0. The
  // block laid out before L fell through into it; it now falls into C_0.
  MachineBasicBlock *Entry = Checks.front();
  std::vector<MachineBasicBlock *> Preds(L.pred_begin(), L.pred_end());
  for (MachineBasicBlock *Pred : Preds) {
    if (Pred == &L || llvm::is_contained(D.Blocks, Pred))
      continue;
    Pred->ReplaceUsesOfBlockWith(&L, Entry);
    D.Retargeted.push_back(Pred);
  }
}

void Unroller::rename(
    const Loop &Lp, ArrayRef<MachineInstr *> Copy, bool Last,
    std::vector<std::pair<MachineOperand *, Register>> *Log,
    const MachineBasicBlock *AlsoLive) {
  // Bodies where a VGPR's lanes are not simply "written under the one EXEC
  // the body runs with, read under it": renaming would change what an
  // inactive or another lane reads.
  // EXEC may be narrowed by s_and_saveexec_b64 and put back within the
  // copy (a guarded load): a write in between keeps the lanes it masks
  // off, so it reads the register too.
  auto Regions = inSaveRegion(Copy, /*ToWait=*/false);
  if (!Regions)
    return;
  SmallPtrSet<const MachineInstr *, 16> Guarded;
  for (size_t I = 0; I < Copy.size(); ++I)
    if ((*Regions)[I])
      Guarded.insert(Copy[I]);
  for (MachineInstr *MI : Copy) {
    StringRef N = nameOf(*MI);
    for (const char *S : {"READLANE", "READFIRSTLANE", "PERMUTE", "PERMLANE",
                          "SWIZZLE", "DPP", "_dpp", "MOVREL", "GPR_IDX",
                          "_LDS"})
      if (N.contains(S))
        return;
  }
  // Partial writes (a 16-bit half, an SDWA or D16 destination, one lane)
  // keep the rest of the register: they read it too.
  auto NamePartial = [&](const MachineInstr &MI) {
    return writesPartOfVGPR(nameOf(MI));
  };
  // A write under a narrowed EXEC keeps the masked-off lanes' old values;
  // those matter only if something reads the VGPR after the region closes
  // before an unguarded write of it (or the next copy or the exit may):
  // only then does the write read the old value. (An address pair's high
  // half that only the guarded load reads is a plain write.)
  // The lifter marks a write under a narrowed EXEC as also reading each of
  // its VGPRs (implicit uses); KeptOld above says which of those old
  // values matter, so these operands only follow their definition's name.
  auto Shadow = [&](const MachineInstr &MI, const MachineOperand &MO) {
    if (!RenameShadows || !MO.isImplicit() || MO.isDef() ||
        !Guarded.count(&MI))
      return false;
    auto V = vgprsOf(MRI, MO.getReg().asMCReg());
    if (!V || V->Count != 1)
      return false;
    return llvm::any_of(MI.operands(), [&](const MachineOperand &D) {
      return D.isReg() && D.isDef() && D.getReg() &&
             TRI.regsOverlap(D.getReg(), MO.getReg());
    });
  };
  auto VUnits = [&](const MachineInstr &MI, bool Defs) {
    SmallVector<unsigned, 8> Out;
    for (const MachineOperand &MO : MI.operands())
      if (MO.isReg() && MO.getReg() && MO.isDef() == Defs && !Shadow(MI, MO))
        if (auto V = vgprsOf(MRI, MO.getReg().asMCReg()))
          for (unsigned U = V->First; U < V->First + V->Count; ++U)
            Out.push_back(U);
    return Out;
  };
  // Each instruction's innermost region: where it opens and closes.
  std::vector<size_t> RegionEnd(Copy.size(), Copy.size()),
      RegionStart(Copy.size(), Copy.size());
  {
    SmallVector<size_t, 2> Stack;
    for (size_t I = 0; I < Copy.size(); ++I) {
      if (isSave(*Copy[I])) {
        Stack.push_back(I);
      } else if (!Stack.empty() && writesExecReg(*Copy[I])) {
        for (size_t K = Stack.back() + 1; K < I; ++K)
          if (RegionEnd[K] == Copy.size()) {
            RegionEnd[K] = I;
            RegionStart[K] = Stack.back();
          }
        Stack.pop_back();
      }
    }
  }
  // What a copy reads before writing it for the lanes it reads: a read is
  // covered by an unguarded write before it, or by a guarded one in the
  // same region (same EXEC); anything else reads the previous copy's value.
  std::vector<bool> ReadFirst(NumVGPRs), DefUnguarded(NumVGPRs);
  std::vector<size_t> LastDefRegion(NumVGPRs, ~size_t(0));
  for (size_t J = 0; J < Copy.size(); ++J) {
    bool G = Guarded.count(Copy[J]);
    for (unsigned U : VUnits(*Copy[J], false))
      if (!DefUnguarded[U] && !(G && LastDefRegion[U] == RegionStart[J]))
        ReadFirst[U] = true;
    for (unsigned U : VUnits(*Copy[J], true)) {
      if (!G && !NamePartial(*Copy[J]))
        DefUnguarded[U] = true;
      else if (G)
        LastDefRegion[U] = RegionStart[J];
    }
  }
  std::vector<bool> ExitLive(NumVGPRs);
  if (Last)
    for (const MachineBasicBlock *B :
         {static_cast<const MachineBasicBlock *>(Lp.Exit), AlsoLive})
      if (B)
        for (const auto &LI : B->liveins())
          if (auto V = vgprsOf(MRI, LI.PhysReg))
            for (unsigned U = V->First; U < V->First + V->Count; ++U)
              ExitLive[U] = true;
  std::map<const MachineInstr *, SmallVector<unsigned, 4>> KeptOld;
  for (size_t I = 0; I < Copy.size(); ++I) {
    if (!Guarded.count(Copy[I]))
      continue;
    for (unsigned U : VUnits(*Copy[I], true)) {
      bool Matters = true, Stopped = false;
      // With shadows renamed: a later region's own write of U covers that
      // region's reads of it (the same EXEC).
      size_t CoveredIn = Copy.size();
      for (size_t J = RegionEnd[I] + 1; J < Copy.size() && !Stopped; ++J) {
        bool G = Guarded.count(Copy[J]);
        if (llvm::is_contained(VUnits(*Copy[J], false), U) &&
            !(RenameShadows && G && CoveredIn == RegionStart[J])) {
          Stopped = true; // read: Matters stays
        } else if (!G && !NamePartial(*Copy[J]) &&
                   llvm::is_contained(VUnits(*Copy[J], true), U)) {
          Stopped = true;
          Matters = false;
        } else if (G && !NamePartial(*Copy[J]) &&
                   llvm::is_contained(VUnits(*Copy[J], true), U)) {
          CoveredIn = RegionStart[J];
        }
      }
      if (!Stopped)
        Matters = ExitLive[U] || ReadFirst[U];
      if (Matters)
        KeptOld[Copy[I]].push_back(U);
    }
  }
  auto PartialDef = [&](const MachineInstr &MI) {
    if (Guarded.count(&MI))
      return false; // per unit: KeptOld
    return writesPartOfVGPR(nameOf(MI));
  };

  // Which VGPRs the next iteration reads before writing (the first copy's
  // upward-exposed uses), and which the exit reads.
  std::vector<bool> Exposed(NumVGPRs), Written(NumVGPRs);
  auto Ranges = [&](const MachineInstr &MI, bool Defs,
                    SmallVectorImpl<std::pair<unsigned, VRange>> &Out) {
    for (unsigned I = 0; I < MI.getNumOperands(); ++I) {
      const MachineOperand &MO = MI.getOperand(I);
      if (!MO.isReg() || !MO.getReg() || MO.isDef() != Defs ||
          Shadow(MI, MO))
        continue;
      if (auto V = vgprsOf(MRI, MO.getReg().asMCReg()))
        Out.push_back({I, *V});
    }
    if (!Defs && PartialDef(MI))
      for (unsigned I = 0; I < MI.getNumOperands(); ++I) {
        const MachineOperand &MO = MI.getOperand(I);
        if (MO.isReg() && MO.getReg() && MO.isDef())
          if (auto V = vgprsOf(MRI, MO.getReg().asMCReg()))
            Out.push_back({~0u, *V});
      }
    if (!Defs)
      if (auto It = KeptOld.find(&MI); It != KeptOld.end())
        for (unsigned U : It->second) {
          VRange V;
          V.First = U;
          V.Count = 1;
          Out.push_back({~0u, V});
        }
  };
  for (MachineInstr *MI : Copy) {
    SmallVector<std::pair<unsigned, VRange>, 8> Uses, Defs;
    Ranges(*MI, false, Uses);
    Ranges(*MI, true, Defs);
    for (auto &[I, V] : Uses)
      for (unsigned U = V.First; U < V.First + V.Count; ++U)
        if (!Written[U])
          Exposed[U] = true;
    for (auto &[I, V] : Defs)
      for (unsigned U = V.First; U < V.First + V.Count; ++U)
        Written[U] = true;
  }
  // Only a block's last copy leaves it: its values reach the exit (and
  // AlsoLive); earlier copies hand theirs only to the next copy.
  std::vector<bool> LiveOut = Last ? ExitLive : Exposed;
  if (Last)
    for (unsigned U = 0; U < NumVGPRs; ++U)
      LiveOut[U] = LiveOut[U] || Exposed[U];

  // Webs: one per definition of a VGPR (and one per VGPR for the value the
  // copy starts with, fixed). Registers named together in one operand, and
  // a VGPR an instruction both reads and writes (tied, partial), move
  // together.
  Webs W;
  std::vector<unsigned> Cur(NumVGPRs), UnitOf;
  for (unsigned U = 0; U < NumVGPRs; ++U) {
    Cur[U] = W.make(true);
    UnitOf.push_back(U);
  }
  // (instruction, operand) -> web of its first VGPR, and the range.
  std::vector<std::tuple<MachineInstr *, unsigned, unsigned, VRange>> Ops;
  for (MachineInstr *MI : Copy) {
    SmallVector<std::pair<unsigned, VRange>, 8> Uses, Defs;
    Ranges(*MI, false, Uses);
    Ranges(*MI, true, Defs);
    std::map<unsigned, unsigned> UseWeb;
    for (auto &[I, V] : Uses) {
      for (unsigned U = V.First; U < V.First + V.Count; ++U) {
        W.unite(Cur[V.First], Cur[U]);
        UseWeb[U] = Cur[U];
      }
      if (V.Half)
        W.fix(Cur[V.First]);
      if (I != ~0u)
        Ops.emplace_back(MI, I, Cur[V.First], V);
    }
    std::map<unsigned, unsigned> New;
    for (auto &[I, V] : Defs) {
      for (unsigned U = V.First; U < V.First + V.Count; ++U)
        if (!New.count(U)) {
          New[U] = W.make(false);
          UnitOf.push_back(U);
        }
      for (unsigned U = V.First; U < V.First + V.Count; ++U)
        W.unite(New[V.First], New[U]);
      if (V.Half)
        W.fix(New[V.First]);
      Ops.emplace_back(MI, I, New[V.First], V);
    }
    for (auto &[U, NW] : New) {
      auto It = UseWeb.find(U);
      if (It != UseWeb.end())
        W.unite(It->second, NW);
      Cur[U] = NW;
    }
  }
  // The last value of a VGPR the next iteration or the exit reads stays.
  for (unsigned U = 0; U < NumVGPRs; ++U)
    if (LiveOut[U])
      W.fix(Cur[U]);

  std::vector<bool> Moved(NumVGPRs);
  bool Any = false;
  for (unsigned Web = 0; Web < W.Parent.size(); ++Web)
    if (!W.fixed(Web))
      Moved[UnitOf[Web]] = Any = true;
  if (!Any)
    return;
  // One even shift for every renamed VGPR keeps pairs aligned and the
  // mapping one-to-one; the targets are VGPRs the function never names.
  std::vector<int> NewOf(NumVGPRs, -1);
  for (unsigned D = 2; D < NumVGPRs; D += 2) {
    bool OK = true;
    for (unsigned U = 0; U < NumVGPRs && OK; ++U)
      if (Moved[U])
        OK = U + D < VGPRLimit && !UsedVGPR[U + D];
    if (!OK)
      continue;
    for (unsigned U = 0; U < NumVGPRs; ++U)
      if (Moved[U])
        NewOf[U] = U + D;
    break;
  }
  // When no one shift fits (a kernel at its occupancy's register limit with
  // free VGPRs only in holes), the VGPRs named together in an operand move
  // together, each such group into the lowest free run (even-aligned when
  // it holds a pair), still one-to-one; a group with no room keeps its
  // registers (every operand of a web names the same group, so a web is
  // renamed whole or not at all), and the clash check after says whether
  // what was renamed is enough.
  if (llvm::all_of(NewOf, [](int N) { return N < 0; })) {
    std::vector<unsigned> Group(NumVGPRs);
    std::iota(Group.begin(), Group.end(), 0);
    std::function<unsigned(unsigned)> Find = [&](unsigned U) {
      return Group[U] == U ? U : Group[U] = Find(Group[U]);
    };
    for (auto &[MI, I, Web, V] : Ops)
      if (!W.fixed(Web))
        for (unsigned U = V.First + 1; U < V.First + V.Count; ++U)
          Group[Find(U)] = Find(V.First);
    std::vector<bool> Taken = UsedVGPR;
    // Groups defined earliest in the copy get the room first: when there
    // is not enough for all, the head's values (its loads and their
    // addresses, which a guarded unroll issues above the earlier copies'
    // tails) must differ from those tails; a tail's own temporaries may
    // stay shared, as the tails still run one after another.
    std::vector<size_t> FirstDef(NumVGPRs, Copy.size());
    for (size_t J = 0; J < Copy.size(); ++J)
      for (const MachineOperand &MO : Copy[J]->operands())
        if (MO.isReg() && MO.isDef() && MO.getReg())
          if (auto V = vgprsOf(MRI, MO.getReg().asMCReg()))
            for (unsigned U = V->First; U < V->First + V->Count; ++U)
              FirstDef[U] = std::min(FirstDef[U], J);
    std::vector<unsigned> Leaders;
    for (unsigned Lo = 0; Lo < NumVGPRs; ++Lo)
      if (Moved[Lo] && Find(Lo) == Lo)
        Leaders.push_back(Lo);
    auto GroupDef = [&](unsigned Lo) {
      size_t D = Copy.size();
      for (unsigned U = Lo; U < NumVGPRs; ++U)
        if (Moved[U] && Find(U) == Lo)
          D = std::min(D, FirstDef[U]);
      return D;
    };
    llvm::sort(Leaders, [&](unsigned A, unsigned B) {
      size_t DA = GroupDef(A), DB = GroupDef(B);
      return DA != DB ? DA < DB : A < B;
    });
    for (unsigned Lo : Leaders) {
      if (NewOf[Lo] >= 0)
        continue;
      unsigned Hi = Lo;
      for (unsigned U = Lo; U < NumVGPRs; ++U)
        if (Moved[U] && Find(U) == Lo)
          Hi = U;
      for (unsigned U = Lo; U <= Hi; ++U)
        if (!Moved[U] || Find(U) != Lo)
          return; // not one run
      unsigned Span = Hi - Lo + 1, Step = Span > 1 ? 2 : 1;
      unsigned B = 0;
      for (; B + Span <= VGPRLimit; B += Step)
        if (llvm::none_of(llvm::seq(B, B + Span),
                          [&](unsigned X) { return bool(Taken[X]); }))
          break;
      if (B + Span > VGPRLimit)
        continue; // this group keeps its registers

      for (unsigned U = Lo; U <= Hi; ++U) {
        NewOf[U] = B + (U - Lo);
        Taken[B + (U - Lo)] = true;
      }
    }
  }
  std::vector<std::pair<MachineOperand *, MCRegister>> Edits;
  for (auto &[MI, I, Web, V] : Ops) {
    if (W.fixed(Web))
      continue;
    int N0 = NewOf[V.First];
    if (N0 < 0)
      continue; // a group left in place (no room): still the same value
    for (unsigned U = 1; U < V.Count; ++U)
      if (NewOf[V.First + U] != N0 + int(U))
        return;
    std::string Name =
        V.Count == 1 ? "v" + utostr(N0)
                     : "v[" + utostr(N0) + ":" + utostr(N0 + V.Count - 1) + "]";
    MCRegister R = LM.target().reg(Name);
    if (!R)
      return;
    Edits.push_back({&MI->getOperand(I), R});
  }
  // A shadow use takes the new name of the definition it stands beside.
  std::vector<std::pair<MachineOperand *, MCRegister>> ShadowEdits;
  for (auto &[MO, R] : Edits) {
    if (!MO->isDef())
      continue;
    MachineInstr &MI = *MO->getParent();
    for (MachineOperand &U : MI.operands())
      if (U.isReg() && U.getReg() && Shadow(MI, U) &&
          TRI.regsOverlap(U.getReg(), MO->getReg()))
        if (auto V = vgprsOf(MRI, U.getReg().asMCReg()))
          if (NewOf[V->First] >= 0)
            if (MCRegister N = LM.target().reg("v" + utostr(NewOf[V->First])))
              ShadowEdits.push_back({&U, N});
  }
  for (auto &[MO, R] : Edits) {
    if (Log)
      Log->push_back({MO, MO->getReg()});
    MO->setReg(R);
  }
  // What the masked-off lanes of the new register hold is nobody's value.
  for (auto &[MO, R] : ShadowEdits) {
    MO->setReg(R);
    MO->setIsUndef();
  }
  for (unsigned U = 0; U < NumVGPRs; ++U)
    if (Moved[U] && NewOf[U] >= 0)
      UsedVGPR[NewOf[U]] = true;
}

bool Unroller::unrollGuarded(const CompareLoop &CL, unsigned Factor,
                             Register Limit, Done &D) {
  auto GB = buildGuardedBlocks(CL, Factor, Limit, LM.target(), TII);
  if (!GB)
    return false;
  MachineBasicBlock &L = *CL.L;
  D.Lp.L = &L;
  D.Lp.Exit = CL.Exit;
  D.Lp.Term = CL.Term;
  D.Blocks = {GB->G, GB->M, GB->M2};
  std::vector<MachineInstr *> Body = codeInstrs(L);
  llvm::erase_if(Body, [&](MachineInstr *MI) {
    return MI == CL.Term || MI == CL.Back;
  });
  std::vector<std::vector<MachineInstr *>> InM;
  auto At = GB->M->getFirstTerminator();
  for (unsigned I = 0; I < Factor; ++I) {
    InM.emplace_back();
    for (MachineInstr *MI : Body) {
      MachineInstr *N = MF.CloneMachineInstr(MI);
      N->setPreInstrSymbol(MF, nullptr);
      GB->M->insert(At, N);
      InM.back().push_back(N);
    }
  }
  D.Copies.push_back(std::move(InM));
  // Every way into L but the loop's own edges and the guard's now enters
  // at G (the block laid out before L falls into G).
  std::vector<MachineBasicBlock *> Preds(L.pred_begin(), L.pred_end());
  for (MachineBasicBlock *Pred : Preds) {
    if (Pred == &L || Pred == CL.Latch || llvm::is_contained(D.Blocks, Pred))
      continue;
    Pred->ReplaceUsesOfBlockWith(&L, GB->G);
    D.Retargeted.push_back(Pred);
  }
  return true;
}

bool Unroller::storesReach(const MachineBasicBlock &L) const {
  SmallPtrSet<const MachineBasicBlock *, 16> Seen{&L};
  SmallVector<const MachineBasicBlock *, 16> Work{&L};
  while (!Work.empty()) {
    const MachineBasicBlock *B = Work.pop_back_val();
    for (const MachineInstr &MI : *B) {
      const OpcodeFacts &OF = F.get(MI.getOpcode());
      if (OF.is(ic::VMEM | ic::FLAT) && !OF.is(ic::Scratch) &&
          (OF.MayStore || OF.is(ic::Atomic)))
        return true;
    }
    for (const MachineBasicBlock *P : B->predecessors())
      if (Seen.insert(P).second)
        Work.push_back(P);
  }
  return false;
}

bool Unroller::singleTrip(const CompareLoop &CL, Done &D) {
  MachineBasicBlock &L = *CL.L;
  if (CL.Latch)
    return false;
  if (CL.Back) {
    unsigned BrOpc = LM.target().encodedOpcode("S_BRANCH");
    if (BrOpc == ~0u)
      return false;
    D.NewTerm = BuildMI(L, CL.Term->getIterator(), DebugLoc(), TII.get(BrOpc))
                    .addMBB(CL.Exit);
    D.OldBack = CL.Back;
    CL.Back->removeFromParent();
  } else if (L.getNextNode() != CL.Exit) {
    return false;
  }
  D.OldTerm = CL.Term;
  CL.Term->removeFromParent();
  L.removeSuccessor(&L);
  return true;
}

void Unroller::undo(Done &D) {
  for (auto R = D.Split.rbegin(); R != D.Split.rend(); ++R)
    R->first->setReg(R->second);
  for (MachineOperand *MO : D.SplitUndef)
    MO->setIsUndef(false);
  D.Split.clear();
  D.SplitUndef.clear();
  if (D.OldTerm) {
    MachineBasicBlock &L = *D.Lp.L;
    auto At = D.NewTerm ? D.NewTerm->getIterator() : L.end();
    L.insert(At, D.OldTerm);
    if (D.OldBack)
      L.insert(At, D.OldBack);
    if (D.NewTerm)
      D.NewTerm->eraseFromParent();
    L.addSuccessor(&L);
    D.OldTerm = D.OldBack = D.NewTerm = nullptr;
  }
  for (MachineBasicBlock *Pred : D.Retargeted)
    Pred->ReplaceUsesOfBlockWith(D.Blocks.front(), D.Lp.L);
  for (MachineInstr *MI : D.Copy)
    MI->eraseFromParent();
  for (MachineBasicBlock *B : D.Blocks) {
    while (!B->succ_empty())
      B->removeSuccessor(B->succ_begin());
    B->eraseFromParent();
  }
}

bool Unroller::run(bool Exec) {
  if (!LF.Range.IsKernel || MF.empty())
    return false;
  const TargetInfo &T = LM.original().target();
  if (!(T.isGFX90A() || T.isGFX94X() || T.isGFX950()))
    return false;
  // Free VGPRs are free only when nothing this kernel calls uses them;
  // AGPRs would sit above a raised VGPR count (accum_offset).
  bool AGPRs = false;
  unsigned MaxV = 0;
  for (MachineBasicBlock &MBB : MF)
    for (MachineInstr &MI : MBB) {
      if (MI.isCall() || isGetPC(F.get(MI.getOpcode()).Name) ||
          nameOf(MI).starts_with("S_SWAPPC") ||
          nameOf(MI).starts_with("S_SETPC"))
        return false;
      for (const MachineOperand &MO : MI.operands()) {
        if (!MO.isReg() || !MO.getReg())
          continue;
        if (StringRef(MRI.getName(MO.getReg())).starts_with("AGPR"))
          AGPRs = true;
        if (auto V = vgprsOf(MRI, MO.getReg().asMCReg()))
          for (unsigned U = V->First; U < V->First + V->Count; ++U) {
            UsedVGPR[U] = true;
            MaxV = std::max(MaxV, U + 1);
          }
      }
    }
  VGPRLimit = 0;
  if (!AGPRs && !LoopUnrollNoRename) {
    unsigned Waves = wavesPerSIMD(MaxV);
    VGPRLimit = MaxV;
    while (VGPRLimit < 256 && wavesPerSIMD(VGPRLimit + 1) == Waves)
      ++VGPRLimit;
    // One occupancy step down, never below four waves per SIMD.
    LowerLimit = 0;
    if (Waves > 4) {
      LowerLimit = VGPRLimit;
      while (LowerLimit < 256 && wavesPerSIMD(LowerLimit + 1) >= Waves - 1)
        ++LowerLimit;
    }
    // occupancy-drop=K (K >= 2; loop-unroll also 1): the copies may cost
    // K waves per SIMD, down to one. Whether that pays depends on how many
    // waves the launch has to hide latency with, which only the gate's
    // timing of the spec's launch knows: a knob for --evolve's search, not
    // a default.
    unsigned Drop = P.param("occupancy-drop", Exec ? 1 : 0);
    if (Drop >= (Exec ? 2u : 1u) && Waves > 1) {
      unsigned Floor = Waves > Drop ? Waves - Drop : 1;
      unsigned Lim = VGPRLimit;
      while (Lim < 256 && wavesPerSIMD(Lim + 1) >= Floor)
        ++Lim;
      if (Exec)
        DeepLimit = Lim;
      else
        VGPRLimit = LowerLimit = Lim;
    }
  }

  if (Exec)
    return VGPRLimit && runExec();

  SmallPtrSet<MachineBasicBlock *, 8> Pinned = fixedBlocks(MF, LF);
  std::vector<Loop> Loops;
  for (MachineBasicBlock &MBB : MF)
    if (!Pinned.count(&MBB))
      if (auto Lp = match(MBB))
        if (bodyCopyable(*Lp) && !Lp->Exit->livein_empty())
          Loops.push_back(*Lp);
  // Loops that leave on a compare with a bound (the usual compiled form)
  // take a guarded unroll; the shifted bound needs a free SGPR when it is
  // a register.
  std::vector<CompareLoop> CmpLoops;
  std::vector<bool> UsedS(100);
  bool SGPRsKnown = scanSGPRs(MF, MRI, UsedS);
  MCRegister SCC = LM.target().reg("scc");
  for (MachineBasicBlock &MBB : MF)
    if (!Pinned.count(&MBB) && !match(MBB))
      if (auto CL = matchCompareLoop(MBB, TII, TRI, MRI, SCC)) {
        Loop Lp;
        Lp.L = CL->L;
        Lp.Exit = CL->Exit;
        Lp.Term = CL->Term;
        Lp.Back = CL->Back;
        if (bodyCopyable(Lp) && !CL->Exit->livein_empty() &&
            (CL->BoundImm || SGPRsKnown))
          CmpLoops.push_back(*CL);
      }
  unsigned Factor = P.param("factor", LoopUnrollFactor);
  if ((Loops.empty() && CmpLoops.empty()) || !isPowerOf2_32(Factor) ||
      Factor < 2 || Factor > 8)
    return false;

  AnalysisOptions AO;
  AO.Liveness = false;
  FunctionAnalysis A0 = analyzeFunction(LM, LF, F, AO);
  if (A0.FromBytes)
    return false;
  std::vector<Done> All;
  for (const Loop &Lp : Loops) {
    if (!P.shouldRewrite())
      continue;
    All.emplace_back();
    unroll(Lp, Factor, All.back());
    if (VGPRLimit)
      // Every copy its own registers: a value an early instruction of one
      // copy must keep in its register (a pair it shares with a
      // loop-carried one) then waits for no late reader of the copy
      // before. Only a block's last copy reaches the exit.
      // Renamed values die in their block, so blocks may share targets.
      for (auto &InBlock : All.back().Copies) {
        std::vector<bool> Saved = UsedVGPR;
        for (size_t I = 0; I < InBlock.size(); ++I)
          rename(Lp, InBlock[I], /*Last=*/I + 1 == InBlock.size());
        UsedVGPR = std::move(Saved);
      }
  }
  for (const CompareLoop &CL : CmpLoops) {
    if (!P.shouldRewrite())
      continue;
    Register Limit;
    if (!CL.BoundImm) {
      auto Free = llvm::find(UsedS, false);
      if (Free == UsedS.end())
        continue;
      *Free = true;
      Limit = LM.target().reg("s" + utostr(Free - UsedS.begin()));
      if (!Limit)
        continue;
    }
    // A later copy's loads go out before an earlier copy's s_barrier:
    // sound only if no wave of the workgroup can have stored to global
    // memory before that barrier (nothing in the loop or on any way into
    // it writes memory another wave could read).
    if (hasBarrier(*CL.L) && storesReach(*CL.L))
      continue;
    // A guarded load's default sharing a register with a loop-carried
    // address half would tie every copy to it: it gets its own first.
    std::vector<bool> UsedBefore = UsedVGPR;
    RegLog Split;
    std::vector<MachineOperand *> SplitUndef;
    if (VGPRLimit) {
      std::vector<MachineInstr *> Body = codeInstrs(*CL.L);
      llvm::erase_if(Body, [&](MachineInstr *MI) {
        return MI == CL.Term || MI == CL.Back;
      });
      const MachineBasicBlock *LiveAfter[] = {CL.Exit, CL.L};
      splitGuardedDefaults(Body, LiveAfter, F, TII, MRI, LM.target(),
                           UsedVGPR, VGPRLimit, Split, SplitUndef);
    }
    // A factor whose copies cannot all issue their loads first (registers
    // run out) is tried again with half as many copies, down to two.
    bool Unrolled = false;
    for (unsigned Copies = Factor; Copies >= 2 && !Unrolled; Copies /= 2) {
      All.emplace_back();
      if (!unrollGuarded(CL, Copies, Limit, All.back())) {
        All.pop_back();
        break;
      }
      if (VGPRLimit) {
        std::vector<bool> Saved = UsedVGPR;
        auto &InM = All.back().Copies.front();
        RenameShadows = true;
        for (size_t I = 0; I < InM.size(); ++I)
          rename(All.back().Lp, InM[I], /*Last=*/I + 1 == InM.size(), nullptr,
                 /*AlsoLive=*/CL.L);
        RenameShadows = false;
        UsedVGPR = std::move(Saved);
      }
      // Copies that cannot all issue their loads before the first wait
      // only add the guard and code size (and hide the loop from passes
      // that overlap its loads otherwise): put the loop back. A temporary
      // moved out of a loaded VGPR may cost one wave per SIMD (never below
      // four) when the copies took every VGPR the occupancy allows: the
      // gate weighs that against the loads in flight.
      const MachineBasicBlock *LiveAfter[] = {CL.Exit, CL.L};
      if (!issueHeadsFirst(*All.back().Blocks[1], All.back().Copies.front(),
                           LiveAfter, UsedVGPR,
                           LowerLimit ? LowerLimit : VGPRLimit, F, LM.target(),
                           TII, TRI, MRI, SCC)) {
        undo(All.back());
        All.pop_back();
        continue;
      }
      if (Copies == 2)
        singleTrip(CL, All.back());
      // A later undo of the whole pass puts L's registers back too.
      All.back().Split = std::move(Split);
      All.back().SplitUndef = std::move(SplitUndef);
      Unrolled = true;
    }
    if (!Unrolled) {
      for (auto R = Split.rbegin(); R != Split.rend(); ++R)
        R->first->setReg(R->second);
      for (MachineOperand *MO : SplitUndef)
        MO->setIsUndef(false);
      UsedVGPR = std::move(UsedBefore);
    }
  }
  if (All.empty())
    return false;
  FunctionAnalysis A1 = analyzeFunction(LM, LF, F, AO);
  // A guarded block's heads-first order can take away the independent
  // instructions that stood between a VALU write and the MFMA reading it:
  // s_nops in its own blocks give those wait states back.
  SmallPtrSet<const MachineBasicBlock *, 8> Added;
  for (const Done &D : All)
    if (!D.Lp.Counter)
      Added.insert(D.Blocks.begin(), D.Blocks.end());
  for (unsigned Round = 0; Round < 3 && !Added.empty() && !A1.Hazards.empty();
       ++Round) {
    // The analysis numbers instructions as the blocks lay them out.
    std::vector<MachineInstr *> Seq;
    for (MachineBasicBlock &MBB : MF)
      append_range(Seq, codeInstrs(MBB));
    if (Seq.size() != A1.Seq.Instrs.size())
      break;
    std::map<MachineInstr *, int> Need;
    for (const HazardHit &H : A1.Hazards)
      if (H.Consumer < Seq.size() && Added.count(Seq[H.Consumer]->getParent()))
        Need[Seq[H.Consumer]] = std::max(Need[Seq[H.Consumer]], H.Missing);
    if (Need.empty())
      break;
    unsigned NopOpc = LM.target().encodedOpcode("S_NOP");
    for (auto &[MI, Missing] : Need)
      for (int Left = Missing; Left > 0; Left -= 16)
        BuildMI(*MI->getParent(), MI->getIterator(), DebugLoc(),
                TII.get(NopOpc))
            .addImm(std::min(Left, 16) - 1);
    A1 = analyzeFunction(LM, LF, F, AO);
  }
  if (A1.violations() > A0.violations() ||
      A1.Advisories.size() > A0.Advisories.size()) {
    for (auto It = All.rbegin(); It != All.rend(); ++It)
      undo(*It);
    return false;
  }
  for (Done &D : All)
    for (MachineInstr *MI : {D.OldTerm, D.OldBack})
      if (MI)
        MF.deleteMachineInstr(MI);
  return true;
}


std::optional<Unroller::ExecLoop>
Unroller::matchExec(MachineBasicBlock &MBB) const {
  ExecLoop EL;
  EL.L = &MBB;
  std::vector<MachineInstr *> All;
  for (MachineInstr &MI : MBB)
    if (!MI.isMetaInstruction())
      All.push_back(&MI);
  if (All.size() < 4)
    return std::nullopt;
  EL.Term = All.back();
  EL.X = All[All.size() - 2];
  if (!isOp(nameOf(*EL.Term), "S_CBRANCH_EXECNZ") ||
      !EL.Term->getOperand(0).isMBB() ||
      EL.Term->getOperand(0).getMBB() != &MBB)
    return std::nullopt;
  EL.Exit = MBB.getNextNode();
  if (!EL.Exit || MBB.succ_size() != 2 || !MBB.isSuccessor(&MBB) ||
      !MBB.isSuccessor(EL.Exit) || EL.Exit->livein_empty())
    return std::nullopt;
  // X: s_andn2_b64 exec, exec, sM.
  MachineInstr &X = *EL.X;
  if (!isOp(nameOf(X), "S_ANDN2_B64") || X.getNumExplicitOperands() < 3 ||
      !X.getOperand(0).isReg() || !isExecReg(X.getOperand(0).getReg()) ||
      !X.getOperand(1).isReg() || !isExecReg(X.getOperand(1).getReg()) ||
      !X.getOperand(2).isReg() ||
      !StringRef(MRI.getName(X.getOperand(2).getReg())).starts_with("SGPR"))
    return std::nullopt;
  Register M = X.getOperand(2).getReg();
  std::vector<MachineInstr *> Body(All.begin(), All.end() - 2);
  sinkHead(Body, EL);
  hoistTail(Body, EL);
  SmallVector<Register, 8> TailMasks;
  bool InTail = false;
  unsigned HeadLoads = 0;
  // The save registers of the open s_and_saveexec_b64s (ifs nest).
  SmallVector<Register, 2> Open;
  MCRegister SCC = LM.target().reg("scc");
  for (MachineInstr *BI : Body) {
    MachineInstr &MI = *BI;
    const OpcodeFacts &OF = F.get(MI.getOpcode());
    StringRef N = nameOf(MI);
    if (OF.is(ic::Waitcnt))
      InTail = true;
    if (MI.isCall() || MI.isBranch() || MI.isReturn() || MI.isTerminator() ||
        OF.Flow != FlowKind::None || isGetPC(OF.Name) ||
        MI.getPostInstrSymbol())
      return std::nullopt;
    for (const MachineOperand &MO : MI.operands())
      if (!MO.isReg() && !MO.isImm())
        return std::nullopt;
    // Under EXEC = 0 the second copy must do nothing: no barrier, no
    // scalar memory, nothing that ignores EXEC.
    if (OF.is(ic::Barrier | ic::SMEM | ic::MFMA | ic::Message | ic::Sleep |
              ic::SetPrio | ic::SetReg | ic::GDS | ic::LDSDMA | ic::MovRel |
              ic::EndPgm | ic::CacheCtl | ic::Export) ||
        N.contains("LANE") || N.contains("CMPX") || N.contains("GPR_IDX") ||
        (OF.is(ic::FLAT) && !OF.is(ic::Global | ic::Scratch)))
      return std::nullopt;
    // EXEC may change only in the head, narrowed by s_and_saveexec_b64
    // and put back by s_or_b64 exec, exec, sS before the wait: each copy
    // then leaves the head under the EXEC it entered with.
    bool WritesExec = false;
    for (const MachineOperand &MO : MI.operands())
      if (MO.isReg() && MO.isDef() && MO.getReg() && isExecReg(MO.getReg()))
        WritesExec = true;
    if (WritesExec) {
      if (InTail)
        return std::nullopt;
      if (isSave(MI)) {
        Open.push_back(MI.getOperand(0).getReg());
      } else if (!Open.empty() && isRestore(MI, Open.back())) {
        Open.pop_back();
      } else {
        return std::nullopt;
      }
    } else if (llvm::any_of(Open, [&](Register R) {
                 return MI.modifiesRegister(R, &TRI);
               })) {
      return std::nullopt;
    }
    if (InTail && !Open.empty())
      return std::nullopt;
    if (MI.modifiesRegister(M, &TRI) && InTail)
      return std::nullopt;
    if (!InTail) {
      // The head: no LDS or stores (they would move above the tail's).
      if (OF.is(ic::DS) || OF.MayStore || OF.is(ic::Atomic))
        return std::nullopt;
      if (OF.is(ic::VMEM) && OF.MayLoad)
        ++HeadLoads;
      EL.H.push_back(&MI);
    } else {
      // The tail: VALU, LDS, waits and s_nops only; no VMEM (its waits are
      // left as they are), no SCC read (X now runs before it), no scalar
      // writes but VALU lane masks (VCC, v_cmp_*_e64 sN): run again under
      // EXEC = 0 they become 0, so they must be dead at the exit.
      if (OF.is(ic::VMEM) || MI.readsRegister(SCC, &TRI))
        return std::nullopt;
      if (!OF.isVALU() && !OF.is(ic::DS) && !OF.is(ic::Waitcnt) &&
          !OF.is(ic::Nop))
        return std::nullopt;
      for (const MachineOperand &MO : MI.operands())
        if (MO.isReg() && MO.isDef() && MO.getReg() &&
            !vgprsOf(MRI, MO.getReg().asMCReg())) {
          if (!OF.isVALU() || isExecReg(MO.getReg()) || MO.getReg() == SCC ||
              TRI.regsOverlap(MO.getReg(), M))
            return std::nullopt;
          TailMasks.push_back(MO.getReg());
        }
      EL.T.push_back(&MI);
    }
  }
  if (!Open.empty() || !HeadLoads || EL.T.empty() || EL.H.size() + EL.T.size() > (size_t)P.param("max-body", LoopUnrollMaxBody))
    return std::nullopt;
  // The head must not read the SCC it enters with (the copy runs after X).
  for (MachineInstr *MI : EL.H) {
    if (MI->readsRegister(SCC, &TRI))
      return std::nullopt;
    if (MI->modifiesRegister(SCC, &TRI))
      break;
  }
  // Head SGPR writes under EXEC = 0: lane masks become 0; s_or_b64 D, Z, D
  // with Z such a zero leaves D as it was. Anything else the second copy
  // writes must be dead at the exit, where the copy's EXEC = 0 run ends.
  SmallVector<Register, 8> Zero, Changed;
  auto In = [&](ArrayRef<Register> V, Register R) {
    return llvm::any_of(V, [&](Register X) { return TRI.regsOverlap(X, R); });
  };
  for (MachineInstr *MI : EL.H) {
    const OpcodeFacts &OF = F.get(MI->getOpcode());
    bool Unchanged = false;
    if (isOp(nameOf(*MI), "S_OR_B64") && MI->getNumExplicitOperands() >= 3 &&
        MI->getOperand(1).isReg() && MI->getOperand(2).isReg()) {
      Register D = MI->getOperand(0).getReg(), A = MI->getOperand(1).getReg(),
               B = MI->getOperand(2).getReg();
      Unchanged = (B == D && llvm::is_contained(Zero, A)) ||
                  (A == D && llvm::is_contained(Zero, B));
    }
    // Under EXEC = 0, s_and_saveexec_b64 saves a zero EXEC and an AND
    // with EXEC is zero, like a VALU lane mask.
    bool ZeroResult = OF.isVALU() || isSave(*MI);
    if (isOp(nameOf(*MI), "S_AND_B64") && MI->getNumExplicitOperands() >= 3)
      for (unsigned I : {1u, 2u})
        if (MI->getOperand(I).isReg() &&
            (isExecReg(MI->getOperand(I).getReg()) ||
             llvm::is_contained(Zero, MI->getOperand(I).getReg())))
          ZeroResult = true;
    for (const MachineOperand &MO : MI->operands()) {
      if (!MO.isReg() || !MO.isDef() || !MO.getReg() ||
          vgprsOf(MRI, MO.getReg().asMCReg()) || MO.getReg() == SCC ||
          isExecReg(MO.getReg()))
        continue;
      if (Unchanged)
        continue;
      Register D = MO.getReg();
      llvm::erase_if(Zero, [&](Register Z) { return TRI.regsOverlap(Z, D); });
      if (ZeroResult)
        Zero.push_back(D);
      Changed.push_back(D);
    }
  }
  Changed.append(TailMasks.begin(), TailMasks.end());
  for (const auto &LI : EL.Exit->liveins())
    if (In(Changed, LI.PhysReg))
      return std::nullopt;
  // The head of the second copy moves above the first copy's tail.
  for (MachineInstr *H : EL.H)
    for (MachineInstr *T : EL.T)
      for (const MachineOperand &HO : H->operands()) {
        if (!HO.isReg() || !HO.getReg() || vgprsOf(MRI, HO.getReg()))
          continue; // VGPRs: checked after renaming
        if (isExecReg(HO.getReg()))
          continue;
        if ((HO.isDef() && (T->readsRegister(HO.getReg(), &TRI) ||
                            T->modifiesRegister(HO.getReg(), &TRI))) ||
            (!HO.isDef() && T->modifiesRegister(HO.getReg(), &TRI))) {
          if (!headLocalSGPR(EL, HO.getReg(), M))
            return std::nullopt;
          if (!llvm::is_contained(EL.RenameS, HO.getReg()))
            EL.RenameS.push_back(HO.getReg());
        }
      }
  return EL;
}

bool Unroller::headLocalSGPR(const ExecLoop &EL, Register R,
                             Register M) const {
  StringRef N = MRI.getName(R);
  SmallVector<StringRef, 4> Parts;
  N.split(Parts, '_');
  if (!N.starts_with("SGPR") || Parts.size() > 2 ||
      llvm::any_of(Parts, [](StringRef P) { return !P.starts_with("SGPR"); }) ||
      TRI.regsOverlap(R, M))
    return false;
  bool Seen = false;
  for (MachineInstr *MI : EL.H) {
    bool Reads = false, Writes = false;
    for (const MachineOperand &MO : MI->operands()) {
      if (!MO.isReg() || !MO.getReg() || !TRI.regsOverlap(MO.getReg(), R))
        continue;
      if (MO.getReg() != R || MO.isImplicit() || MO.isTied())
        return false;
      (MO.isDef() ? Writes : Reads) = true;
    }
    if (!Seen && Reads)
      return false;
    Seen |= Writes;
  }
  if (!Seen)
    return false;
  for (MachineInstr *MI : EL.T) {
    if (MI->readsRegister(R, &TRI))
      return false;
    if (MI->modifiesRegister(R, &TRI))
      break;
  }
  return true;
}

void Unroller::sinkHead(std::vector<MachineInstr *> &Body,
                        ExecLoop &EL) const {
  size_t WI = firstWait(Body);
  if (WI + 1 >= Body.size())
    return;
  auto Conflict = [&](const MachineInstr *A, const MachineInstr *B) {
    return writesInto(A, B) || writesInto(B, A);
  };
  // Latest first, so that a chain of such instructions sinks together.
  // Only VALU work that writes nothing but VGPRs moves (it does not change
  // what the loads, the lane masks or the exit see), only when no later
  // head instruction depends on it or it on them, and only when it touches
  // a register the tail writes: left in the head, it would keep the second
  // head from moving above the first tail (softmax's and reduce_max's
  // v_max_f32 v1, v1, v1 canonicalising the running maximum).
  std::vector<bool> Sink(WI);
  // Work under a narrowed EXEC stays under it.
  std::vector<bool> Guarded(Body.size(), true);
  if (auto G = inSaveRegion(Body))
    Guarded = std::move(*G);
  bool Any = false;
  for (size_t I = WI; I-- > 0;) {
    MachineInstr *MI = Body[I];
    const OpcodeFacts &OF = F.get(MI->getOpcode());
    if (Guarded[I] || !OF.isVALU() || OF.MayLoad || OF.MayStore ||
        OF.is(ic::VMEM | ic::DS | ic::MFMA) || nameOf(*MI).contains("LANE"))
      continue;
    bool VGPROnly = true;
    for (const MachineOperand &MO : MI->operands())
      if (MO.isReg() && MO.isDef() && MO.getReg() &&
          !vgprsOf(MRI, MO.getReg().asMCReg()))
        VGPROnly = false;
    if (!VGPROnly)
      continue;
    bool Needed = false;
    for (size_t J = WI + 1; J < Body.size() && !Needed; ++J)
      Needed = writesInto(Body[J], MI);
    if (!Needed)
      continue;
    bool Free = true;
    for (size_t J = I + 1; J < WI && Free; ++J)
      if (!Sink[J] && Conflict(MI, Body[J]))
        Free = false;
    Sink[I] = Free;
    Any |= Free;
  }
  if (!Any)
    return;
  std::vector<MachineInstr *> New, Moved;
  for (size_t I = 0; I < WI; ++I)
    (Sink[I] ? Moved : New).push_back(Body[I]);
  for (size_t I = 0; I < WI; ++I)
    if (Sink[I])
      EL.Sunk.push_back({Body[I], Body[I + 1]});
  EL.SinkBefore = Body[WI + 1];
  New.push_back(Body[WI]);
  New.insert(New.end(), Moved.begin(), Moved.end());
  New.insert(New.end(), Body.begin() + WI + 1, Body.end());
  Body = std::move(New);
}

std::optional<std::vector<bool>>
Unroller::inSaveRegion(ArrayRef<MachineInstr *> Body, bool ToWait) const {
  std::vector<bool> In(Body.size());
  MCRegister Exec = LM.target().reg("exec");
  SmallVector<Register, 2> Open;
  for (size_t I = 0; I < Body.size(); ++I) {
    if (ToWait && F.get(Body[I]->getOpcode()).is(ic::Waitcnt))
      break;
    if (!Open.empty() && isRestore(*Body[I], Open.back())) {
      Open.pop_back();
      In[I] = !Open.empty();
      continue;
    }
    In[I] = !Open.empty();
    if (isSave(*Body[I]))
      Open.push_back(Body[I]->getOperand(0).getReg());
    else if (Body[I]->modifiesRegister(Exec, &TRI) ||
             llvm::any_of(Open, [&](Register R) {
               return Body[I]->modifiesRegister(R, &TRI);
             }))
      return std::nullopt;
  }
  if (!Open.empty() && !ToWait)
    return std::nullopt;
  return In;
}

void Unroller::hoistTail(std::vector<MachineInstr *> &Body,
                         ExecLoop &EL) const {
  size_t WI = firstWait(Body);
  if (WI + 1 >= Body.size())
    return;
  // What the head's loads write: still in flight at the wait.
  SmallVector<Register, 8> Pending;
  for (size_t I = 0; I < WI; ++I) {
    const OpcodeFacts &OF = F.get(Body[I]->getOpcode());
    if (OF.MayLoad && OF.is(ic::VMEM | ic::DS | ic::SMEM))
      for (const MachineOperand &MO : Body[I]->operands())
        if (MO.isReg() && MO.isDef() && MO.getReg())
          Pending.push_back(MO.getReg());
  }
  MCRegister SCC = LM.target().reg("scc");
  auto HeadReads = [&](Register R) {
    for (size_t I = 0; I < WI; ++I)
      if (Body[I]->readsRegister(R, &TRI))
        return true;
    return false;
  };
  // Which tail instructions may move and which are wanted above the
  // wait. With \p MaskDefs, VALU work may also write a
  // lane mask (the carry of a 64-bit address step: v_add_co_u32 then
  // v_addc_co_u32 through VCC, gfx90a's form of gfx942's v_lshl_add_u64).
  auto Select = [&](bool MaskDefs) {
    std::vector<bool> Eligible(Body.size()), Wanted(Body.size());
    // Past the tail's later waits too: the lane-mask bookkeeping often
    // comes after its last one (batched_matmul's tile staging, once
    // hoist-guarded-load has put both loads in the head). Work that reads
    // a tail load's result stays: the load itself never moves (below).
    for (size_t J = WI + 1; J < Body.size(); ++J) {
      MachineInstr *MI = Body[J];
      const OpcodeFacts &OF = F.get(MI->getOpcode());
      if (OF.is(ic::Waitcnt))
        continue;
      if (llvm::any_of(EL.Sunk, [&](auto &S) { return S.first == MI; }))
        continue; // sinkHead put it there
      if (OF.MayLoad || OF.MayStore ||
          OF.is(ic::VMEM | ic::DS | ic::SMEM | ic::MFMA | ic::Barrier) ||
          OF.Flow != FlowKind::None || nameOf(*MI).contains("LANE") ||
          MI->getPostInstrSymbol())
        continue;
      // SALU (the lane-mask bookkeeping a tail may not hold), or VALU that
      // updates a register the head reads (the next head would read it
      // before this tail wrote it) and writes nothing but VGPRs (and, with
      // MaskDefs, lane masks), or VALU such an update reads.
      // Scalar ALU work only: s_nop keeps the wait states of the tail it
      // is in; mode, message, timer and trap instructions stay where they
      // are.
      if (!OF.isVALU()) {
        if (OF.is(ic::Nop | ic::Sleep | ic::SetPrio | ic::SetReg |
                  ic::Message | ic::CacheCtl | ic::EndPgm | ic::MovRel |
                  ic::GDS | ic::Export | ic::LDSDMA) ||
            !nameOf(*MI).starts_with("S_"))
          continue;
        if (readsMachineState(nameOf(*MI)))
          continue;
      }
      bool Want = !OF.isVALU(), OK = true;
      for (const MachineOperand &MO : MI->operands()) {
        if (!MO.isReg() || !MO.getReg())
          continue;
        if (MO.isDef() && isExecReg(MO.getReg()))
          OK = false;
        if (llvm::any_of(Pending, [&](Register P) {
              return TRI.regsOverlap(P, MO.getReg());
            }))
          OK = false;
        if (OF.isVALU() && MO.isDef()) {
          if (!vgprsOf(MRI, MO.getReg().asMCReg()))
            OK = OK && MaskDefs && MO.getReg() != SCC;
          else if (HeadReads(MO.getReg()))
            Want = true;
        }
      }
      Eligible[J] = OK;
      Wanted[J] = OK && Want;
    }
    // What a wanted instruction reads from the tail before it comes along
    // (the high half of an address step set up by a v_mov_b32): the latest
    // wanted instruction first, so that chains are followed back.
    for (size_t J = Body.size(); J-- > WI + 1;)
      if (Wanted[J])
        for (size_t K = WI + 1; K < J; ++K)
          if (Eligible[K] && writesInto(Body[K], Body[J]))
            Wanted[K] = true;
    std::vector<bool> Hoist(Body.size());
    for (size_t J = WI + 1; J < Body.size(); ++J) {
      if (!Wanted[J])
        continue;
      bool Free = true;
      for (size_t K = WI + 1; K < J && Free; ++K)
        if (!Hoist[K] &&
            (writesInto(Body[J], Body[K]) || writesInto(Body[K], Body[J])))
          Free = false;
      Hoist[J] = Free;
    }
    return Hoist;
  };
  std::vector<bool> Hoist = Select(/*MaskDefs=*/true);
  // A lane mask written above the wait must be one the rest of the tail
  // does not touch: the next head, moved above this tail, writes it again,
  // and matchExec would give up the loop. Without mask writers the loop
  // keeps what it could do before.
  for (size_t J = WI + 1; J < Body.size(); ++J) {
    if (Hoist[J])
      continue;
    bool Touches = false;
    for (size_t K = WI + 1; K < Body.size() && !Touches; ++K)
      if (Hoist[K])
        for (const MachineOperand &MO : Body[K]->operands())
          if (MO.isReg() && MO.isDef() && MO.getReg() &&
              !vgprsOf(MRI, MO.getReg().asMCReg()) &&
              F.get(Body[K]->getOpcode()).isVALU() &&
              (Body[J]->readsRegister(MO.getReg(), &TRI) ||
               Body[J]->modifiesRegister(MO.getReg(), &TRI)))
            Touches = true;
    if (Touches) {
      Hoist = Select(/*MaskDefs=*/false);
      break;
    }
  }
  bool Any = llvm::is_contained(Hoist, true);
  if (!Any)
    return;
  std::vector<MachineInstr *> New(Body.begin(), Body.begin() + WI);
  for (size_t J = WI + 1; J < Body.size(); ++J)
    if (Hoist[J]) {
      New.push_back(Body[J]);
      EL.Hoisted.push_back(
          {Body[J], J + 1 < Body.size() ? Body[J + 1] : EL.X});
    }
  EL.HoistBefore = Body[WI];
  for (size_t J = WI; J < Body.size(); ++J)
    if (!Hoist[J])
      New.push_back(Body[J]);
  Body = std::move(New);
}

bool Unroller::pipelineExec(
    ExecLoop &EL, std::vector<MachineInstr *> &Added, RegLog &Renamed,
    std::vector<std::pair<MachineInstr *, int64_t>> &Waits,
    ArrayRef<unsigned> Saves, ArrayRef<unsigned> Spare) {
  MachineBasicBlock &L = *EL.L;
  const TargetContext &TC = LM.target();
  unsigned MovOpc = TC.encodedOpcode("S_MOV_B64");
  MCRegister Exec = TC.reg("exec");
  unsigned N = Saves.size();
  std::vector<MCRegister> S;
  for (unsigned P : Saves)
    S.push_back(TC.reg("s[" + utostr(P) + ":" + utostr(P + 1) + "]"));
  if (MovOpc == ~0u || N < 2 || llvm::is_contained(S, MCRegister()))
    return false;
  for (auto &[MI, Next] : EL.Sunk) {
    MI->removeFromParent();
    L.insert(EL.SinkBefore->getIterator(), MI);
  }
  // After the sinking: SinkBefore may itself move up.
  for (auto &[MI, Next] : EL.Hoisted) {
    MI->removeFromParent();
    L.insert(EL.HoistBefore->getIterator(), MI);
  }
  auto Clone = [&](MachineInstr *MI, MachineBasicBlock::iterator At) {
    MachineInstr *C = MF.CloneMachineInstr(MI);
    C->setPreInstrSymbol(MF, nullptr);
    L.insert(At, C);
    Added.push_back(C);
    return C;
  };
  auto Mov = [&](MachineBasicBlock::iterator At, MCRegister D, MCRegister Src) {
    Added.push_back(
        BuildMI(L, At, DebugLoc(), TII.get(MovOpc), D).addReg(Src));
  };
  // N copies (N = 2 shown; each further one adds X ; sK = exec ; HK before
  // exec = s1, and exec = sK ; TK before the last X):
  //   H1 ; s1 = exec ; X ; s2 = exec ; H2 ; exec = s1 ; T1 ;
  //   exec = s2 ; T2 ; X ; s_cbranch_execnz L
  MachineBasicBlock::iterator T1 = EL.T.front()->getIterator();
  Mov(T1, S[0], Exec);
  EL.X->removeFromParent();
  L.insert(T1, EL.X);
  // Copies[K]: copy K + 1's head, then its tail (K = 0 is the original).
  std::vector<std::vector<MachineInstr *>> Copies(N);
  unsigned Moved = EL.H.size();
  if (EL.RenameS.size() > Spare.size())
    return false;
  for (unsigned K = 1; K < N; ++K) {
    if (K > 1)
      Clone(EL.X, T1);
    Mov(T1, S[K], Exec);
    for (MachineInstr *MI : EL.H)
      Copies[K].push_back(Clone(MI, T1));
    // The head's own scalars that an earlier tail also uses; dead after
    // the head, so every copy may use the same spare registers.
    for (size_t I = 0; I < EL.RenameS.size(); ++I) {
      Register R = EL.RenameS[I];
      bool Pair = StringRef(MRI.getName(R)).contains('_');
      unsigned P = Spare[I];
      MCRegister To =
          TC.reg(Pair ? "s[" + utostr(P) + ":" + utostr(P + 1) + "]"
                      : "s" + utostr(P));
      if (!To)
        return false;
      for (MachineInstr *MI : Copies[K])
        for (MachineOperand &MO : MI->operands())
          if (MO.isReg() && MO.getReg() == R)
            MO.setReg(To);
    }
  }
  Mov(T1, Exec, S[0]);
  MachineBasicBlock::iterator End = EL.Term->getIterator();
  for (unsigned K = 1; K < N; ++K) {
    Mov(End, Exec, S[K]);
    for (MachineInstr *MI : EL.T)
      Copies[K].push_back(Clone(MI, End));
  }
  Clone(EL.X, End);
  // Each tail's waits: the later copies' head loads are now younger.
  unsigned VM = 0;
  for (MachineInstr *MI : EL.H)
    if (F.get(MI->getOpcode()).Counters & cnt::VM)
      ++VM;
  for (unsigned K = 0; K < N; ++K) {
    ArrayRef<MachineInstr *> Tail =
        K ? ArrayRef<MachineInstr *>(Copies[K]).drop_front(Moved)
          : ArrayRef<MachineInstr *>(EL.T);
    for (MachineInstr *MI : Tail) {
      const OpcodeFacts &OF = F.get(MI->getOpcode());
      if (!OF.is(ic::Waitcnt) || !MI->getNumOperands() ||
          !MI->getOperand(0).isImm())
        continue;
      if (OF.Name != "S_WAITCNT_vi" && OF.Name != "S_WAITCNT")
        return false;
      int64_t Old = MI->getOperand(0).getImm();
      WaitcntValue V = WaitcntValue::decode(uint64_t(Old));
      if (V.VM < WaitcntValue::MaxVM) {
        V.VM = std::min<unsigned>(V.VM + VM * (N - 1 - K),
                                  WaitcntValue::MaxVM - 1);
        if (!K)
          Waits.push_back({MI, Old});
        MI->getOperand(0).setImm(V.encode());
      }
    }
  }
  Loop Lp;
  Lp.L = &L;
  Lp.Exit = EL.Exit;
  Lp.Term = EL.Term;
  for (unsigned K = 1; K < N; ++K)
    rename(Lp, Copies[K], /*Last=*/true);
  // After renaming, no register a moved head writes may be one an earlier
  // tail reads or writes, nor one it reads one such a tail writes.
  auto Clash = [&] {
    for (unsigned J = 1; J < N; ++J)
      for (unsigned K = 0; K < J; ++K) {
        ArrayRef<MachineInstr *> Tail =
            K ? ArrayRef<MachineInstr *>(Copies[K]).drop_front(Moved)
              : ArrayRef<MachineInstr *>(EL.T);
        for (unsigned I = 0; I < Moved; ++I)
          for (MachineInstr *T : Tail)
            for (const MachineOperand &HO : Copies[J][I]->operands()) {
              if (!HO.isReg() || !HO.getReg() || isExecReg(HO.getReg()))
                continue;
              if ((HO.isDef() && (T->readsRegister(HO.getReg(), &TRI) ||
                                  T->modifiesRegister(HO.getReg(), &TRI))) ||
                  (!HO.isDef() && T->modifiesRegister(HO.getReg(), &TRI)))
                return true;
            }
      }
    return false;
  };
  if (!Clash())
    return true;
  // A head value that cannot be renamed in a later copy (a VGPR paired
  // with a loop-carried one, as v3 of v[2:3] holding the sign of the
  // index v2) may still clash with a temporary of the first tail (the
  // load's v3): then the first copy's own temporaries get new registers.
  // Lanes that leave after the first copy keep what it leaves at the exit
  // (its exit live-ins stay where they are).
  std::vector<MachineInstr *> First(EL.H);
  First.insert(First.end(), EL.T.begin(), EL.T.end());
  rename(Lp, First, /*Last=*/true, &Renamed);
  return !Clash();
}

bool Unroller::runExec() {
  SmallPtrSet<MachineBasicBlock *, 8> Pinned = fixedBlocks(MF, LF);
  // Two free aligned SGPR pairs hold EXEC for the two copies' tails.
  std::vector<bool> UsedS(104);
  if (!scanSGPRs(MF, MRI, UsedS))
    return false;
  // Generic FLAT completes out of vmcnt order: the renumbered waits
  // would no longer name the loads they waited for.
  for (MachineBasicBlock &MBB : MF)
    for (MachineInstr &MI : MBB) {
      const OpcodeFacts &OF = F.get(MI.getOpcode());
      if (OF.is(ic::FLAT) && !OF.is(ic::Global | ic::Scratch))
        return false;
    }
  std::vector<unsigned> Pairs;
  // Two more for scalars the second head renames.
  unsigned Depth = std::clamp<unsigned>(
      P.param("depth", ExecLoopPipelineDepth.getValue()), 2u, 8u);
  for (unsigned I = 0; I + 1 < 96 && Pairs.size() < Depth + 2; I += 2)
    if (!UsedS[I] && !UsedS[I + 1])
      Pairs.push_back(I);
  if (Pairs.size() < 2)
    return false;
  Depth = std::min<unsigned>(Depth, Pairs.size());
  ArrayRef<unsigned> Spare = ArrayRef<unsigned>(Pairs).drop_front(Depth);
  auto PutBack = [](RegLog &Log) {
    for (auto R = Log.rbegin(); R != Log.rend(); ++R)
      R->first->setReg(R->second);
    Log.clear();
  };
  std::vector<ExecLoop> Loops;
  for (MachineBasicBlock &MBB : MF) {
    if (Pinned.count(&MBB))
      continue;
    auto EL = matchExec(MBB);
    // A tail temporary in a loaded VGPR may keep tail work below the
    // wait (and the loop from matching at all, when that work writes a
    // lane mask the next head writes too); the new registers stay only if
    // more work then moves above it.
    std::vector<MachineInstr *> Body;
    for (MachineInstr &MI : MBB)
      if (!MI.isMetaInstruction())
        Body.push_back(&MI);
    if (Body.size() >= 4 && MBB.getNextNode() &&
        isOp(nameOf(*Body.back()), "S_CBRANCH_EXECNZ")) {
      Body.resize(Body.size() - 2);
      RegLog Reuse;
      std::vector<bool> Used = UsedVGPR;
      if (renameLoadReuse(Body, *MBB.getNextNode(), F, TII, MRI, LM.target(),
                          UsedVGPR, VGPRLimit, Reuse)) {
        auto More = matchExec(MBB);
        if (More && (!EL || More->Hoisted.size() > EL->Hoisted.size())) {
          EL = std::move(More);
          EL->Reuse = std::move(Reuse);
        } else {
          PutBack(Reuse);
          UsedVGPR = std::move(Used);
        }
      }
    }
    if (EL)
      Loops.push_back(*EL);
  }
  if (Loops.empty())
    return false;
  AnalysisOptions AO;
  AO.Liveness = false;
  FunctionAnalysis A0 = analyzeFunction(LM, LF, F, AO);
  if (A0.FromBytes)
    return false;
  struct Undo {
    ExecLoop EL;
    std::vector<MachineInstr *> Added;
    std::vector<std::pair<MachineInstr *, int64_t>> Waits;
    std::vector<std::pair<MachineOperand *, Register>> Regs;
  };
  std::vector<Undo> All;
  auto Revert = [&](Undo &U) {
    for (MachineInstr *MI : U.Added)
      MI->eraseFromParent();
    for (auto &[MI, Imm] : U.Waits)
      MI->getOperand(0).setImm(Imm);
    for (auto R = U.Regs.rbegin(); R != U.Regs.rend(); ++R)
      R->first->setReg(R->second);
    U.EL.X->removeFromParent();
    U.EL.L->insert(U.EL.Term->getIterator(), U.EL.X);
    for (auto H = U.EL.Hoisted.rbegin(); H != U.EL.Hoisted.rend(); ++H) {
      H->first->removeFromParent();
      U.EL.L->insert(H->second->getIterator(), H->first);
    }
    for (auto S = U.EL.Sunk.rbegin(); S != U.EL.Sunk.rend(); ++S) {
      S->first->removeFromParent();
      U.EL.L->insert(S->second->getIterator(), S->first);
    }
  };
  for (ExecLoop &EL : Loops) {
    if (!P.shouldRewrite()) {
      PutBack(EL.Reuse);
      continue;
    }
    All.emplace_back();
    All.back().EL = EL;
    // A loop that cannot be pipelined is put back on its own: the
    // function's other loops (softmax has three) still are. One that
    // cannot take Depth copies (registers run out) is tried with two.
    // A loop that cannot be renamed within the kernel's occupancy may give
    // up one wave per SIMD (occupancy-drop, never below four): four loads
    // in flight per wave for one wave fewer (the gate judges; loops already
    // pipelined keep their registers).
    bool OK = false;
    SmallVector<unsigned, 3> Limits{VGPRLimit};
    if (P.param("occupancy-drop", 1) > 0 && LowerLimit > VGPRLimit)
      Limits.push_back(LowerLimit);
    if (DeepLimit > Limits.back())
      Limits.push_back(DeepLimit);
    for (unsigned Lim : Limits) {
      VGPRLimit = Lim;
      for (unsigned D : {Depth, 2u}) {
        // A failed attempt's renamed registers are free again.
        std::vector<bool> Used = UsedVGPR;
        if (pipelineExec(EL, All.back().Added, All.back().Regs,
                         All.back().Waits,
                         ArrayRef<unsigned>(Pairs).take_front(D), Spare)) {
          OK = true;
          break;
        }
        UsedVGPR = std::move(Used);
        Revert(All.back());
        All.back() = Undo();
        All.back().EL = EL;
        if (D == 2)
          break;
      }
      if (OK)
        break;
    }
    if (!OK)
      VGPRLimit = Limits.front();
    if (!OK) {
      PutBack(EL.Reuse);
      All.pop_back();
    }
  }
  if (All.empty())
    return false;
  FunctionAnalysis A1 = analyzeFunction(LM, LF, F, AO);
  if (A1.violations() > A0.violations() ||
      A1.Advisories.size() > A0.Advisories.size()) {
    for (auto It = All.rbegin(); It != All.rend(); ++It) {
      Revert(*It);
      PutBack(It->EL.Reuse);
    }
    return false;
  }
  return true;
}

} // namespace

Expected<bool> LoopUnrollPass::run(LiftedModule &LM, LiftedFunction &LF) {
  Unroller U(*this, LM, LF, Facts.get(LM));
  return U.run();
}

Expected<bool> ExecLoopPipelinePass::run(LiftedModule &LM,
                                         LiftedFunction &LF) {
  Unroller U(*this, LM, LF, Facts.get(LM));
  return U.run(/*Exec=*/true);
}
