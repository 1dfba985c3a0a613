//===- MemoryModel.cpp - Late completion of memory operations -------------===//
//
// Counter semantics (AMD "CDNA3 Instruction Set Architecture", section 4.4
// "Data Dependency Resolution" / s_waitcnt; GFX9 counters): VM_CNT counts
// vector memory operations and returns them in issue order; LGKM_CNT counts
// LDS, GDS, scalar memory and message operations, in order only while all
// outstanding ones are LDS; FLAT operations count on both and may return
// out of order. When an s_waitcnt leaves N operations outstanding, the
// emulator keeps in flight the N that a program assuming more order than
// the hardware guarantees would most likely expect to be done: the oldest
// operations wherever the order is free.
//
//===----------------------------------------------------------------------===//
#include "Machine.h"
#include "asmevo/Analysis/ISAFacts.h"
#include "asmevo/Analysis/InstrRecord.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

static constexpr unsigned MaxVmCnt = 63;   // GFX9: 6-bit vmcnt
static constexpr unsigned MaxLgkmCnt = 15; // GFX9: 4-bit lgkmcnt

static void markRegs(Wave &W, const PendingOp &Op, int Delta) {
  for (unsigned K = 0; K < Op.DstCount; ++K) {
    uint8_t &C = Op.DstFile == 0 ? W.PendS[(Op.DstReg + K) & 127]
                                 : W.PendV[std::min<unsigned>(
                                       Op.DstReg + K, W.NumVRegs - 1)];
    C = uint8_t(C + Delta);
  }
  W.NumPendRegs += Delta * int(Op.DstCount);
}

void Machine::applyStore(Wave &W, PendingOp *Op) {
  if (Op->Applied)
    return;
  Op->Applied = true;
  if (Op->T == PendingOp::Store) {
    for (unsigned K = 0; K < Op->NumWrites; ++K)
      if (Op->WHost[K])
        std::memcpy(Op->WHost[K], Op->WData[K], Op->WLen[K]);
    if (W.NumPendStores) {
      --W.NumPendStores;
      --PendStoresAll;
    }
  } else if (Op->T == PendingOp::LdsWrite || Op->T == PendingOp::LdsDma) {
    Workgroup &G = *W.WG;
    for (unsigned K = 0; K < Op->NumWrites; ++K) {
      uint64_t A = Op->WAddr[K];
      unsigned Len = Op->WLen[K];
      if (A + Len > G.LDS.size())
        continue; // reported at issue
      std::memcpy(G.LDS.data() + A, Op->WData[K], Len);
      if (Opt.RaceChecks)
        ldsShadowWrite(W, Op->Inst, A, Len);
    }
    if (W.NumPendStores) {
      --W.NumPendStores;
      --PendStoresAll;
    }
  }
}

void Machine::complete(Wave &W, PendingOp *Op) {
  switch (Op->T) {
  case PendingOp::LoadS:
    for (unsigned K = 0; K < Op->DstCount; ++K)
      W.S[(Op->DstReg + K) & 127] = Op->Data[K];
    markRegs(W, *Op, -1);
    break;
  case PendingOp::LoadV: {
    uint64_t E = Op->Exec;
    for (unsigned K = 0; K < Op->DstCount; ++K) {
      unsigned Slot = std::min<unsigned>(Op->DstReg + K, W.NumVRegs - 1);
      uint32_t *Dst = W.vslot(Slot);
      const uint32_t *Src = Op->Data + K * WaveSize;
      if (Op->DstMask == ~0u) {
        for (unsigned L = 0; L < WaveSize; ++L)
          if ((E >> L) & 1)
            Dst[L] = Src[L];
      } else {
        uint32_t Mk = Op->DstMask;
        for (unsigned L = 0; L < WaveSize; ++L)
          if ((E >> L) & 1)
            Dst[L] = (Dst[L] & ~Mk) | ((Src[L] << Op->DstShift) & Mk);
      }
    }
    markRegs(W, *Op, -1);
    break;
  }
  case PendingOp::Store:
  case PendingOp::LdsWrite:
  case PendingOp::LdsDma:
    applyStore(W, Op);
    break;
  case PendingOp::Nothing:
    break;
  }
  if (Op->Counters & PendingOp::VM)
    --W.VmCnt;
  if (Op->Counters & PendingOp::LGKM)
    --W.LgkmCnt;
  W.Pool.push_back(Op);
}

/// Completes operations counted by \p Ctr until at most \p Target remain.
static void drain(Machine &M, Wave &W, uint8_t Ctr, unsigned Target) {
  auto Count = [&] { return Ctr == PendingOp::VM ? W.VmCnt : W.LgkmCnt; };
  while (Count() > Target) {
    // Candidates: operations on this counter, oldest first.
    PendingOp *Pick = nullptr;
    size_t PickIdx = 0;
    bool Ordered = true;
    if (Ctr == PendingOp::LGKM) {
      for (PendingOp *Op : W.Pending)
        if ((Op->Counters & PendingOp::LGKM) && !Op->IsLDS)
          Ordered = false;
    }
    if (!M.Opt.LateCompletion)
      Ordered = true;
    if (Ordered) {
      // In order, except that FLAT operations on VM_CNT are free: keep
      // them in flight while an in-order one can complete instead.
      for (size_t I = 0; I < W.Pending.size(); ++I) {
        PendingOp *Op = W.Pending[I];
        if (!(Op->Counters & Ctr))
          continue;
        if (Ctr == PendingOp::VM && Op->IsFLAT && M.Opt.LateCompletion) {
          if (!Pick) {
            Pick = Op;
            PickIdx = I;
          }
          continue;
        }
        Pick = Op;
        PickIdx = I;
        break;
      }
    } else {
      // Out of order: complete the youngest, leaving the oldest in flight.
      for (size_t I = W.Pending.size(); I-- > 0;) {
        PendingOp *Op = W.Pending[I];
        if (Op->Counters & Ctr) {
          Pick = Op;
          PickIdx = I;
          break;
        }
      }
    }
    if (!Pick)
      break;
    W.Pending.erase(W.Pending.begin() + PickIdx);
    M.complete(W, Pick);
  }
}

void Machine::waitCounters(Wave &W, unsigned Vm, unsigned Lgkm) {
  if (W.VmCnt > Vm)
    drain(*this, W, PendingOp::VM, Vm);
  if (W.LgkmCnt > Lgkm)
    drain(*this, W, PendingOp::LGKM, Lgkm);
}

void Machine::completeAll(Wave &W) {
  while (!W.Pending.empty()) {
    PendingOp *Op = W.Pending.front();
    W.Pending.pop_front();
    complete(W, Op);
  }
  W.VmCnt = W.LgkmCnt = 0;
}

void Machine::issue(Wave &W, PendingOp *Op) {
  // The counters an operation increments are lib/Analysis's (ISAFacts, the
  // table the static waitcnt analysis uses); the handlers choose their own
  // for the operation's kind, and a disagreement is an emulator or table
  // bug that must not pass silently.
  uint8_t Want = Prog.Recs[Op->Inst].F->Counters & (cnt::VM | cnt::LGKM);
  if (LLVM_UNLIKELY(Want != Op->Counters)) {
    report(W, Prog.Insts[Op->Inst], Violation::Unimplemented, -1,
           "the emulator counts this operation on " +
               Twine(Op->Counters & PendingOp::VM ? "vmcnt " : "") +
               (Op->Counters & PendingOp::LGKM ? "lgkmcnt" : "") +
               ", lib/Analysis's ISA facts on " +
               (Want & cnt::VM ? "vmcnt " : "") +
               (Want & cnt::LGKM ? "lgkmcnt" : ""));
    Op->Counters = Want;
  }
  // A full counter stalls the wave until an operation returns.
  if ((Op->Counters & PendingOp::VM) && W.VmCnt >= MaxVmCnt)
    drain(*this, W, PendingOp::VM, MaxVmCnt - 1);
  if ((Op->Counters & PendingOp::LGKM) && W.LgkmCnt >= MaxLgkmCnt)
    drain(*this, W, PendingOp::LGKM, MaxLgkmCnt - 1);
  if (Op->Counters & PendingOp::VM)
    ++W.VmCnt;
  if (Op->Counters & PendingOp::LGKM)
    ++W.LgkmCnt;
  if (Op->T == PendingOp::LoadS || Op->T == PendingOp::LoadV)
    markRegs(W, *Op, +1);
  if ((Op->T == PendingOp::Store || Op->T == PendingOp::LdsWrite ||
       Op->T == PendingOp::LdsDma) &&
      !Op->Applied) {
    ++W.NumPendStores;
    ++PendStoresAll;
  }
  W.Pending.push_back(Op);
  if (!Opt.LateCompletion) {
    W.Pending.pop_back();
    complete(W, Op);
  }
}

void Machine::flushOwnStores(Wave &W, uint64_t Lo, uint64_t Hi, bool Lds) {
  if (!W.NumPendStores)
    return;
  for (PendingOp *Op : W.Pending) {
    if (Op->Applied)
      continue;
    bool IsLds = Op->T == PendingOp::LdsWrite || Op->T == PendingOp::LdsDma;
    if (IsLds != Lds || (Op->T != PendingOp::Store && !IsLds))
      continue;
    if (Op->Lo < Hi && Lo < Op->Hi)
      applyStore(W, Op);
  }
}

void Machine::checkStoreRace(Wave &W, const DInst &I, const uint64_t *Addr,
                             const uint32_t *Len, uint64_t Mask, bool Lds) {
  uint64_t Lo = ~0ull, Hi = 0;
  for (unsigned L = 0; L < WaveSize; ++L)
    if ((Mask >> L) & 1) {
      Lo = std::min(Lo, Addr[L]);
      Hi = std::max(Hi, Addr[L] + Len[L]);
    }
  if (Lo >= Hi)
    return;
  for (Wave *O : Resident) {
    if (O == &W || !O->NumPendStores)
      continue;
    if (Lds && O->WG != W.WG)
      continue;
    for (PendingOp *Op : O->Pending) {
      if (Op->Applied)
        continue;
      bool IsLds = Op->T == PendingOp::LdsWrite || Op->T == PendingOp::LdsDma;
      if (IsLds != Lds || (Op->T != PendingOp::Store && !IsLds))
        continue;
      if (!(Op->Lo < Hi && Lo < Op->Hi))
        continue;
      for (unsigned K = 0; K < Op->NumWrites; ++K)
        for (unsigned L = 0; L < WaveSize; ++L)
          if (((Mask >> L) & 1) && Op->WAddr[K] < Addr[L] + Len[L] &&
              Addr[L] < Op->WAddr[K] + Op->WLen[K]) {
            report(W, I, Lds ? Violation::LdsRace : Violation::StoreRace, int(L),
                   Twine("reads ") + (Lds ? "LDS offset " : "address ") +
                       Twine(utohexstr(Addr[L])) +
                       " that wave " + Twine(O->Id) + " of workgroup (" +
                       Twine(O->WG->Id[0]) + "," + Twine(O->WG->Id[1]) + "," +
                       Twine(O->WG->Id[2]) + ") stored to at pc " +
                       utohexstr(Prog.Insts[Op->Inst].Addr) +
                       " without a completed s_waitcnt");
            return;
          }
    }
  }
}

static const char *fileName(uint8_t F) {
  return F == 0 ? "s" : F == 1 ? "v" : "a";
}

void Machine::checkInFlight(Wave &W, const DInst &I) {
  // Memory instructions may overwrite the destination of an older load of
  // the same in-order queue; everything else must wait for it.
  bool IsMem = I.Flags & (FIsVMEM | FIsDS | FIsSMEM);
  uint64_t Exec = W.exec();
  auto Check = [&](const RegRange &RR, bool IsWrite) {
    for (unsigned K = 0; K < RR.Count; ++K) {
      unsigned Reg = RR.Reg + K;
      bool Pend;
      unsigned Slot = 0;
      if (RR.File == 0) {
        Pend = W.PendS[Reg & 127];
      } else {
        Slot = Reg + (RR.File == 2 ? W.AccOff : 0);
        Slot = std::min<unsigned>(Slot, W.NumVRegs - 1);
        Pend = W.PendV[Slot];
      }
      if (!Pend)
        continue;
      // Which operation? Lane overlap matters for VGPRs only.
      for (PendingOp *Op : W.Pending) {
        if (Op->T != PendingOp::LoadS && Op->T != PendingOp::LoadV)
          continue;
        if ((RR.File == 0) != (Op->DstFile == 0))
          continue;
        unsigned R0 = Op->DstReg, R1 = Op->DstReg + Op->DstCount;
        unsigned Probe = RR.File == 0 ? (Reg & 127) : Slot;
        if (Probe < R0 || Probe >= R1)
          continue;
        uint64_t Overlap = RR.File == 0 ? 1 : (Op->Exec & Exec);
        if (!Overlap)
          continue;
        if (IsWrite && IsMem && Op->Counters == PendingOp::VM &&
            (I.Flags & FIsVMEM) && !Op->IsFLAT)
          continue; // in-order VMEM write-after-write
        int Lane = RR.File == 0 ? -1 : int(__builtin_ctzll(Overlap));
        std::string RegName = std::string(fileName(RR.File)) +
                              std::to_string(RR.File == 0 ? (Reg & 127) : Reg);
        report(W, I,
               IsWrite ? Violation::InFlightWrite : Violation::InFlightRead,
               Lane,
               Twine(IsWrite ? "overwrites " : "reads ") + RegName +
                   " while the load at pc " +
                   utohexstr(Prog.Insts[Op->Inst].Addr) + " ('" +
                   Prog.Text[Op->Inst].Text +
                   "') that writes it is still in flight (missing or too "
                   "weak s_waitcnt)");
        return true;
      }
    }
    return false;
  };
  for (unsigned K = 0; K < I.NumReads; ++K)
    if (Check(I.Reads[K], false))
      return;
  for (unsigned K = 0; K < I.NumWrites; ++K)
    if (Check(I.Writes[K], true))
      return;
}
