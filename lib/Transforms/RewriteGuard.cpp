//===- RewriteGuard.cpp ---------------------------------------------------===//
#include "RewriteGuard.h"
#include "llvm/CodeGen/MachineOperand.h"
#include "llvm/Support/Debug.h"

#define DEBUG_TYPE "asmevo-rewrite-guard"

using namespace llvm;
using namespace asmevo;

RewriteGuard::RewriteGuard(const LiftedModule &LM, LiftedFunction &LF,
                           const ISAFacts &F)
    : LM(LM), LF(LF), F(F), Input(SiteSet::of(LM, LF, F, /*Advisories=*/true)) {}

bool RewriteGuard::accept() {
  // Advisories too: the verifier holds an edit to compiled code's standard
  // (a v_pk_* result read at once is LLVM's dst-sel wait), so a rewrite
  // that adds one would only be rejected later, by the gate.
  std::vector<ViolationSite> New =
      Input.introducedBy(SiteSet::of(LM, LF, F, /*Advisories=*/true));
  LLVM_DEBUG(for (const ViolationSite &S : New) dbgs()
             << "rewrite undone: " << S.describe() << "\n");
  return New.empty();
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

