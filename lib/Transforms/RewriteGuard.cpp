//===- RewriteGuard.cpp ---------------------------------------------------===//
#include "RewriteGuard.h"
#include "llvm/CodeGen/MachineOperand.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "asmevo-rewrite-guard"

using namespace llvm;
using namespace asmevo;

RewriteGuard::RewriteGuard(const LiftedModule &LM, LiftedFunction &LF,
                           const ISAFacts &F)
    : LM(LM), LF(LF), F(F) {
  Base = count();
  for (auto &[K, N] : Base)
    Initial += N;
}

std::map<std::string, unsigned> RewriteGuard::count() const {
  AnalysisOptions AO;
  AO.Liveness = false;
  FunctionAnalysis A = analyzeFunction(LM, LF, F, AO);
  std::map<std::string, unsigned> C;
  for (const HazardHit &H : A.Hazards)
    ++C[std::string("hazard:") + H.Rule->Id];
  C["soft-clause"] += A.SoftClauses.size();
  for (const WaitViolation &W : A.Waits.Violations)
    ++C["waitcnt:" + std::to_string(unsigned(W.Kind))];
  return C;
}

bool RewriteGuard::accept() {
  std::map<std::string, unsigned> Now = count();
  for (auto &[K, N] : Now) {
    auto It = Base.find(K);
    if (N > (It == Base.end() ? 0u : It->second)) {
      LLVM_DEBUG(dbgs() << "rewrite undone: " << K << " "
                        << (It == Base.end() ? 0u : It->second) << " -> " << N
                        << "\n");
      return false;
    }
  }
  Base = std::move(Now);
  return true;
}

SlotRange asmevo::operandSlots(const MachineOperand &MO, const ISAFacts &F) {
  if (!MO.isReg() || !MO.getReg().isPhysical())
    return {};
  return F.slots().slots(MO.getReg().asMCReg());
}

bool asmevo::isInlineConstant32(int64_t Imm) {
  int64_t S = int32_t(uint32_t(Imm));
  if ((Imm >> 32) != 0 && (Imm >> 32) != -1)
    return false;
  if (S >= -16 && S <= 64)
    return true;
  switch (uint32_t(Imm)) {
  case 0x3f000000: case 0xbf000000: case 0x3f800000: case 0xbf800000:
  case 0x40000000: case 0xc0000000: case 0x40800000: case 0xc0800000:
  case 0x3e22f983:
    return true;
  default:
    return false;
  }
}

