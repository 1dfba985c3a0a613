//===- PatchInPlace.cpp ---------------------------------------------------===//
#include "asmevo/Rewrite/PatchInPlace.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Lift/InstrKinds.h"
#include "asmevo/Lift/LiftedModule.h"
#include "asmevo/Support/TargetContext.h"
#include "asmevo/Transforms/InstrAnchor.h"
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

namespace {
/// One instruction of a candidate as the patcher sees it: where it was in
/// K0, where it is now, and its bytes there.
struct Placed {
  StringRef Function;
  uint64_t OrigAddr = 0;
  uint64_t NewAddr = 0;
  ArrayRef<uint8_t> Bytes;
};
} // namespace

/// Writes \p Sites (in address order, each function's laid out without
/// gaps) over P.Bytes, a copy of \p Base's image whose code sections hold
/// K0's code at K0's addresses: an instruction at its own address where its
/// bytes differ from K0's, a run of swapped instructions as a whole. An
/// error names the first instruction that cannot be written so.
static Error writeSites(const CodeObject &K0, const CodeObject &Base,
                        ArrayRef<Placed> Sites, const TargetContext *TC,
                        Patch &P) {
  auto copy = [&](const Placed &S) -> Error {
    const ELFSection *Sec = codeSection(Base, S.NewAddr);
    uint64_t FileOff = Sec ? Sec->Offset + (S.NewAddr - Sec->Addr) : 0;
    if (!Sec || S.NewAddr - Sec->Addr + S.Bytes.size() > Sec->Size ||
        FileOff + S.Bytes.size() > P.Bytes.size())
      return createStringError("0x%llx lies outside the code the file holds",
                               (unsigned long long)S.NewAddr);
    std::memcpy(P.Bytes.data() + FileOff, S.Bytes.data(), S.Bytes.size());
    P.PatchedBytes += S.Bytes.size();
    return Error::success();
  };
  for (size_t I = 0; I < Sites.size();) {
    const Placed &A = Sites[I];
    if (A.OrigAddr == A.NewAddr) {
      auto Old = K0.bytesAt(A.NewAddr, A.Bytes.size());
      if (!Old)
        return Old.takeError();
      if (*Old != A.Bytes) {
        if (Error Err = copy(A))
          return Err;
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
    uint64_t Lo = A.NewAddr;
    const ELFSection *Sec = codeSection(K0, Lo);
    std::optional<size_t> Close;
    for (size_t J = I; J < Sites.size() && J < I + MaxSwapWindow; ++J) {
      const Placed &B = Sites[J];
      if (B.Function != A.Function || codeSection(K0, B.NewAddr) != Sec)
        break;
      std::vector<std::pair<uint64_t, uint64_t>> Orig;
      for (size_t K = I; K <= J; ++K)
        Orig.push_back({Sites[K].OrigAddr, Sites[K].Bytes.size()});
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
      if (Tiles && At == B.NewAddr + B.Bytes.size()) {
        Close = J;
        break;
      }
    }
    if (!Close)
      return createStringError(
          "function '%s': the instruction of 0x%llx now sits at 0x%llx, "
          "outside any run of swapped instructions that keeps its bytes",
          A.Function.str().c_str(), (unsigned long long)A.OrigAddr,
          (unsigned long long)A.NewAddr);
    // Code that reads the PC, and control flow, keep their places: their
    // meaning depends on where they are.
    if (!TC)
      return createStringError(
          "function '%s': instructions swapped at 0x%llx, and nothing here "
          "decodes them to check; no patch",
          A.Function.str().c_str(), (unsigned long long)Lo);
    for (size_t K = I; K <= *Close; ++K) {
      const Placed &B = Sites[K];
      MCInst Inst;
      uint64_t Size = 0;
      if (TC->disassembler().getInstruction(Inst, Size, B.Bytes, B.NewAddr,
                                            nulls()) != MCDisassembler::Success)
        return createStringError(
            "function '%s': 0x%llx does not decode; no patch",
            B.Function.str().c_str(), (unsigned long long)B.NewAddr);
      const MCInstrDesc &D = TC->instrInfo().get(Inst.getOpcode());
      StringRef Name = TC->opcodeName(Inst.getOpcode());
      if (D.isBranch() || D.isCall() || D.isReturn() || D.isIndirectBranch() ||
          classifyFlow(Name) != FlowKind::None || isGetPC(Name))
        return createStringError(
            "function '%s': instructions swapped around %s at 0x%llx, "
            "which depends on its address; no patch",
            B.Function.str().c_str(), Name.str().c_str(),
            (unsigned long long)B.NewAddr);
    }
    for (size_t K = I; K <= *Close; ++K)
      if (Error Err = copy(Sites[K]))
        return Err;
    P.PatchedInstructions += *Close - I + 1;
    I = *Close + 1;
  }
  return Error::success();
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
  // Each instruction of the candidate with its bytes (it runs to the next
  // one; an instruction is at most 12 bytes: 8 and a literal), in address
  // order.
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
  std::vector<Placed> Sites;
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
    Sites.push_back(
        {E.Function, *E.OrigAddr, E.NewAddr,
         ArrayRef<uint8_t>(S1->Bytes.data() + (E.NewAddr - S1->Addr), Len)});
  }
  if (Error Err = writeSites(K0, K0, Sites, TC, P))
    return std::move(Err);
  return std::move(P);
}

Expected<Patch> patchOnlyFunctions(const LiftedModule &LM,
                                   const std::set<std::string> &Functions,
                                   const CodeObject &Base, RebuildResult &R) {
  const CodeObject &K0 = LM.original();
  const TargetContext &TC = LM.target();
  Patch P;
  P.Bytes.assign(Base.image().begin(), Base.image().end());
  InstrAnchorer Anchorer(LM);
  for (const LiftedFunction &LF : LM.functions()) {
    if (!LF.PatchMF || !Functions.count(LF.Range.Name))
      continue;
    auto Refuse = [&](const Twine &Why) {
      return createStringError((Twine("function '") + LF.Range.Name +
                                "' is not simple (" + LF.Reason +
                                "), so its edits must be byte patches: " + Why)
                                   .str());
    };
    // The instructions as the edits left them, laid out from the
    // function's start: the candidate's layout, were it rebuilt.
    std::vector<std::vector<uint8_t>> Bytes;
    std::vector<Placed> Sites;
    std::set<uint64_t> Kept;
    uint64_t At = LF.Range.Addr;
    for (const MachineBasicBlock &MBB : *LF.PatchMF)
      for (const MachineInstr &MI : MBB) {
        if (MI.isMetaInstruction())
          continue;
        std::optional<uint64_t> Orig = LM.addressOf(MI);
        if (!Orig)
          return Refuse("an instruction was added at 0x" +
                        Twine::utohexstr(At) + "; addresses would shift");
        auto A = Anchorer.anchor(MI);
        if (!A)
          return Refuse(toString(A.takeError()));
        auto Old = K0.bytesAt(*Orig, A->Bytes.size());
        if (!Old)
          return Old.takeError();
        if (*Old != ArrayRef<uint8_t>(A->Bytes)) {
          // An edited instruction is encoded from its operands: refuse
          // when the original does not survive that (bits MachineIR cannot
          // hold), as the emitter does.
          MCInst OrigInst;
          uint64_t Size = 0;
          auto Window = K0.bytesAt(
              *Orig,
              std::min<uint64_t>(12, LF.Range.Addr + LF.Range.Size - *Orig));
          bool Same = false;
          if (Window && TC.disassembler().getInstruction(
                            OrigInst, Size, *Window, *Orig, nulls()) ==
                            MCDisassembler::Success) {
            auto Again = Anchorer.encode(OrigInst);
            Same =
                Again && ArrayRef<uint8_t>(*Again) == Window->take_front(Size);
            if (!Again)
              consumeError(Again.takeError());
          }
          if (!Window)
            consumeError(Window.takeError());
          if (!Same)
            return Refuse("the instruction at 0x" + Twine::utohexstr(*Orig) +
                          " was edited, but LLVM cannot re-encode it "
                          "without losing bits");
        }
        Kept.insert(*Orig);
        Bytes.push_back(std::move(A->Bytes));
        Sites.push_back({LF.Range.Name, *Orig, At, {}});
        At += Bytes.back().size();
      }
    for (size_t I = 0; I < Sites.size(); ++I)
      Sites[I].Bytes = Bytes[I];
    // A removed instruction whose successors kept their places (the last
    // one, say) would leave its bytes behind, and they would still run.
    for (const LiftedModule::LiftPrint &LP : LM.liftPrints(*LF.PatchMF))
      if (!Kept.count(LP.Addr))
        return Refuse("the instruction at 0x" + Twine::utohexstr(LP.Addr) +
                      " was removed; its bytes would stay");
    Patch One;
    One.Bytes = std::move(P.Bytes);
    if (Error Err = writeSites(K0, Base, Sites, &TC, One))
      return Refuse(toString(std::move(Err)));
    P.Bytes = std::move(One.Bytes);
    P.PatchedInstructions += One.PatchedInstructions;
    P.PatchedBytes += One.PatchedBytes;
    P.Functions.push_back({LF.Range.Name, LF.Reason, One.PatchedInstructions});
    // The address map says where each instruction went, as a rebuild's
    // does: the verifier pairs K1 with K0 by it.
    StringRef Name = R.keepName(LF.Range.Name);
    llvm::erase_if(R.AddressMap, [&](const AddressMapEntry &E) {
      return E.NewAddr >= LF.Range.Addr &&
             E.NewAddr < LF.Range.Addr + LF.Range.Size;
    });
    for (const Placed &S : Sites)
      R.AddressMap.push_back({S.NewAddr, S.OrigAddr, Name});
  }
  llvm::sort(R.AddressMap,
             [](const AddressMapEntry &A, const AddressMapEntry &B) {
               return A.NewAddr < B.NewAddr;
             });
  return std::move(P);
}

unsigned padRemovedNops(LiftedModule &LM) {
  unsigned Padded = 0;
  for (LiftedFunction &LF : LM.functions())
    if (LF.Simple && LF.MF)
      Padded += padRemovedNops(LM, LF, *LF.MF);
  return Padded;
}

unsigned padRemovedNops(LiftedModule &LM, const LiftedFunction &LF,
                        MachineFunction &MF) {
  const TargetContext &TC = LM.target();
  const CodeObject &K0 = LM.original();
  unsigned Padded = 0;
  // Every instruction still there, by its original address.
  std::map<uint64_t, MachineInstr *> Present;
  for (MachineBasicBlock &MBB : MF)
    for (MachineInstr &MI : MBB)
      if (auto A = LiftedModule::originalAddress(MI))
        Present[*A] = &MI;
  if (Present.empty())
    return 0;
  auto InK0 = K0.bytesAt(LF.Range.Addr, LF.Range.Size);
  if (!InK0) {
    consumeError(InK0.takeError());
    return 0;
  }
  ArrayRef<uint8_t> Bytes = *InK0;
  for (uint64_t Off = 0; Off < Bytes.size();) {
    MCInst Inst;
    uint64_t Size = 0;
    uint64_t Addr = LF.Range.Addr + Off;
    if (TC.disassembler().getInstruction(Inst, Size, Bytes.drop_front(Off),
                                         Addr,
                                         nulls()) != MCDisassembler::Success ||
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
  return Padded;
}

} // namespace asmevo
