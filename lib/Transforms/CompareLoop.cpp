//===- CompareLoop.cpp - Loops exited by comparing a stepped induction ----===//
//
// A block of Factor trips entered with induction x steps it to x + j*Step
// after trip j, and trip j goes on when x + j*Step Rel B. For j < Factor
// all of them go on exactly when x + K Rel B with K = (Factor-1)*Step: the
// values move monotonically towards B and stay on the near side of it, so
// none wraps. x + K Rel B is rewritten as x Rel' T with T = B - K (or
// B - K + 1 for <=; mirrored for a falling induction), and an overflowing
// T is replaced by the value for which x Rel' T never holds.
//
//===----------------------------------------------------------------------===//
#include "CompareLoop.h"
#include "ExecMask.h"
#include "asmevo/Analysis/ISAFacts.h"
#include "asmevo/Support/TargetContext.h"
#include "asmevo/Transforms/InstrAnchor.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include <climits>

using namespace llvm;
using namespace asmevo;

namespace {

enum class Rel { LT, LE, GT, GE };

Rel swapped(Rel R) {
  switch (R) {
  case Rel::LT:
    return Rel::GT;
  case Rel::LE:
    return Rel::GE;
  case Rel::GT:
    return Rel::LT;
  case Rel::GE:
    return Rel::LE;
  }
  llvm_unreachable("relation");
}

Rel negated(Rel R) {
  switch (R) {
  case Rel::LT:
    return Rel::GE;
  case Rel::LE:
    return Rel::GT;
  case Rel::GT:
    return Rel::LE;
  case Rel::GE:
    return Rel::LT;
  }
  llvm_unreachable("relation");
}

/// A whole 32-bit SGPR (not a pair, not a half).
bool isPlainSGPR(const MCRegisterInfo &MRI, Register R) {
  if (!R || !R.isPhysical())
    return false;
  StringRef N = MRI.getName(R);
  return N.starts_with("SGPR") && !N.contains('_');
}

/// The SCC value that takes the branch, for s_cbranch_scc0/1.
std::optional<bool> branchSCC(StringRef Name) {
  if (isOp(Name, "S_CBRANCH_SCC1"))
    return true;
  if (isOp(Name, "S_CBRANCH_SCC0"))
    return false;
  return std::nullopt;
}

int64_t asInt32(int64_t Imm) { return static_cast<int32_t>(Imm); }

/// The block a branch names first, or null (no operands, not a block).
MachineBasicBlock *targetOf(const MachineInstr *MI) {
  if (!MI || !MI->getNumOperands() || !MI->getOperand(0).isMBB())
    return nullptr;
  return MI->getOperand(0).getMBB();
}

} // namespace

std::optional<CompareLoop>
asmevo::matchCompareLoop(MachineBasicBlock &MBB, const TargetInstrInfo &TII,
                         const TargetRegisterInfo &TRI,
                         const MCRegisterInfo &MRI, MCRegister SCC) {
  CompareLoop CL;
  CL.L = &MBB;
  std::vector<MachineInstr *> Code = codeInstrs(MBB);
  MachineInstr *Term = Code.empty() ? nullptr : Code.back();
  if (!targetOf(Term))
    return std::nullopt;
  // `s_cbranch_sccW Exit; s_branch L`: the back branch is L's own.
  if (isOp(TII.getName(Term->getOpcode()), "S_BRANCH") &&
      targetOf(Term) == &MBB) {
    CL.Back = Term;
    Term = Code.size() > 1 ? Code[Code.size() - 2] : nullptr;
    if (!targetOf(Term) || targetOf(Term) == &MBB)
      return std::nullopt;
  }
  auto W = branchSCC(TII.getName(Term->getOpcode()));
  if (!W)
    return std::nullopt;
  CL.Term = Term;
  MachineBasicBlock *Target = targetOf(Term);
  MachineBasicBlock *Next = MBB.getNextNode();
  if (MBB.succ_size() != 2 || (!Next && !CL.Back))
    return std::nullopt;
  if (CL.Back) {
    CL.Exit = Target;
    CL.ExitSCC = *W;
  } else if (Target == &MBB) {
    CL.Exit = Next;
    CL.ExitSCC = !*W;
  } else {
    // L leaves by the branch and falls into a latch that only jumps back.
    MachineBasicBlock *Latch = Next;
    MachineInstr *Back = nullptr;
    for (MachineInstr &MI : *Latch) {
      if (MI.isMetaInstruction())
        continue;
      if (Back)
        return std::nullopt;
      Back = &MI;
    }
    if (!Back || !isOp(TII.getName(Back->getOpcode()), "S_BRANCH") ||
        targetOf(Back) != &MBB ||
        Latch->pred_size() != 1 || Latch->succ_size() != 1)
      return std::nullopt;
    CL.Latch = Latch;
    CL.Exit = Target;
    CL.ExitSCC = *W;
  }
  if (!MBB.isSuccessor(CL.Exit) || CL.Exit == &MBB)
    return std::nullopt;

  MachineInstr *Cmp = nullptr;
  for (auto It = std::next(Term->getReverseIterator()); It != MBB.rend(); ++It)
    if (It->modifiesRegister(SCC, &TRI)) {
      Cmp = &*It;
      break;
    }
  if (!Cmp || Cmp->getNumExplicitOperands() < 2)
    return std::nullopt;
  StringRef CN = TII.getName(Cmp->getOpcode());
  std::optional<Rel> R;
  for (auto [Base, Rl, Sg] :
       {std::tuple{"S_CMP_LT_I32", Rel::LT, true}, {"S_CMP_LE_I32", Rel::LE, true},
        {"S_CMP_GT_I32", Rel::GT, true}, {"S_CMP_GE_I32", Rel::GE, true},
        {"S_CMP_LT_U32", Rel::LT, false}, {"S_CMP_LE_U32", Rel::LE, false},
        {"S_CMP_GT_U32", Rel::GT, false}, {"S_CMP_GE_U32", Rel::GE, false}})
    if (isOp(CN, Base)) {
      R = Rl;
      CL.Signed = Sg;
    }
  if (!R)
    return std::nullopt;
  CL.Cmp = Cmp;

  // The induction: one operand with exactly one write in L, a constant
  // step before the compare.
  auto stepOf = [&](Register I) -> std::optional<int64_t> {
    std::optional<int64_t> Step;
    bool BeforeCmp = true;
    for (MachineInstr &MI : MBB) {
      if (&MI == Cmp)
        BeforeCmp = false;
      if (!MI.modifiesRegister(I, &TRI))
        continue;
      if (Step || !BeforeCmp)
        return std::nullopt;
      StringRef N = TII.getName(MI.getOpcode());
      bool Add = isOp(N, "S_ADD_I32") || isOp(N, "S_ADD_U32");
      bool Sub = isOp(N, "S_SUB_I32") || isOp(N, "S_SUB_U32");
      if ((!Add && !Sub) || MI.getNumExplicitOperands() < 3 ||
          !MI.getOperand(0).isReg() || MI.getOperand(0).getReg() != I)
        return std::nullopt;
      const MachineOperand &A = MI.getOperand(1), &B = MI.getOperand(2);
      if (A.isReg() && A.getReg() == I && B.isImm())
        Step = Sub ? -asInt32(B.getImm()) : asInt32(B.getImm());
      else if (Add && B.isReg() && B.getReg() == I && A.isImm())
        Step = asInt32(A.getImm());
      else
        return std::nullopt;
    }
    if (!Step || *Step == 0)
      return std::nullopt;
    return Step;
  };
  const MachineOperand &Op0 = Cmp->getOperand(0), &Op1 = Cmp->getOperand(1);
  const MachineOperand *BoundOp = nullptr;
  if (Op0.isReg() && isPlainSGPR(MRI, Op0.getReg()))
    if (auto S = stepOf(Op0.getReg())) {
      CL.Induction = Op0.getReg();
      CL.Step = *S;
      BoundOp = &Op1;
    }
  if (!BoundOp && Op1.isReg() && isPlainSGPR(MRI, Op1.getReg()))
    if (auto S = stepOf(Op1.getReg())) {
      CL.Induction = Op1.getReg();
      CL.Step = *S;
      BoundOp = &Op0;
      R = swapped(*R);
    }
  if (!BoundOp)
    return std::nullopt;
  if (BoundOp->isImm()) {
    CL.BoundImm = CL.Signed ? asInt32(BoundOp->getImm())
                            : int64_t(uint32_t(BoundOp->getImm()));
  } else if (BoundOp->isReg() && isPlainSGPR(MRI, BoundOp->getReg())) {
    CL.Bound = BoundOp->getReg();
    for (MachineInstr &MI : MBB)
      if (MI.modifiesRegister(CL.Bound, &TRI))
        return std::nullopt;
  } else {
    return std::nullopt;
  }
  // The loop goes on while SCC is !ExitSCC.
  if (CL.ExitSCC)
    R = negated(*R);
  CL.Up = *R == Rel::LT || *R == Rel::LE;
  CL.OrEqual = *R == Rel::LE || *R == Rel::GE;
  // An induction moving away from the bound: leave it.
  if ((CL.Step > 0) != CL.Up || std::abs(CL.Step) > (1 << 20))
    return std::nullopt;
  // Copies run back to back: the body must not read the SCC it enters
  // with (the guard and the previous copy write it).
  for (MachineInstr &MI : MBB) {
    if (&MI != Term && &MI != CL.Back && MI.readsRegister(SCC, &TRI))
      return std::nullopt;
    if (MI.modifiesRegister(SCC, &TRI))
      break;
  }
  return CL;
}

std::optional<GuardedBlocks>
asmevo::buildGuardedBlocks(const CompareLoop &CL, unsigned Factor,
                           Register Limit, const TargetContext &TC,
                           const TargetInstrInfo &TII) {
  // x + K Rel B as x Rel' T: T = B -/+ D, Rel' strict.
  int64_t K = int64_t(Factor - 1) * std::abs(CL.Step);
  int64_t D = CL.OrEqual ? K - 1 : K;
  int64_t Min = CL.Signed ? INT32_MIN : 0;
  int64_t Max = CL.Signed ? INT32_MAX : int64_t(UINT32_MAX);
  std::optional<int64_t> T;
  if (CL.BoundImm) {
    int64_t V = CL.Up ? *CL.BoundImm - D : *CL.BoundImm + D;
    if (V < Min || V > Max)
      return std::nullopt;
    T = asInt32(V);
  }
  StringRef Sfx = CL.Signed ? "_I32" : "_U32";
  unsigned CmpOpc =
      TC.encodedOpcode((Twine(CL.Up ? "S_CMP_LT" : "S_CMP_GT") + Sfx).str());
  unsigned ShiftOpc =
      TC.encodedOpcode((Twine(CL.Up ? "S_SUB" : "S_ADD") + Sfx).str());
  unsigned SelOpc = TC.encodedOpcode("S_CSELECT_B32");
  unsigned BrOpc0 = TC.encodedOpcode("S_CBRANCH_SCC0"),
           BrOpc1 = TC.encodedOpcode("S_CBRANCH_SCC1");
  if (CmpOpc == ~0u || ShiftOpc == ~0u || SelOpc == ~0u || BrOpc0 == ~0u ||
      BrOpc1 == ~0u)
    return std::nullopt;

  MachineBasicBlock &L = *CL.L;
  MachineFunction &MF = *L.getParent();
  GuardedBlocks GB;
  for (MachineBasicBlock **B : {&GB.G, &GB.M, &GB.M2}) {
    *B = MF.CreateMachineBasicBlock();
    MF.insert(L.getIterator(), *B);
    for (const auto &LI : L.liveins())
      (*B)->addLiveIn(LI);
  }
  if (!T) {
    GB.M->addLiveIn(Limit);
    GB.M2->addLiveIn(Limit);
  }
  auto emitCompare = [&](MachineBasicBlock &B) {
    auto MIB = BuildMI(B, B.end(), DebugLoc(), TII.get(CmpOpc))
                   .addReg(CL.Induction);
    if (T)
      MIB.addImm(*T);
    else
      MIB.addReg(Limit);
  };
  // G: the shifted bound (the sentinel when it overflows: SCC says so for
  // both the signed and the unsigned add/sub), then "does a block fit?".
  if (!T) {
    BuildMI(*GB.G, GB.G->end(), DebugLoc(), TII.get(ShiftOpc), Limit)
        .addReg(CL.Bound)
        .addImm(D);
    int64_t Sentinel = CL.Up ? Min : Max;
    BuildMI(*GB.G, GB.G->end(), DebugLoc(), TII.get(SelOpc), Limit)
        .addImm(asInt32(Sentinel))
        .addReg(Limit);
  }
  emitCompare(*GB.G);
  BuildMI(*GB.G, GB.G->end(), DebugLoc(), TII.get(BrOpc0)).addMBB(&L);
  GB.G->addSuccessorWithoutProb(GB.M);
  GB.G->addSuccessorWithoutProb(&L);
  // M: the caller's copies, then the last copy's own compare decides.
  BuildMI(*GB.M, GB.M->end(), DebugLoc(),
          TII.get(CL.ExitSCC ? BrOpc1 : BrOpc0))
      .addMBB(CL.Exit);
  GB.M->addSuccessorWithoutProb(CL.Exit);
  GB.M->addSuccessorWithoutProb(GB.M2);
  // M2: another block, or the original loop for what is left.
  emitCompare(*GB.M2);
  BuildMI(*GB.M2, GB.M2->end(), DebugLoc(), TII.get(BrOpc1)).addMBB(GB.M);
  GB.M2->addSuccessorWithoutProb(GB.M);
  GB.M2->addSuccessorWithoutProb(&L);
  return GB;
}

bool asmevo::issueHeadsFirst(
    MachineBasicBlock &M, ArrayRef<std::vector<MachineInstr *>> Copies,
    ArrayRef<const MachineBasicBlock *> LiveAfter,
    const std::vector<bool> &UsedVGPR,
    unsigned Limit, const ISAFacts &F, const TargetContext &TC,
    const TargetInstrInfo &TII, const TargetRegisterInfo &TRI,
    const MCRegisterInfo &MRI, MCRegister SCC) {
  if (Copies.size() < 2)
    return false;
  auto conflict = [&](const MachineInstr &A, const MachineInstr &B,
                      bool IgnoreExec) {
    for (const MachineOperand &X : A.operands()) {
      if (!X.isReg() || !X.getReg() ||
          (IgnoreExec && isExecRegister(MRI, X.getReg())))
        continue;
      for (const MachineOperand &Y : B.operands())
        if (Y.isReg() && Y.getReg() && (X.isDef() || Y.isDef()) &&
            TRI.regsOverlap(X.getReg(), Y.getReg()))
          return true;
    }
    return false;
  };
  // VGPRs nothing in the function names: the rest of the function
  // (UsedVGPR) and the block itself.
  std::vector<bool> Taken(UsedVGPR.begin(), UsedVGPR.end());
  for (const std::vector<MachineInstr *> &C : Copies)
    for (MachineInstr *MI : C)
      for (const MachineOperand &MO : MI->operands())
        if (MO.isReg() && MO.getReg())
          if (auto V = vgprsOf(MRI, MO.getReg().asMCReg()))
            for (unsigned U = V->First; U < V->First + V->Count; ++U)
              if (U < Taken.size())
                Taken[U] = true;
  auto readsReg = [&](const MachineInstr &MI, Register R) {
    return llvm::any_of(MI.operands(), [&](const MachineOperand &MO) {
      return MO.isReg() && MO.getReg() && !MO.isDef() &&
             TRI.regsOverlap(MO.getReg(), R);
    });
  };
  auto writesReg = [&](const MachineInstr &MI, Register R) {
    return llvm::any_of(MI.operands(), [&](const MachineOperand &MO) {
      return MO.isReg() && MO.getReg() && MO.isDef() &&
             TRI.regsOverlap(MO.getReg(), R);
    });
  };
  // A tail temporary the compiler put in a VGPR that one of the copy's
  // loads also writes cannot run before the wait in that register: give
  // it a free one when its value dies in this copy's tail (read by nothing
  // else before the block writes the register again, or dead at the end of
  // the block: not live into Exit or the loop, not read first by the
  // block's first copy). Returns whether \p X was renamed.
  auto renameTemp = [&](size_t Copy, size_t At) {
    MachineInstr &X = *Copies[Copy][At];
    if (Limit == 0 || X.getNumExplicitDefs() != 1 || !X.getOperand(0).isReg())
      return false;
    Register R = X.getOperand(0).getReg();
    auto V = vgprsOf(MRI, R.asMCReg());
    if (!V || V->Count != 1 || readsReg(X, R))
      return false;
    std::vector<MachineOperand *> Uses;
    bool Dies = false;
    for (size_t C = Copy; C < Copies.size() && !Dies; ++C)
      for (size_t I = C == Copy ? At + 1 : 0; I < Copies[C].size(); ++I) {
        MachineInstr &MI = *Copies[C][I];
        if (readsReg(MI, R)) {
          if (C != Copy || writesReg(MI, R))
            return false;
          for (MachineOperand &MO : MI.operands())
            if (MO.isReg() && MO.getReg() && !MO.isDef() &&
                TRI.regsOverlap(MO.getReg(), R)) {
              if (MO.getReg() != R)
                return false;
              Uses.push_back(&MO);
            }
        } else if (writesReg(MI, R)) {
          Dies = true;
          break;
        }
      }
    if (!Dies) {
      for (const MachineBasicBlock *B : LiveAfter)
        for (const auto &LI : B->liveins())
          if (TRI.regsOverlap(LI.PhysReg, R))
            return false;
      for (MachineInstr *MI : Copies.front()) {
        if (readsReg(*MI, R))
          return false;
        if (writesReg(*MI, R))
          break;
      }
    }
    unsigned Free = 0;
    while (Free < Limit && Taken[Free])
      ++Free;
    if (Free >= Limit)
      return false;
    MCRegister N = TC.reg("v" + std::to_string(Free));
    if (!N)
      return false;
    Taken[Free] = true;
    X.getOperand(0).setReg(N);
    for (MachineOperand *MO : Uses)
      MO->setReg(N);
    return true;
  };
  std::vector<std::vector<MachineInstr *>> H, T;
  std::vector<unsigned> Loads;
  for (size_t CopyIdx = 0; CopyIdx < Copies.size(); ++CopyIdx) {
    const std::vector<MachineInstr *> &C = Copies[CopyIdx];
    // The first wait for vector memory (one for scalar loads only, such as
    // the preheader's, stays in each head: it holds nothing up again).
    size_t W = llvm::find_if(C, [&](MachineInstr *MI) {
                 return F.get(MI->getOpcode()).is(ic::Waitcnt) &&
                        (!MI->getNumOperands() || !MI->getOperand(0).isImm() ||
                         WaitcntValue::decode(MI->getOperand(0).getImm()).VM <
                             WaitcntValue::MaxVM);
               }) -
               C.begin();
    if (W == C.size())
      return false;
    H.emplace_back(C.begin(), C.begin() + W);
    T.emplace_back();
    // Scalar and vector ALU work after the wait that needs nothing the
    // wait is for (the induction step, the exit compare, pointer updates)
    // joins the head: a tail must leave SCC and the next head's inputs
    // alone.
    SmallVector<Register, 16> Loaded;
    for (MachineInstr *MI : H.back())
      if (F.get(MI->getOpcode()).is(ic::VMEM) && MI->mayLoad())
        for (const MachineOperand &MO : MI->operands())
          if (MO.isReg() && MO.isDef() && MO.getReg())
            Loaded.push_back(MO.getReg());
    for (size_t I = W; I < C.size(); ++I) {
      MachineInstr *X = C[I];
      const OpcodeFacts &OF = F.get(X->getOpcode());
      // Plain ALU work only: s_barrier, messages, mode and timer reads are
      // SALU too, and must keep their place in the tail.
      bool Movable = I > W && (OF.is(ic::SALU) || OF.isLegacyVALU()) &&
                     !OF.is(ic::Waitcnt | ic::Nop | ic::MFMA | ic::Trans |
                            ic::Barrier | ic::Message | ic::Sleep |
                            ic::SetPrio | ic::SetReg | ic::CacheCtl |
                            ic::EndPgm) &&
                     !readsMachineState(OF.Name) &&
                     !writesExec(*X, MRI) && !X->mayLoadOrStore();
      auto touchesLoaded = [&](bool Defs) {
        return llvm::any_of(X->operands(), [&](const MachineOperand &MO) {
          return MO.isReg() && MO.getReg() && MO.isDef() == Defs &&
                 llvm::any_of(Loaded, [&](Register R) {
                   return TRI.regsOverlap(R, MO.getReg());
                 });
        });
      };
      if (Movable && !touchesLoaded(false) && touchesLoaded(true))
        renameTemp(CopyIdx, I);
      if (Movable && (touchesLoaded(false) || touchesLoaded(true)))
        Movable = false;
      for (MachineInstr *Y : T.back())
        if (Movable && conflict(*X, *Y, /*IgnoreExec=*/false))
          Movable = false;
      (Movable ? H : T).back().push_back(X);
    }
    unsigned N = 0;
    SmallVector<Register, 2> Open;
    for (MachineInstr *MI : H.back()) {
      const OpcodeFacts &OF = F.get(MI->getOpcode());
      // Loads only, counted by vmcnt alone: the tails' other counters keep
      // their meaning.
      if (OF.MayStore || OF.is(ic::Atomic | ic::DS | ic::SMEM | ic::FLAT |
                                ic::LDSDMA | ic::Barrier | ic::Message |
                                ic::GDS | ic::Export | ic::SetReg |
                                ic::CacheCtl | ic::Sleep | ic::SetPrio) ||
          (OF.Counters & ~cnt::VM))
        return false;
      if (OF.Counters & cnt::VM)
        ++N;
      if (!writesExec(*MI, MRI))
        continue;
      if (isSaveExec(*MI, TII))
        Open.push_back(MI->getOperand(0).getReg());
      else if (!Open.empty() && isRestoreExec(*MI, TII, MRI, Open.back()))
        Open.pop_back();
      else
        return false;
    }
    if (!Open.empty())
      return false;
    Loads.push_back(N);
    for (MachineInstr *MI : T.back()) {
      const OpcodeFacts &OF = F.get(MI->getOpcode());
      // LDS atomics (LLVM also flags ds_write_* "atomic no return") stay in
      // order among the tails and never meet a head's global loads.
      if (OF.is(ic::VMEM | ic::FLAT | ic::SMEM | ic::LDSDMA | ic::GDS |
                ic::Message | ic::Export | ic::SetReg) ||
          (OF.is(ic::Atomic) && !OF.is(ic::DS)) ||
          writesExec(*MI, MRI) || MI->readsRegister(SCC, &TRI) ||
          MI->modifiesRegister(SCC, &TRI))
        return false;
    }
  }
  // A later head against an earlier tail: no register both touch, but for
  // EXEC, which every head gives back as it found it, and which tails
  // only read.
  for (size_t J = 0; J < Copies.size(); ++J)
    for (size_t K = J + 1; K < Copies.size(); ++K)
      for (MachineInstr *A : T[J])
        for (MachineInstr *B : H[K])
          if (conflict(*A, *B, /*IgnoreExec=*/true))
            return false;
  auto At = M.getFirstTerminator();
  for (auto Part : {&H, &T})
    for (const std::vector<MachineInstr *> &Piece : *Part)
      for (MachineInstr *MI : Piece)
        M.splice(At, &M, MI->getIterator());
  for (size_t J = 0; J < Copies.size(); ++J) {
    unsigned Later = 0;
    for (size_t K = J + 1; K < Copies.size(); ++K)
      Later += Loads[K];
    for (MachineInstr *MI : T[J]) {
      const OpcodeFacts &OF = F.get(MI->getOpcode());
      if (!OF.is(ic::Waitcnt) || !MI->getNumOperands() ||
          !MI->getOperand(0).isImm() ||
          (OF.Name != "S_WAITCNT_vi" && OF.Name != "S_WAITCNT"))
        continue;
      WaitcntValue V = WaitcntValue::decode(uint64_t(MI->getOperand(0).getImm()));
      if (V.VM < WaitcntValue::MaxVM) {
        V.VM = std::min<unsigned>(V.VM + Later, WaitcntValue::MaxVM - 1);
        MI->getOperand(0).setImm(V.encode());
      }
    }
  }
  return true;
}
