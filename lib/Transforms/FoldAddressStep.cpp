//===- FoldAddressStep.cpp - Pointer steps into load/store offsets --------===//
#include "FoldAddressStep.h"
#include "EditSupport.h"
#include "ExecMask.h"
#include "RewriteGuard.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"

using namespace llvm;
using namespace asmevo;

namespace {

/// One in-place step of a VGPR pair by a constant: v_lshl_add_u64 (Hi
/// null) or v_add_co_u32 + v_addc_co_u32 through VCC.
struct Step {
  MachineInstr *Lo = nullptr, *Hi = nullptr;
  Register Pair;
  unsigned ConstIdx = 0; ///< Operand of Lo holding the constant.
  int64_t C = 0;
};

class Folder {
public:
  Folder(LiftedFunction &LF, const ISAFacts &F)
      : MF(*LF.MF), F(F), TII(*MF.getSubtarget().getInstrInfo()),
        TRI(*MF.getSubtarget().getRegisterInfo()) {}

  StringRef nameOf(const MachineInstr &MI) const {
    return TII.getName(MI.getOpcode());
  }
  std::optional<Step> step(ArrayRef<MachineInstr *> I, size_t K) const;
  /// Operand index of the offset when \p MI is a global load or store
  /// whose 64-bit VGPR address is exactly \p Pair.
  std::optional<unsigned> offsetOf(const MachineInstr &MI, Register Pair) const;
  /// VCC is written before it is read after I[From - 1] (in the block, or
  /// not live into a successor).
  bool carryDead(ArrayRef<MachineInstr *> I, size_t From,
                 const MachineBasicBlock &MBB) const;
  bool touches(const MachineInstr &MI, Register R) const {
    for (const MachineOperand &MO : MI.operands())
      if (MO.isReg() && MO.getReg() && TRI.regsOverlap(MO.getReg(), R))
        return true;
    return false;
  }

  MachineFunction &MF;
  const ISAFacts &F;
  const TargetInstrInfo &TII;
  const TargetRegisterInfo &TRI;
};

std::optional<Step> Folder::step(ArrayRef<MachineInstr *> I, size_t K) const {
  MachineInstr &MI = *I[K];
  if (MI.getPostInstrSymbol() || MI.getNumExplicitOperands() < 3)
    return std::nullopt;
  StringRef N = nameOf(MI);
  auto V = [&](const MachineOperand &MO) {
    return MO.isReg() && MO.getReg() ? vgprsOf(TRI, MO.getReg().asMCReg())
                                     : std::nullopt;
  };
  Step S;
  S.Lo = &MI;
  if (isOp(N, "V_LSHL_ADD_U64")) {
    // v[p:p+1] = (v[p:p+1] << 0) + C
    const MachineOperand &D = MI.getOperand(0), &Src = MI.getOperand(1),
                         &Sh = MI.getOperand(2), &Add = MI.getOperand(3);
    auto R = V(D);
    if (!R || R->Count != 2 || R->Half || !Src.isReg() ||
        Src.getReg() != D.getReg() || !Sh.isImm() || Sh.getImm() != 0 ||
        !Add.isImm() || Add.getImm() < 0 || !isInlineConstant32(Add.getImm()))
      return std::nullopt;
    S.Pair = D.getReg();
    S.ConstIdx = 3;
    S.C = Add.getImm();
    return S;
  }
  // vL = v_add_co_u32_e32 C, vL (carry to VCC), then
  // vH = v_addc_co_u32_e32 0, vH (carry from VCC): one 64-bit step by C.
  if (!isOp(N, "V_ADD_CO_U32_e32") || K + 1 >= I.size())
    return std::nullopt;
  MachineInstr &H = *I[K + 1];
  if (!isOp(nameOf(H), "V_ADDC_CO_U32_e32") || H.getPostInstrSymbol() ||
      H.getNumExplicitOperands() < 3)
    return std::nullopt;
  auto L = V(MI.getOperand(0)), Hv = V(H.getOperand(0));
  const MachineOperand &C = MI.getOperand(1), &HC = H.getOperand(1);
  if (!L || !Hv || L->Count != 1 || Hv->Count != 1 || L->First % 2 ||
      Hv->First != L->First + 1 || !C.isImm() || C.getImm() < 0 ||
      C.getImm() > 0xffff || !HC.isImm() || HC.getImm() != 0 ||
      !MI.getOperand(2).isReg() ||
      MI.getOperand(2).getReg() != MI.getOperand(0).getReg() ||
      !H.getOperand(2).isReg() ||
      H.getOperand(2).getReg() != H.getOperand(0).getReg())
    return std::nullopt;
  // The pair register: the one whose halves these are.
  for (MCPhysReg P : TRI.superregs(MI.getOperand(0).getReg().asMCReg())) {
    auto PR = vgprsOf(TRI, P);
    if (PR && !PR->Half && PR->Count == 2 && PR->First == L->First) {
      S.Pair = P;
      break;
    }
  }
  if (!S.Pair)
    return std::nullopt;
  S.Hi = &H;
  S.ConstIdx = 1;
  S.C = C.getImm();
  return S;
}

std::optional<unsigned> Folder::offsetOf(const MachineInstr &MI,
                                         Register Pair) const {
  StringRef N = nameOf(MI);
  const OpcodeFacts &OF = F.get(MI.getOpcode());
  if (!OF.is(ic::Global) || OF.is(ic::Atomic) || N.contains("SADDR") ||
      !(N.starts_with("GLOBAL_LOAD") || N.starts_with("GLOBAL_STORE")) ||
      MI.getNumExplicitOperands() < 4)
    return std::nullopt;
  // load: vdst, vaddr, offset, cpol; store: vaddr, vdata, offset, cpol.
  unsigned AddrIdx = N.starts_with("GLOBAL_LOAD") ? 1 : 0;
  const MachineOperand &A = MI.getOperand(AddrIdx), &O = MI.getOperand(2);
  if (!A.isReg() || A.getReg() != Pair || !O.isImm())
    return std::nullopt;
  // Nothing else names the pointer (a load into it would end its value).
  for (unsigned X = 0; X < MI.getNumOperands(); ++X) {
    const MachineOperand &MO = MI.getOperand(X);
    if (X != AddrIdx && MO.isReg() && MO.getReg() &&
        TRI.regsOverlap(MO.getReg(), Pair))
      return std::nullopt;
  }
  return 2;
}

bool Folder::carryDead(ArrayRef<MachineInstr *> I, size_t From,
                       const MachineBasicBlock &MBB) const {
  for (size_t K = From; K < I.size(); ++K) {
    bool Reads = false, Writes = false;
    for (const MachineOperand &MO : I[K]->operands())
      if (MO.isReg() && MO.getReg() &&
          StringRef(TRI.getName(MO.getReg())).starts_with("VCC"))
        (MO.isDef() ? Writes : Reads) = true;
    if (Reads)
      return false;
    if (Writes)
      return true;
  }
  for (const MachineBasicBlock *S : MBB.successors())
    for (const auto &LI : S->liveins())
      if (StringRef(TRI.getName(LI.PhysReg)).starts_with("VCC"))
        return false;
  return true;
}

} // namespace

Expected<bool> FoldAddressStepPass::run(LiftedModule &LM, LiftedFunction &LF) {
  if (!LF.MF)
    return false;
  const ISAFacts &F = Facts.get(LM);
  Folder Fo(LF, F);
  RewriteGuard Guard(LM, LF, F);
  EditableRegion Region(LF);
  bool Changed = false;
  for (MachineBasicBlock &MBB : *LF.MF) {
    if (Region.inPrologue(MBB))
      continue;
    std::vector<MachineInstr *> I;
    for (MachineInstr &MI : MBB)
      if (!MI.isMetaInstruction())
        I.push_back(&MI);
    for (size_t K = 0; K < I.size(); ++K) {
      std::optional<Step> S1 = Fo.step(I, K);
      if (!S1)
        continue;
      // The next step of the same pointer, and what lies in between.
      size_t End = K + (S1->Hi ? 2 : 1);
      std::vector<std::pair<MachineInstr *, unsigned>> Uses;
      std::optional<Step> S2;
      size_t J = End;
      bool OK = true;
      for (; J < I.size() && OK; ++J) {
        if ((S2 = Fo.step(I, J)) && S2->Pair == S1->Pair)
          break;
        S2.reset();
        // A callee may use the pointer without naming it.
        if (writesExec(*I[J], Fo.TRI) || I[J]->isCall())
          OK = false;
        else if (auto Off = Fo.offsetOf(*I[J], S1->Pair))
          Uses.push_back({I[J], *Off});
        else if (Fo.touches(*I[J], S1->Pair))
          OK = false;
      }
      if (!OK || !S2)
        continue;
      int64_t Sum = S2->C + S1->C;
      bool Fits = S2->Hi ? Sum <= 0xffff
                         : isInlineConstant32(Sum);
      for (auto &[MI, Idx] : Uses) {
        int64_t O = MI->getOperand(Idx).getImm() + S1->C;
        Fits = Fits && O >= -4096 && O <= 4095;
      }
      // The removed step's carry, and the changed step's (its low half
      // may now carry where it did not), must be dead.
      size_t After2 = J + (S2->Hi ? 2 : 1);
      if (!Fits || (S1->Hi && !Fo.carryDead(I, End, MBB)) ||
          (S2->Hi && !Fo.carryDead(I, After2, MBB)) || !shouldRewrite())
        continue;
      MachineInstr *Next = I[End];
      for (auto &[MI, Idx] : Uses)
        MI->getOperand(Idx).setImm(MI->getOperand(Idx).getImm() + S1->C);
      S2->Lo->getOperand(S2->ConstIdx).setImm(Sum);
      S1->Lo->removeFromParent();
      if (S1->Hi)
        S1->Hi->removeFromParent();
      if (Guard.accept()) {
        LF.MF->deleteMachineInstr(S1->Lo);
        if (S1->Hi)
          LF.MF->deleteMachineInstr(S1->Hi);
        Changed = true;
        I.erase(I.begin() + K, I.begin() + End);
        --K; // ++K comes back to what now sits at K
        continue;
      }
      // Put back.
      MBB.insert(Next->getIterator(), S1->Lo);
      if (S1->Hi)
        MBB.insertAfter(S1->Lo->getIterator(), S1->Hi);
      for (auto &[MI, Idx] : Uses)
        MI->getOperand(Idx).setImm(MI->getOperand(Idx).getImm() - S1->C);
      S2->Lo->getOperand(S2->ConstIdx).setImm(S2->C);
    }
  }
  return Changed;
}
