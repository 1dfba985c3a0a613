//===- StaticCost.cpp - One wave through a block, without a trace ---------===//
#include "asmevo/Timing/StaticCost.h"
#include "llvm/ADT/StringExtras.h"
#include <algorithm>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::timing;

StaticWave::StaticWave(const TimingConfig &C)
    : C(C), Reg(slot::NumSlots, 0.0) {}

double StaticWave::pipeCycles(const InstrRecord &R) const {
  const OpcodeFacts &F = R.facts();
  if (F.is(ic::MFMA))
    return std::max<unsigned>(1, R.Passes) * C.MfmaCyclesPerPass;
  if (F.is(ic::Trans))
    return C.TransCycles;
  StringRef N = F.Name;
  for (StringRef P : {"V_MUL_LO_U32", "V_MUL_HI_U32", "V_MUL_HI_I32",
                      "V_MUL_LO_I32", "V_MAD_U64_U32", "V_MAD_I64_I32"})
    if (N.starts_with(P))
      return C.QuarterRateCycles;
  if (N.contains("F64"))
    return C.F64Cycles;
  return C.ValuCycles;
}

double StaticWave::resultLatency(const InstrRecord &R) const {
  const OpcodeFacts &F = R.facts();
  if (F.is(ic::VMEM))
    return F.MayLoad ? C.L2Latency : C.StoreAckLatency;
  if (F.is(ic::DS))
    return C.LdsLatency + 4;
  if (F.is(ic::SMEM))
    return C.ScalarLatency;
  if (F.is(ic::VALU))
    return std::max(pipeCycles(R), C.ValuLatency);
  return C.SaluLatency;
}

/// FP32/FP64 MFMAs block VALU co-issue (as CUModel).
static bool blocksValu(StringRef N) {
  if (N.starts_with("V_MFMA_F64"))
    return true;
  size_t X = N.rfind('X');
  if (X == StringRef::npos)
    return false;
  StringRef Tail = N.substr(X + 1).drop_while(isDigit);
  return Tail.starts_with("F32");
}

double StaticWave::earliest(const InstrRecord &R) const {
  const OpcodeFacts &F = R.facts();
  double T = ReadyAt;
  bool Mem = F.is(ic::VMEM | ic::DS | ic::SMEM);
  for (const RegAccess &A : R.Regs)
    if (!A.Def)
      for (unsigned S = A.Slots.First; S < A.Slots.end() && S < Reg.size();
           ++S)
        T = std::max(T, Reg[S]);
  if (F.is(ic::MFMA))
    T = std::max({T, ValuFree, MfmaFree});
  else if (F.isVALU() && !Mem)
    T = std::max(T, ValuFree);
  else if (F.is(ic::Waitcnt)) {
    WaitcntValue V = WaitcntValue::decode(uint64_t(R.Imm));
    if (Vm.size() > V.VM)
      T = std::max(T, Vm[Vm.size() - V.VM - 1]);
    if (Lgkm.size() > V.Lgkm) {
      std::vector<double> Tmp = Lgkm;
      size_t K = Tmp.size() - V.Lgkm - 1;
      std::nth_element(Tmp.begin(), Tmp.begin() + K, Tmp.end());
      T = std::max(T, Tmp[K]);
    }
  }
  return T;
}

double StaticWave::issue(const InstrRecord &R) {
  const OpcodeFacts &F = R.facts();
  double T = earliest(R);
  Now = T;
  // One instruction per wave per visit of its SIMD.
  ReadyAt = T + C.SIMDsPerCU;
  double Def = T + C.SaluLatency;
  bool Mem = F.is(ic::VMEM | ic::DS | ic::SMEM);
  if (F.is(ic::MFMA)) {
    double Cyc = pipeCycles(R);
    MfmaFree = T + Cyc;
    ValuFree = T + (blocksValu(F.Name.upper()) ? Cyc : C.MfmaCoIssueCycles);
    Def = T + Cyc;
  } else if (F.is(ic::SMEM)) {
    Lgkm.push_back(T + C.ScalarLatency);
    MemDone = std::max(MemDone, T + C.ScalarLatency);
  } else if (F.is(ic::DS)) {
    double Done = std::max(T + 4 + C.LdsLatency, LastLds);
    LastLds = Done;
    Lgkm.push_back(Done);
    MemDone = std::max(MemDone, Done);
  } else if (F.is(ic::VMEM)) {
    double Done = std::max(
        T + (F.MayLoad ? C.L2Latency : C.StoreAckLatency), LastVm);
    LastVm = Done;
    Vm.push_back(Done);
    MemDone = std::max(MemDone, Done);
  } else if (F.isVALU()) {
    double Cyc = pipeCycles(R);
    ValuFree = T + Cyc;
    Def = T + std::max(Cyc, C.ValuLatency);
  } else if (F.is(ic::Nop)) {
    ReadyAt = std::max(ReadyAt, T + double((R.Imm & 0xf) + 1) *
                                        C.NopCyclesPerWaitState);
  } else if (F.is(ic::Waitcnt)) {
    while (!Vm.empty() && Vm.front() <= T)
      Vm.pop_front();
    llvm::erase_if(Lgkm, [&](double X) { return X <= T; });
  }
  // Memory results are waited for through s_waitcnt, as in CUModel.
  if (!Mem)
    for (const RegAccess &A : R.Regs)
      if (A.Def)
        for (unsigned S = A.Slots.First; S < A.Slots.end() && S < Reg.size();
             ++S)
          Reg[S] = Def;
  return T;
}

StaticCost timing::staticCost(const TimingConfig &C,
                              ArrayRef<const InstrRecord *> Seq) {
  StaticWave W(C);
  for (const InstrRecord *R : Seq)
    W.issue(*R);
  StaticCost SC;
  SC.Cycles = Seq.empty() ? 0 : W.now() + 1;
  SC.MemDone = W.memDone();
  return SC;
}
