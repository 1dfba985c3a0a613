//===- PatchInPlace.cpp ---------------------------------------------------===//
#include "asmevo/Rewrite/PatchInPlace.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Lift/InstrKinds.h"
#include "asmevo/Lift/LiftedModule.h"
#include "asmevo/Support/TargetContext.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/MC/MCDisassembler/MCDisassembler.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cstring>
#include <map>

using namespace llvm;

namespace asmevo {

/// Longest run of swapped instructions written as one patch (a scheduler's
/// window; longer runs are refused rather than searched).
static constexpr size_t MaxSwapWindow = 64;

static const ELFSection *codeSection(const CodeObject &CO, uint64_t Addr) {
  for (const ELFSection &S : CO.sections())
    if (S.isExec() && S.containsAddr(Addr))
      return &S;
  return nullptr;
}

Expected<Patch> patchInPlace(const CodeObject &K0, const CodeObject &K1,
                             const RebuildResult &R, const TargetContext *TC) {
  // Whatever is not code must be what it was: a patch changes code only.
  if (K0.kernels().size() != K1.kernels().size())
    return createStringError("the kernels changed");
  for (size_t I = 0; I < K0.kernels().size(); ++I) {
    const KernelInfo &A = K0.kernels()[I];
    const KernelInfo *B = K1.findKernel(A.Name);
    if (!B || A.EntryAddr != B->EntryAddr || A.KD.bytes() != B->KD.bytes())
      return createStringError(
          "kernel '%s': its descriptor or entry changed (a register count, "
          "say); a byte patch carries code only",
          A.Name.c_str());
  }
  if (K0.metadataYAML() != K1.metadataYAML())
    return createStringError("the metadata note changed; a byte patch "
                             "carries code only");
  Patch P;
  P.Bytes.assign(K0.image().begin(), K0.image().end());
  // Each instruction of the candidate with its section and length (it runs
  // to the next one; an instruction is at most 12 bytes: 8 and a literal),
  // in address order.
  struct Site {
    const AddressMapEntry *E;
    const ELFSection *S0, *S1;
    uint64_t Len;
  };
  std::vector<const AddressMapEntry *> Order;
  for (const AddressMapEntry &E : R.AddressMap) {
    if (!E.OrigAddr)
      return createStringError(
          "function '%s': an instruction was added at 0x%llx; addresses "
          "would shift",
          E.Function.str().c_str(), (unsigned long long)E.NewAddr);
    Order.push_back(&E);
  }
  // Entries have distinct addresses: any sort gives the one order.
  llvm::sort(Order, [](const AddressMapEntry *A, const AddressMapEntry *B) {
    return A->NewAddr < B->NewAddr;
  });
  std::vector<Site> Sites;
  for (size_t I = 0; I < Order.size(); ++I) {
    const AddressMapEntry &E = *Order[I];
    const ELFSection *S0 = codeSection(K0, E.NewAddr);
    const ELFSection *S1 = codeSection(K1, E.NewAddr);
    if (!S0 || !S1 || S0->Addr != S1->Addr)
      return createStringError("0x%llx is not in the same code section of "
                               "both objects",
                               (unsigned long long)E.NewAddr);
    uint64_t End = std::min(S1->Addr + S1->Size, E.NewAddr + 12);
    if (I + 1 < Order.size() && Order[I + 1]->NewAddr > E.NewAddr &&
        Order[I + 1]->NewAddr < End)
      End = Order[I + 1]->NewAddr;
    uint64_t Len = End - E.NewAddr;
    if (E.NewAddr - S1->Addr + Len > S1->Bytes.size() ||
        E.NewAddr - S0->Addr + Len > S0->Bytes.size())
      return createStringError("the instruction at 0x%llx runs past its "
                               "section",
                               (unsigned long long)E.NewAddr);
    Sites.push_back({&E, S0, S1, Len});
  }
  auto copy = [&](const Site &From, uint64_t Len) -> Error {
    uint64_t Off0 = From.E->NewAddr - From.S0->Addr;
    uint64_t FileOff = From.S0->Offset + Off0;
    if (FileOff + Len > P.Bytes.size())
      return createStringError("section '%s' lies outside the file",
                               From.S0->Name.c_str());
    std::memcpy(P.Bytes.data() + FileOff,
                From.S1->Bytes.data() + (From.E->NewAddr - From.S1->Addr), Len);
    P.PatchedBytes += Len;
    return Error::success();
  };
  for (size_t I = 0; I < Sites.size();) {
    const Site &A = Sites[I];
    if (*A.E->OrigAddr == A.E->NewAddr) {
      const uint8_t *New = A.S1->Bytes.data() + (A.E->NewAddr - A.S1->Addr);
      if (std::memcmp(New, A.S0->Bytes.data() + (A.E->NewAddr - A.S0->Addr),
                      A.Len) != 0) {
        if (Error Err = copy(A, A.Len))
          return std::move(Err);
        ++P.PatchedInstructions;
      }
      ++I;
      continue;
    }
    // Instructions that swapped places: the smallest run from here whose
    // original ranges tile exactly the bytes the run occupies now (one
    // function, one section, no instruction added, removed or resized).
    // The run is written as the candidate laid it out; nothing outside it
    // moves.
    uint64_t Lo = A.E->NewAddr;
    std::optional<size_t> Close;
    for (size_t J = I; J < Sites.size() && J < I + MaxSwapWindow; ++J) {
      const Site &B = Sites[J];
      if (B.E->Function != A.E->Function || B.S1 != A.S1)
        break;
      std::vector<std::pair<uint64_t, uint64_t>> Orig;
      for (size_t K = I; K <= J; ++K)
        Orig.push_back({*Sites[K].E->OrigAddr, Sites[K].Len});
      llvm::sort(Orig);
      uint64_t At = Lo;
      bool Tiles = true;
      for (auto &[O, L] : Orig) {
        if (O != At) {
          Tiles = false;
          break;
        }
        At += L;
      }
      if (Tiles && At == B.E->NewAddr + B.Len) {
        Close = J;
        break;
      }
    }
    if (!Close)
      return createStringError(
          "function '%s': the instruction of 0x%llx now sits at 0x%llx, "
          "outside any run of swapped instructions that keeps its bytes",
          A.E->Function.str().c_str(), (unsigned long long)*A.E->OrigAddr,
          (unsigned long long)A.E->NewAddr);
    // Code that reads the PC, and control flow, keep their places: their
    // meaning depends on where they are.
    if (!TC)
      return createStringError(
          "function '%s': instructions swapped at 0x%llx, and nothing here "
          "decodes them to check; no patch",
          A.E->Function.str().c_str(), (unsigned long long)Lo);
    for (size_t K = I; K <= *Close; ++K) {
      const Site &B = Sites[K];
      MCInst Inst;
      uint64_t Size = 0;
      ArrayRef<uint8_t> Bytes(B.S1->Bytes.data() + (B.E->NewAddr - B.S1->Addr),
                              B.Len);
      if (TC->disassembler().getInstruction(Inst, Size, Bytes, B.E->NewAddr,
                                            nulls()) != MCDisassembler::Success)
        return createStringError(
            "function '%s': 0x%llx does not decode; no patch",
            B.E->Function.str().c_str(), (unsigned long long)B.E->NewAddr);
      const MCInstrDesc &D = TC->instrInfo().get(Inst.getOpcode());
      StringRef Name = TC->opcodeName(Inst.getOpcode());
      if (D.isBranch() || D.isCall() || D.isReturn() || D.isIndirectBranch() ||
          classifyFlow(Name) != FlowKind::None || isGetPC(Name))
        return createStringError(
            "function '%s': instructions swapped around %s at 0x%llx, "
            "which depends on its address; no patch",
            B.E->Function.str().c_str(), Name.str().c_str(),
            (unsigned long long)B.E->NewAddr);
    }
    const Site &Last = Sites[*Close];
    if (Error Err = copy(A, Last.E->NewAddr + Last.Len - Lo))
      return std::move(Err);
    P.PatchedInstructions += *Close - I + 1;
    I = *Close + 1;
  }
  return std::move(P);
}

unsigned padRemovedNops(LiftedModule &LM) {
  const TargetContext &TC = LM.target();
  const CodeObject &K0 = LM.original();
  unsigned Padded = 0;
  for (LiftedFunction &LF : LM.functions()) {
    if (!LF.Simple || !LF.MF)
      continue;
    MachineFunction &MF = *LF.MF;
    // Every instruction still there, by its original address.
    std::map<uint64_t, MachineInstr *> Present;
    for (MachineBasicBlock &MBB : MF)
      for (MachineInstr &MI : MBB)
        if (auto A = LiftedModule::originalAddress(MI))
          Present[*A] = &MI;
    if (Present.empty())
      continue;
    auto InK0 = K0.bytesAt(LF.Range.Addr, LF.Range.Size);
    if (!InK0) {
      consumeError(InK0.takeError());
      continue;
    }
    ArrayRef<uint8_t> Bytes = *InK0;
    for (uint64_t Off = 0; Off < Bytes.size();) {
      MCInst Inst;
      uint64_t Size = 0;
      uint64_t Addr = LF.Range.Addr + Off;
      if (TC.disassembler().getInstruction(Inst, Size, Bytes.drop_front(Off),
                                           Addr, nulls()) !=
              MCDisassembler::Success ||
          !Size)
        break; // Padding after the code, or data: nothing to put back.
      Off += Size;
      if (Present.count(Addr) ||
          !TC.opcodeName(Inst.getOpcode()).starts_with("S_NOP"))
        continue;
      // Before what followed it; after the last instruction when nothing
      // did (never past a terminator: the end of a block that has one).
      auto Next = Present.upper_bound(Addr);
      MachineBasicBlock *MBB;
      MachineBasicBlock::iterator At;
      if (Next != Present.end()) {
        MBB = Next->second->getParent();
        At = Next->second->getIterator();
      } else {
        MachineInstr *Last = std::prev(Present.end())->second;
        MBB = Last->getParent();
        At = MBB->getFirstTerminator();
        if (At == MBB->end())
          At = std::next(Last->getIterator());
      }
      const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
      MachineInstr *Nop =
          BuildMI(*MBB, At, DebugLoc(), TII.get(Inst.getOpcode())).addImm(0);
      LiftedModule::setOriginalAddress(*Nop, Addr);
      Present[Addr] = Nop;
      ++Padded;
    }
  }
  return Padded;
}

} // namespace asmevo
