//===- HazardCheck.cpp - Run-time wait-state checks ------------------------===//
//
// The rules are lib/Analysis's table (asmevo/Analysis/Hazards.h), evaluated
// by its HazardWindow over the instructions a wave actually issued, so the
// static checker and the emulator apply each rule the same way. The window
// a consumer sees (its last 24 predecessors) repeats in loops; a rolling
// hash of it lets a consumer skip the evaluation when it was already
// checked against the same window.
//
//===----------------------------------------------------------------------===//
#include "Machine.h"
#include "asmevo/Analysis/Hazards.h"
#include "asmevo/Analysis/InstrRecord.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

namespace {
constexpr uint64_t HashMul = 0x100000001B3ull;
uint64_t powMul() {
  uint64_t P = 1;
  for (unsigned K = 0; K + 1 < HazWindowLen; ++K)
    P *= HashMul;
  return P;
}
const uint64_t HashPowN1 = powMul();
} // namespace

void Machine::hazardIssued(Wave &W, const DInst &I) {
  unsigned Pos = W.HazPos;
  uint64_t Old = W.HazRing[Pos];
  W.HazHash = (W.HazHash - Old * HashPowN1) * HashMul + (I.Index + 1);
  W.HazRing[Pos] = I.Index + 1;
  W.HazPos = (Pos + 1) % HazWindowLen;
}

void Machine::checkHazards(Wave &W, const DInst &I) {
  // A small set of recently checked windows per consumer: loop heads see
  // one window on entry and another on the back edge.
  uint64_t Key = (W.HazHash * 0x9E3779B97F4A7C15ull + I.Index) | 1;
  uint64_t *Set = &HazKey[size_t(I.Index) * HazWays];
  for (unsigned K = 0; K < HazWays; ++K)
    if (Set[K] == Key)
      return;
  for (unsigned K = HazWays - 1; K > 0; --K)
    Set[K] = Set[K - 1];
  Set[0] = Key;
  ++HazMisses;
  if (!HazWin)
    HazWin = std::make_unique<HazardWindow>(*Prog.Facts);
  HazWin->reset();
  // Oldest first.
  for (unsigned K = 0; K < HazWindowLen; ++K) {
    uint32_t E = W.HazRing[(W.HazPos + K) % HazWindowLen];
    if (E)
      HazWin->issue(Prog.Recs[E - 1]);
  }
  std::vector<HazardHit> Hits = HazWin->check(Prog.Recs[I.Index]);
  for (const HazardHit &H : Hits) {
    // Producer counts back from the consumer: 1 = the previous instruction.
    unsigned Back = H.Producer;
    uint32_t PE = Back >= 1 && Back <= HazWindowLen
                      ? W.HazRing[(W.HazPos + HazWindowLen - Back) %
                                  HazWindowLen]
                      : 0;
    std::string Prod = PE ? Prog.Text[PE - 1].Text : "?";
    uint64_t PAddr = PE ? Prog.Insts[PE - 1].Addr : 0;
    std::string Text = "'" + Prog.Text[I.Index].Text + "' at pc 0x" +
                       utohexstr(I.Addr) + ", " + Twine(H.Missing).str() +
                       " wait state(s) after '" + Prod + "' at pc 0x" +
                       utohexstr(PAddr);
    if (Opt.RecordHazards) {
      HazardSiteHit &S = Sites[{H.Rule->Id, I.Addr, PAddr}];
      if (S.Text.empty()) {
        S.Text = Text;
        S.Advisory = H.Rule->Advisory;
      }
      S.Missing = std::max(S.Missing, H.Missing);
      continue;
    }
    bool Waive = Opt.WaivedHazardRules.count(H.Rule->Id);
    if (Waive || H.Rule->Advisory) {
      // The window cache above skips repeats of an already checked window,
      // so the count is of distinct (window, consumer) pairs.
      auto &E = (Waive ? Waived : Advisories)[H.Rule->Id];
      if (E.first++ == 0)
        E.second = std::move(Text);
      continue;
    }
    report(W, I, Violation::Hazard, -1,
           Twine(H.Missing) + " wait state(s) missing after '" + Prod +
               "' at pc 0x" + utohexstr(PAddr) + " (rule " + H.Rule->Id +
               ": " + H.Rule->Text + "; " + H.Rule->Source + ")");
  }
}
