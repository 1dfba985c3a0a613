//===- SinkWaitcnt.cpp ----------------------------------------------------===//
#include "SinkWaitcnt.h"
#include "llvm/CodeGen/MachineFunction.h"
#include <deque>

using namespace llvm;
using namespace asmevo;

namespace {
/// Registers written by the memory operations a wait at \p I may force.
struct Protected {
  SlotSet Slots = makeSlotSet();
  bool All = false;
};

Protected protectedBy(const SeqView &V, unsigned I, uint8_t Counters,
                      bool IsKernel) {
  Protected P;
  const InstrSeq &S = V.Seq;
  // Per block, the counter sets already walked from its end.
  std::vector<uint8_t> Seen(S.BlockBegin.size(), 0);
  std::deque<std::tuple<unsigned, unsigned, uint8_t>> Work;
  Work.emplace_back(S.BlockOf[I], I, Counters);
  while (!Work.empty() && !P.All) {
    auto [B, To, Open] = Work.front();
    Work.pop_front();
    unsigned J = To;
    for (; J > S.BlockBegin[B] && Open;) {
      const InstrRecord &R = S.Instrs[--J];
      if (R.F->is(ic::Waitcnt)) {
        WaitcntValue W = WaitcntValue::decode(R.Imm);
        for (uint8_t C : {cnt::VM, cnt::LGKM, cnt::EXP})
          if ((Open & C) && W.get(C) == 0)
            Open &= ~C;
        continue;
      }
      if (R.F->Counters & Open)
        for (const RegAccess &A : R.Regs)
          if (A.Def)
            addRange(P.Slots, A.Slots);
    }
    if (!Open)
      continue;
    if (B == 0) {
      // A kernel starts with nothing in flight; a callee does not know.
      if (!IsKernel)
        P.All = true;
      continue;
    }
    for (unsigned Pr : S.Preds[B])
      if ((Seen[Pr] & Open) != Open) {
        Seen[Pr] |= Open;
        Work.emplace_back(Pr, S.blockEnd(Pr), Open);
      }
  }
  return P;
}

int clauseKind(const InstrRecord &R) {
  return R.F->is(ic::SMEM) ? 1 : R.F->is(ic::VMEM) ? 2 : 0;
}

bool isMemory(const OpcodeFacts &F) {
  return F.is(ic::VMEM | ic::DS | ic::SMEM | ic::FLAT | ic::LDSDMA |
              ic::Global | ic::Scratch | ic::Buffer) ||
         F.MayLoad || F.MayStore;
}
} // namespace

Expected<bool> SinkWaitcntPass::run(LiftedModule &LM, LiftedFunction &LF) {
  const ISAFacts &F = Facts.get(LM);
  SeqView V = SeqView::build(*LF.MF, F);
  if (Error E = checkSameInstructions("sink-waitcnt", V.Seq.Instrs.size(), V.At.size()))
    return std::move(E);
  if (llvm::none_of(V.Seq.Instrs,
                    [](const InstrRecord &R) { return R.F->is(ic::Waitcnt); }))
    return false;
  bool HasFlat = false, HasLDSDMA = false, HasExp = false;
  for (const InstrRecord &R : V.Seq.Instrs) {
    HasFlat |= R.F->is(ic::FLAT);
    HasLDSDMA |= R.F->is(ic::LDSDMA);
    HasExp |= (R.F->Counters & cnt::EXP) != 0;
  }
  EditableRegion Region(LF);
  HazardBaseline Base(V, F);
  SiteSet Before = SiteSet::of(LM, LF, F, /*Advisories=*/true);
  EditLog Log(*LF.MF);
  bool IsKernel = LF.Range.IsKernel;

  for (unsigned I = 0; I < V.At.size(); ++I) {
    MachineInstr &MI = *V.At[I];
    const InstrRecord &W = V.Seq.Instrs[I];
    if (!W.F->is(ic::Waitcnt) || !Region.editable(MI) ||
        MI.getNumOperands() == 0 || !MI.getOperand(0).isImm() ||
        !hasOnlyRegImmOperands(MI))
      continue;
    WaitcntValue Val = WaitcntValue::decode(MI.getOperand(0).getImm());
    uint8_t Counters = (Val.waitsOn(cnt::VM) ? cnt::VM : 0) |
                       (Val.waitsOn(cnt::LGKM) ? cnt::LGKM : 0) |
                       (HasExp && Val.waitsOn(cnt::EXP) ? cnt::EXP : 0);
    if (!Counters)
      continue; // Waits for nothing: redundancy-elim's.
    Protected P = protectedBy(V, I, Counters, IsKernel);
    if (P.All)
      continue;
    unsigned B = V.Seq.BlockOf[I], End = V.Seq.blockEnd(B);
    unsigned J = I + 1;
    // reach: how far a wait may go (0: as far as it can), a knob --evolve
    // turns when sinking a wait all the way starves the loads after it.
    unsigned Reach = param("reach", 0);
    unsigned Stop = Reach && End > I + 1 + Reach ? I + 1 + Reach : End;
    for (; J < Stop; ++J) {
      const InstrRecord &X = V.Seq.Instrs[J];
      const OpcodeFacts &XF = *X.F;
      if (XF.Flow != FlowKind::None)
        break;
      if (XF.is(ic::Waitcnt | ic::Barrier | ic::Message | ic::CacheCtl |
                ic::SetPrio | ic::Sleep | ic::SetReg | ic::GetReg |
                ic::EndPgm | ic::Export | ic::GDS))
        break;
      if ((XF.TSFlags >> tsflag::SOPP & 1) && !XF.is(ic::Nop))
        break;
      if (llvm::any_of(X.Regs, [&](const RegAccess &A) {
            return P.Slots.find_first_in(A.Slots.First, A.Slots.end()) != -1;
          }))
        break;
      if (isMemory(XF)) {
        bool Load = XF.MayLoad && !XF.MayStore && !XF.is(ic::Atomic) &&
                    !XF.is(ic::LDSDMA | ic::FLAT | ic::GDS);
        if (!Load || (XF.Counters & Counters))
          break;
        bool OK = false;
        if (Counters == cnt::LGKM && XF.is(ic::VMEM) && !HasFlat)
          OK = true;
        if (Counters == cnt::VM && XF.is(ic::DS) && !HasLDSDMA)
          OK = true;
        if (!OK)
          break;
        // The instruction before it, once the wait is gone from between.
        const InstrRecord *Prev =
            J > I + 1 ? &V.Seq.Instrs[J - 1]
            : I > V.Seq.BlockBegin[B] ? &V.Seq.Instrs[I - 1]
                                       : nullptr;
        if (Prev && clauseKind(*Prev) && clauseKind(*Prev) == clauseKind(X))
          break;
      }
    }
    // The wait goes before entry J; try nearer places when a hazard
    // producer would come too close.
    unsigned To = J;
    for (; To > I + 1; --To) {
      V.moveDown(I, To);
      if (Base.noWorse(V, V.consumersAround(I)))
        break;
      // Back where it was.
      std::rotate(V.Seq.Instrs.begin() + I, V.Seq.Instrs.begin() + To - 1,
                  V.Seq.Instrs.begin() + To);
      std::rotate(V.At.begin() + I, V.At.begin() + To - 1, V.At.begin() + To);
    }
    if (To <= I + 1)
      continue;
    if (!shouldRewrite()) {
      std::rotate(V.Seq.Instrs.begin() + I, V.Seq.Instrs.begin() + To - 1,
                  V.Seq.Instrs.begin() + To);
      std::rotate(V.At.begin() + I, V.At.begin() + To - 1, V.At.begin() + To);
      continue;
    }
    // V.At[To - 1] is the wait now; in the block it goes before what
    // V.At[To] is (or to the block's end).
    MachineBasicBlock &MBB = *MI.getParent();
    MachineBasicBlock::iterator Pos =
        To < End ? V.At[To]->getIterator() : MBB.end();
    if (To == End) {
      // Before the block's end: after the last non-meta instruction.
      Pos = std::next(V.At[To - 2]->getIterator());
    }
    Log.moveBefore(MI, Pos);
    // The entries between moved up by one; the wait is handled: skip on.
    I = To - 1;
  }
  if (Log.empty())
    return false;
  if (!Before.noneIntroducedBy(SiteSet::of(LM, LF, F, true))) {
    Log.undo();
    return false;
  }
  return true;
}
