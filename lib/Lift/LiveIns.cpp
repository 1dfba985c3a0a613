//===- LiveIns.cpp - Block live-ins over register units -------------------===//
#include "LiveIns.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include <mutex>
#include <unordered_map>

using namespace llvm;
using namespace asmevo;

namespace {
unsigned idx(MCRegUnit U) { return static_cast<unsigned>(U); }

/// Per target: for each register unit, the register to name it by (the
/// smallest register of at least two units that contains it: s5, v7, vcc_lo,
/// not the 16-bit halves), and that register's units.
struct UnitNames {
  std::vector<MCRegister> Name;
  std::vector<SmallVector<unsigned, 2>> UnitsOf; // indexed by unit
  /// Named special registers made of several 32-bit halves (EXEC, VCC,
  /// FLAT_SCR): named whole when all of them is live.
  std::vector<std::pair<MCRegister, SmallVector<unsigned, 4>>> Specials;
  explicit UnitNames(const TargetRegisterInfo &TRI) {
    for (unsigned R = 1; R < TRI.getNumRegs(); ++R) {
      StringRef N = TRI.getName(R);
      if (N.empty() || llvm::any_of(N, [](char C) { return isDigit(C); }) ||
          N.ends_with("_LO") || N.ends_with("_HI"))
        continue;
      SmallVector<unsigned, 4> Units;
      for (MCRegUnit U : TRI.regunits(MCRegister(R)))
        Units.push_back(idx(U));
      if (Units.size() >= 2)
        Specials.push_back({MCRegister(R), Units});
    }
    unsigned NU = TRI.getNumRegUnits();
    Name.assign(NU, MCRegister());
    std::vector<unsigned> BestCount(NU, ~0u);
    for (unsigned R = 1; R < TRI.getNumRegs(); ++R) {
      unsigned Count = 0;
      for (MCRegUnit U : TRI.regunits(MCRegister(R))) {
        (void)U;
        ++Count;
      }
      for (MCRegUnit U : TRI.regunits(MCRegister(R))) {
        unsigned Cur = BestCount[idx(U)];
        bool Better = Cur == ~0u || (Count >= 2 && (Cur < 2 || Count < Cur)) ||
                      (Count < 2 && Cur < 2 && Count < Cur);
        if (Better) {
          BestCount[idx(U)] = Count;
          Name[idx(U)] = MCRegister(R);
        }
      }
    }
    UnitsOf.resize(NU);
    for (unsigned U = 0; U < NU; ++U)
      if (Name[U])
        for (MCRegUnit V : TRI.regunits(Name[U]))
          UnitsOf[U].push_back(idx(V));
  }
};

const UnitNames &unitNames(const TargetRegisterInfo &TRI) {
  static std::mutex M;
  static std::unordered_map<const TargetRegisterInfo *,
                            std::unique_ptr<UnitNames>>
      Cache;
  std::lock_guard<std::mutex> L(M);
  auto &P = Cache[&TRI];
  if (!P)
    P = std::make_unique<UnitNames>(TRI);
  return *P;
}
} // namespace

void asmevo::recomputeLiveIns(MachineFunction &MF) {
  const TargetRegisterInfo &TRI = *MF.getSubtarget().getRegisterInfo();
  unsigned NU = TRI.getNumRegUnits();
  unsigned NB = MF.getNumBlockIDs();
  // Per block: units used before any def (Gen) and units defined (Kill).
  std::vector<BitVector> Gen(NB, BitVector(NU)), Kill(NB, BitVector(NU)),
      LiveIn(NB, BitVector(NU));
  for (MachineBasicBlock &MBB : MF) {
    BitVector &G = Gen[MBB.getNumber()], &K = Kill[MBB.getNumber()];
    for (MachineInstr &MI : reverse(MBB)) {
      for (const MachineOperand &MO : MI.operands())
        if (MO.isReg() && MO.getReg() && MO.isDef() && !MO.isUndef())
          for (MCRegUnit U : TRI.regunits(MO.getReg().asMCReg())) {
            G.reset(idx(U));
            K.set(idx(U));
          }
      for (const MachineOperand &MO : MI.operands())
        if (MO.isReg() && MO.getReg() && MO.isUse() && !MO.isUndef())
          for (MCRegUnit U : TRI.regunits(MO.getReg().asMCReg()))
            G.set(idx(U));
    }
  }
  // Backward fixpoint in post order (successors first).
  bool Changed = true;
  BitVector Out(NU);
  while (Changed) {
    Changed = false;
    for (MachineBasicBlock *MBB : post_order(&MF)) {
      Out.reset();
      for (MachineBasicBlock *S : MBB->successors())
        Out |= LiveIn[S->getNumber()];
      Out.reset(Kill[MBB->getNumber()]);
      Out |= Gen[MBB->getNumber()];
      if (Out != LiveIn[MBB->getNumber()]) {
        LiveIn[MBB->getNumber()] = Out;
        Changed = true;
      }
    }
    // Blocks post_order does not reach (no path from the entry).
    for (MachineBasicBlock &MBB : MF) {
      Out.reset();
      for (MachineBasicBlock *S : MBB.successors())
        Out |= LiveIn[S->getNumber()];
      Out.reset(Kill[MBB.getNumber()]);
      Out |= Gen[MBB.getNumber()];
      if (Out != LiveIn[MBB.getNumber()]) {
        LiveIn[MBB.getNumber()] = Out;
        Changed = true;
      }
    }
  }
  const UnitNames &UN = unitNames(TRI);
  for (MachineBasicBlock &MBB : MF) {
    MBB.clearLiveIns();
    const BitVector &L = LiveIn[MBB.getNumber()];
    BitVector Done(NU);
    for (auto &[Reg, Units] : UN.Specials)
      if (llvm::all_of(Units, [&](unsigned V) { return L.test(V); })) {
        MBB.addLiveIn(Reg);
        for (unsigned V : Units)
          Done.set(V);
      }
    for (unsigned U : L.set_bits()) {
      if (Done.test(U))
        continue;
      bool Whole = UN.Name[U] && llvm::all_of(UN.UnitsOf[U], [&](unsigned V) {
                     return L.test(V);
                   });
      if (Whole) {
        MBB.addLiveIn(UN.Name[U]);
        for (unsigned V : UN.UnitsOf[U])
          Done.set(V);
      } else {
        for (MCRegUnitRootIterator Root(static_cast<MCRegUnit>(U), &TRI);
             Root.isValid(); ++Root)
          MBB.addLiveIn(*Root);
        Done.set(U);
      }
    }
    MBB.sortUniqueLiveIns();
  }
}
