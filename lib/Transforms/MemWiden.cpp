//===- MemWiden.cpp -------------------------------------------------------===//
#include "MemWiden.h"
#include "asmevo/Analysis/InstrRecord.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"

using namespace llvm;
using namespace asmevo;

namespace {

enum class MK : uint8_t { GLoad, GStore, DSRead, DSWrite };

struct Access {
  MK Kind;
  MachineInstr *MI = nullptr;
  bool SAddr = false;
  unsigned Words = 1;
  int64_t Offset = 0;
  unsigned Data = 0; ///< First VGPR of the destination or store data.
  unsigned AddrIdx = 0, DataIdx = 0, OffIdx = 0;
};

bool vgprRange(const MachineOperand &MO, const ISAFacts &F, unsigned Words,
               unsigned &First) {
  SlotRange R = operandSlots(MO, F);
  if (R.Count != Words || slotKind(R.First) != SlotKind::VGPR)
    return false;
  First = R.First - slot::VGPRBase;
  return true;
}

std::optional<Access> decode(MachineInstr &MI, const ISAFacts &F) {
  StringRef N = F.target().opcodeName(MI.getOpcode());
  Access A;
  A.MI = &MI;
  unsigned NumExpl = MI.getNumExplicitOperands();
  if (N == "DS_READ_B32_vi" || N == "DS_WRITE_B32_vi") {
    bool Read = N == "DS_READ_B32_vi";
    A.Kind = Read ? MK::DSRead : MK::DSWrite;
    // ds_read: vdst, addr, offset, gds; ds_write: addr, data, offset, gds.
    if (NumExpl != 4)
      return std::nullopt;
    A.AddrIdx = Read ? 1 : 0;
    A.DataIdx = Read ? 0 : 1;
    A.OffIdx = 2;
    if (!MI.getOperand(3).isImm() || MI.getOperand(3).getImm() != 0)
      return std::nullopt; // GDS
  } else {
    if (!N.consume_front("GLOBAL_") || !N.consume_back("_vi"))
      return std::nullopt;
    bool Load = N.consume_front("LOAD_DWORD");
    if (!Load && !N.consume_front("STORE_DWORD"))
      return std::nullopt;
    A.Kind = Load ? MK::GLoad : MK::GStore;
    if (N.consume_front("X")) {
      if (N.empty() || N[0] < '2' || N[0] > '4')
        return std::nullopt;
      A.Words = N[0] - '0';
      N = N.drop_front();
    }
    A.SAddr = N.consume_front("_SADDR");
    if (!N.empty())
      return std::nullopt;
    // load: vdst, vaddr, [saddr], offset, cpol; store: vaddr, vdata, ...
    if (NumExpl != (A.SAddr ? 5u : 4u))
      return std::nullopt;
    A.AddrIdx = Load ? 1 : 0;
    A.DataIdx = Load ? 0 : 1;
    A.OffIdx = A.SAddr ? 3 : 2;
  }
  const MachineOperand &Off = MI.getOperand(A.OffIdx);
  if (!Off.isImm() || !MI.getOperand(NumExpl - 1).isImm())
    return std::nullopt;
  A.Offset = Off.getImm();
  if (!vgprRange(MI.getOperand(A.DataIdx), F, A.Words, A.Data))
    return std::nullopt;
  return A;
}

/// Same address registers (vaddr, saddr) and the same cache policy / gds.
bool sameBase(const Access &X, const Access &Y) {
  if (X.Kind != Y.Kind || X.SAddr != Y.SAddr)
    return false;
  unsigned NumExpl = X.MI->getNumExplicitOperands();
  for (unsigned I = 0; I < NumExpl; ++I) {
    if (I == X.DataIdx || I == X.OffIdx)
      continue;
    const MachineOperand &A = X.MI->getOperand(I), &B = Y.MI->getOperand(I);
    if (A.isReg() != B.isReg() || A.isImm() != B.isImm())
      return false;
    if (A.isReg() && A.getReg() != B.getReg())
      return false;
    if (A.isImm() && A.getImm() != B.getImm())
      return false;
  }
  return true;
}

bool blocksMotion(const InstrRecord &R) {
  const OpcodeFacts &F = R.facts();
  return F.Flow != FlowKind::None || F.MayLoad || F.MayStore ||
         F.is(ic::Waitcnt | ic::Barrier | ic::SetReg | ic::Message |
              ic::Sleep | ic::EndPgm | ic::VMEM | ic::DS | ic::SMEM |
              ic::FLAT | ic::CacheCtl);
}

MCRegister vregs(const TargetContext &TC, unsigned First, unsigned Count) {
  if (Count == 1)
    return TC.reg("v" + std::to_string(First));
  return TC.reg("v[" + std::to_string(First) + ":" +
                std::to_string(First + Count - 1) + "]");
}

/// The merged instruction's shape: opcode and operands, or nothing.
struct Merge {
  unsigned Opc = ~0u;
  unsigned DataFirst = 0, Words = 0; ///< Global: one tuple.
  int64_t Offset = 0;
  // DS: read2 (tuple dst, off0, off1) / write2 (data0, data1, off0, off1).
  unsigned Data0 = 0, Data1 = 0;
  int64_t Off0 = 0, Off1 = 0;
};

std::optional<Merge> plan(const Access &E, const Access &L,
                          const TargetContext &TC) {
  if (!sameBase(E, L))
    return std::nullopt;
  Merge M;
  if (E.Kind == MK::GLoad || E.Kind == MK::GStore) {
    const Access *Lo = &E, *Hi = &L;
    if (Hi->Offset < Lo->Offset)
      std::swap(Lo, Hi);
    unsigned Words = Lo->Words + Hi->Words;
    if (Words > 4 || Hi->Offset != Lo->Offset + 4 * int64_t(Lo->Words) ||
        Hi->Data != Lo->Data + Lo->Words || Lo->Data % 2)
      return std::nullopt;
    std::string Name = E.Kind == MK::GLoad ? "GLOBAL_LOAD_DWORDX"
                                           : "GLOBAL_STORE_DWORDX";
    Name += char('0' + Words);
    Name += E.SAddr ? "_SADDR_vi" : "_vi";
    M.Opc = TC.opcode(Name);
    M.DataFirst = Lo->Data;
    M.Words = Words;
    M.Offset = Lo->Offset;
    return M.Opc == ~0u ? std::nullopt : std::optional<Merge>(M);
  }
  // DS read2/write2 offsets are dword counts of 8 bits each.
  auto DW = [](int64_t O) { return O >= 0 && O % 4 == 0 && O / 4 <= 255; };
  if (!DW(E.Offset) || !DW(L.Offset) || E.Offset == L.Offset)
    return std::nullopt;
  if (E.Kind == MK::DSRead) {
    const Access *Lo = &E, *Hi = &L;
    if (Lo->Data % 2 || Hi->Data != Lo->Data + 1)
      std::swap(Lo, Hi);
    if (Lo->Data % 2 || Hi->Data != Lo->Data + 1)
      return std::nullopt;
    M.Opc = TC.opcode("DS_READ2_B32_vi");
    M.DataFirst = Lo->Data;
    M.Words = 2;
    M.Off0 = Lo->Offset / 4;
    M.Off1 = Hi->Offset / 4;
  } else {
    M.Opc = TC.opcode("DS_WRITE2_B32_vi");
    M.Data0 = E.Data;
    M.Data1 = L.Data;
    M.Off0 = E.Offset / 4;
    M.Off1 = L.Offset / 4;
  }
  return M.Opc == ~0u ? std::nullopt : std::optional<Merge>(M);
}

MachineInstr *build(MachineBasicBlock &MBB, MachineInstr &At, const Access &E,
                    const Merge &M, const TargetInstrInfo &TII,
                    const TargetContext &TC) {
  MachineInstrBuilder B(*MBB.getParent(), nullptr);
  const MachineInstr &Src = *E.MI;
  unsigned NumExpl = Src.getNumExplicitOperands();
  switch (E.Kind) {
  case MK::GLoad:
    B = BuildMI(MBB, At.getIterator(), At.getDebugLoc(), TII.get(M.Opc),
                vregs(TC, M.DataFirst, M.Words));
    for (unsigned I = 1; I < NumExpl; ++I)
      if (I == E.OffIdx)
        B.addImm(M.Offset);
      else
        B.add(Src.getOperand(I));
    break;
  case MK::GStore:
    B = BuildMI(MBB, At.getIterator(), At.getDebugLoc(), TII.get(M.Opc));
    for (unsigned I = 0; I < NumExpl; ++I)
      if (I == E.OffIdx)
        B.addImm(M.Offset);
      else if (I == E.DataIdx)
        B.addReg(vregs(TC, M.DataFirst, M.Words));
      else
        B.add(Src.getOperand(I));
    break;
  case MK::DSRead:
    B = BuildMI(MBB, At.getIterator(), At.getDebugLoc(), TII.get(M.Opc),
                vregs(TC, M.DataFirst, 2));
    B.add(Src.getOperand(E.AddrIdx)).addImm(M.Off0).addImm(M.Off1).addImm(0);
    break;
  case MK::DSWrite:
    B = BuildMI(MBB, At.getIterator(), At.getDebugLoc(), TII.get(M.Opc));
    B.add(Src.getOperand(E.AddrIdx))
        .addReg(vregs(TC, M.Data0, 1))
        .addReg(vregs(TC, M.Data1, 1))
        .addImm(M.Off0)
        .addImm(M.Off1)
        .addImm(0);
    break;
  }
  for (MachineOperand &MO : B->explicit_operands())
    if (MO.isReg())
      MO.setIsKill(false);
  return B;
}

} // namespace

Expected<bool> MemWidenPass::run(LiftedModule &LM, LiftedFunction &LF) {
  const ISAFacts &F = Facts.get(LM);
  const TargetContext &TC = LM.target();
  if (!LF.MF)
    return false;
  RewriteGuard Guard(LM, LF, F);
  const TargetInstrInfo &TII = *LF.MF->getSubtarget().getInstrInfo();
  bool InPrologue = LF.PreloadEntry != nullptr;
  bool Changed = false;
  constexpr unsigned Window = 32;

  for (MachineBasicBlock &MBB : *LF.MF) {
    if (&MBB == LF.PreloadEntry)
      InPrologue = false;
    if (InPrologue)
      continue;
    for (auto EIt = MBB.begin(); EIt != MBB.end();) {
      std::optional<Access> E = decode(*EIt, F);
      if (!E) {
        ++EIt;
        continue;
      }
      InstrRecord RE = InstrRecord::fromMachineInstr(*EIt, F);
      MachineInstr *Merged = nullptr;
      unsigned Seen = 0;
      for (auto LIt = std::next(EIt); LIt != MBB.end() && Seen < Window;
           ++LIt) {
        if (LIt->isMetaInstruction())
          continue;
        ++Seen;
        InstrRecord RL = InstrRecord::fromMachineInstr(*LIt, F);
        std::optional<Access> L = decode(*LIt, F);
        std::optional<Merge> M;
        if (L)
          M = plan(*E, *L, TC);
        if (M) {
          // L moves up to E: it reads nothing E or anything in between
          // writes, and nothing in between touches what it writes.
          bool OK = true;
          for (const RegAccess &U : RL.Regs)
            if (!U.Def && RE.defines(U.Slots))
              OK = false;
          for (auto X = std::next(EIt); X != LIt && OK; ++X) {
            if (X->isMetaInstruction())
              continue;
            InstrRecord RX = InstrRecord::fromMachineInstr(*X, F);
            for (const RegAccess &U : RL.Regs)
              if (U.Def ? (RX.defines(U.Slots) || RX.reads(U.Slots))
                        : RX.defines(U.Slots))
                OK = false;
          }
          if (OK) {
            MachineInstr *ME = &*EIt, *ML = &*LIt;
            auto LNext = std::next(LIt);
            ML->removeFromParent();
            MachineInstr *W = build(MBB, *ME, *E, *M, TII, TC);
            ME->removeFromParent();
            // One operation fewer in flight for the counter it uses: lower
            // each later wait of that counter by one while the merged
            // operation may still be among the ones it lets through.
            uint8_t Ctr = (E->Kind == MK::DSRead || E->Kind == MK::DSWrite)
                              ? cnt::LGKM
                              : cnt::VM;
            SmallVector<std::pair<MachineInstr *, int64_t>, 4> OldWaits;
            unsigned After = 0;
            for (auto It = std::next(W->getIterator()); It != MBB.end();
                 ++It) {
              if (It->isMetaInstruction())
                continue;
              const OpcodeFacts &FX = F.get(It->getOpcode());
              if (FX.is(ic::Waitcnt) && It->getNumOperands() &&
                  It->getOperand(0).isImm() &&
                  F.target().opcodeName(It->getOpcode()).starts_with(
                      "S_WAITCNT_vi")) {
                WaitcntValue V =
                    WaitcntValue::decode(It->getOperand(0).getImm());
                if (!V.waitsOn(Ctr))
                  continue;
                unsigned N = V.get(Ctr);
                if (N <= After)
                  break; // The merged operation is complete here.
                OldWaits.push_back({&*It, It->getOperand(0).getImm()});
                V.set(Ctr, N - 1);
                It->getOperand(0).setImm(V.encode());
                continue;
              }
              if (FX.Counters & Ctr)
                ++After;
            }
            if (shouldRewrite() && Guard.accept()) {
              LF.MF->deleteMachineInstr(ME);
              LF.MF->deleteMachineInstr(ML);
              Merged = W;
              Changed = true;
              break;
            }
            for (auto &[MI, Imm] : OldWaits)
              MI->getOperand(0).setImm(Imm);
            MBB.insert(W->getIterator(), ME);
            MBB.insert(LNext, ML);
            W->eraseFromParent();
            LIt = ML->getIterator();
          }
        }
        if (blocksMotion(RL))
          break;
      }
      // A merged access may take a further neighbour (x2 + x1 -> x3 ...).
      EIt = Merged ? Merged->getIterator() : std::next(EIt);
    }
  }
  return Changed;
}
