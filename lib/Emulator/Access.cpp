//===- Access.cpp - Address translation and LDS race shadow ---------------===//
#include "Machine.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

uint8_t *Machine::global(Wave &W, const DInst &I, uint64_t Addr, uint32_t Len,
                         bool Write, int Lane) {
  Allocation *A = W.MemCache;
  if (A && Addr >= A->Base && fitsIn(Addr - A->Base, Len, A->Size) &&
      (!Write || !A->ReadOnly))
    return A->data() + (Addr - A->Base);
  AccessStatus S;
  uint8_t *P = Mem.translate(Addr, Len, S, Write);
  if (P) {
    W.MemCache = Mem.find(Addr);
    return P;
  }
  switch (S) {
  case AccessStatus::Unmapped:
    report(W, I, Violation::OutOfBounds, Lane,
           Twine(Write ? "stores " : "loads ") + Twine(Len) +
               " bytes at unmapped address 0x" + utohexstr(Addr));
    break;
  case AccessStatus::Guard: {
    const Allocation *G = Mem.find(Addr);
    int64_t Off = int64_t(Addr) - int64_t(G->Base);
    report(W, I, Violation::GuardBand, Lane,
           Twine(Write ? "stores " : "loads ") + Twine(Len) +
               " bytes at offset " + Twine(Off) + " of '" + G->Name +
               "' (size " + Twine(G->Size) + "): outside the buffer");
    break;
  }
  case AccessStatus::ReadOnly:
    report(W, I, Violation::ReadOnlyWrite, Lane,
           "stores to read-only '" + Mem.find(Addr)->Name + "' at 0x" +
               utohexstr(Addr));
    break;
  case AccessStatus::Ok:
    break;
  }
  return nullptr;
}

uint8_t *Machine::lds(Wave &W, const DInst &I, uint64_t Off, uint32_t Len,
                      int Lane) {
  Workgroup &G = *W.WG;
  if (fitsIn(Off, Len, G.LdsSize))
    return G.LDS.data() + Off;
  report(W, I, Violation::LdsOutOfRange, Lane,
         "LDS access of " + Twine(Len) + " bytes at offset " + Twine(Off) +
             " beyond the " + Twine(G.LdsSize) + " bytes allocated");
  return nullptr;
}

uint8_t *Machine::scratch(Wave &W, const DInst &I, uint64_t Off, uint32_t Len,
                          int Lane) {
  if (fitsIn(Off, Len, W.ScratchPerLane) && Lane >= 0)
    return W.Scratch.data() + size_t(Lane) * W.ScratchPerLane + Off;
  report(W, I, Violation::ScratchOutOfRange, Lane,
         "private (scratch) access of " + Twine(Len) + " bytes at offset " +
             Twine(int64_t(Off)) + " beyond the " + Twine(W.ScratchPerLane) +
             " bytes per work-item");
  return nullptr;
}

// LDS race detection: within one barrier epoch, a dword written by one wave
// and read (or read and then written) by another is a race: the program
// has no barrier ordering the two accesses (ISA: LDS is coherent, but the
// order of accesses of different waves is only defined by s_barrier).

void Machine::ldsShadowRead(Wave &W, const DInst &I, uint64_t Off,
                            uint32_t Len, int Lane) {
  Workgroup &G = *W.WG;
  uint32_t E = G.Epoch, Me = W.Id + 1;
  uint32_t REpoch = (E & 0xffff) << 16, Bit = 1u << (W.Id & 15);
  uint64_t D0 = Off / 4, D1 = std::min<uint64_t>((Off + Len + 3) / 4,
                                                 G.ShWriter.size());
  for (uint64_t D = D0; D < D1; ++D) {
    uint32_t Wr = G.ShWriter[D];
    if ((Wr >> 6) == E && (Wr & 63) != Me) {
      report(W, I, Violation::LdsRace, Lane,
             "reads LDS offset " + Twine(D * 4) + " written by wave " +
                 Twine((Wr & 63) - 1) +
                 " with no s_barrier in between (missing barrier)");
      return;
    }
    uint32_t R = G.ShRead[D];
    G.ShRead[D] = ((R & 0xffff0000u) == REpoch ? R : REpoch) | Bit;
  }
}

void Machine::ldsShadowReadLanes(Wave &W, const DInst &I, const uint64_t *Addr,
                                 uint64_t Mask, uint32_t Len) {
  Workgroup &G = *W.WG;
  uint32_t E = G.Epoch, Me = W.Id + 1;
  uint32_t REpoch = (E & 0xffff) << 16, Bit = 1u << (W.Id & 15);
  uint64_t Size = G.ShWriter.size();
  uint32_t *Wr = G.ShWriter.data(), *Rd = G.ShRead.data();
  uint64_t PrevD0 = ~0ull, PrevD1 = 0;
  for (uint64_t Bits = Mask; Bits; Bits &= Bits - 1) {
    unsigned L = __builtin_ctzll(Bits);
    uint64_t D0 = Addr[L] / 4, D1 = std::min<uint64_t>((Addr[L] + Len + 3) / 4,
                                                       Size);
    if (D0 >= PrevD0 && D1 <= PrevD1)
      continue; // same dwords as the previous lane (broadcast reads)
    PrevD0 = D0;
    PrevD1 = D1;
    for (uint64_t D = D0; D < D1; ++D) {
      uint32_t X = Wr[D];
      if ((X >> 6) == E && (X & 63) != Me) {
        report(W, I, Violation::LdsRace, int(L),
               "reads LDS offset " + Twine(D * 4) + " written by wave " +
                   Twine((X & 63) - 1) +
                   " with no s_barrier in between (missing barrier)");
        return;
      }
      uint32_t R = Rd[D];
      Rd[D] = ((R & 0xffff0000u) == REpoch ? R : REpoch) | Bit;
    }
  }
}

void Machine::ldsShadowWrite(Wave &W, uint32_t InstIdx, uint64_t Off,
                             uint32_t Len) {
  Workgroup &G = *W.WG;
  if (G.ShWriter.empty())
    return;
  uint32_t E = G.Epoch;
  uint32_t REpoch = (E & 0xffff) << 16, Bit = 1u << (W.Id & 15);
  uint64_t D0 = Off / 4, D1 = std::min<uint64_t>((Off + Len + 3) / 4,
                                                 G.ShWriter.size());
  for (uint64_t D = D0; D < D1; ++D) {
    uint32_t R = G.ShRead[D];
    if ((R & 0xffff0000u) == REpoch && (R & 0xffff & ~Bit)) {
      unsigned Other = __builtin_ctz(R & 0xffff & ~Bit);
      report(W, Prog.Insts[InstIdx], Violation::LdsRace, -1,
             "writes LDS offset " + Twine(D * 4) + " that wave " +
                 Twine(Other) +
                 " read in the same barrier interval (missing barrier)");
      G.ShRead[D] = REpoch;
    }
    G.ShWriter[D] = (E << 6) | (W.Id + 1);
  }
}
