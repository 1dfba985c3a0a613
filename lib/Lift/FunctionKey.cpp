//===- FunctionKey.cpp ----------------------------------------------------===//
#include "asmevo/Lift/FunctionKey.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/IR/GlobalValue.h"
#include "llvm/MC/MCSymbol.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"
#include <cstring>

using namespace llvm;

namespace asmevo {

void appendKeyString(std::vector<uint64_t> &W, StringRef S) {
  W.push_back(S.size());
  size_t At = W.size();
  W.resize(At + (S.size() + 7) / 8, 0);
  if (!S.empty())
    std::memcpy(&W[At], S.data(), S.size());
}

uint64_t keyDigest(const std::vector<uint64_t> &W) {
  return xxh3_64bits(ArrayRef<uint8_t>(
      reinterpret_cast<const uint8_t *>(W.data()), W.size() * sizeof(uint64_t)));
}

static void appendSymbol(std::vector<uint64_t> &W, const MCSymbol *S) {
  if (!S) {
    W.push_back(~0ull);
    return;
  }
  appendKeyString(W, S->getName());
}

static bool appendOperand(std::vector<uint64_t> &W, const MachineOperand &O) {
  W.push_back(uint64_t(O.getType()) | uint64_t(O.getTargetFlags()) << 8);
  switch (O.getType()) {
  case MachineOperand::MO_Register:
    W.push_back(uint64_t(O.getReg().id()) | uint64_t(O.getSubReg()) << 32 |
                uint64_t(O.isDef()) << 48 | uint64_t(O.isImplicit()) << 49 |
                uint64_t(O.isUndef()) << 50 | uint64_t(O.isKill()) << 51 |
                uint64_t(O.isDead()) << 52 | uint64_t(O.isTied()) << 53 |
                uint64_t(O.isEarlyClobber()) << 54 |
                uint64_t(O.isInternalRead()) << 55 |
                uint64_t(O.isDebug()) << 56 | uint64_t(O.isRenamable()) << 57);
    return true;
  case MachineOperand::MO_Immediate:
    W.push_back(uint64_t(O.getImm()));
    return true;
  case MachineOperand::MO_MachineBasicBlock:
    W.push_back(uint32_t(O.getMBB()->getNumber()));
    return true;
  case MachineOperand::MO_MCSymbol:
    appendSymbol(W, O.getMCSymbol());
    W.push_back(uint64_t(O.getOffset()));
    return true;
  case MachineOperand::MO_GlobalAddress:
    appendKeyString(W, O.getGlobal()->getName());
    W.push_back(uint64_t(O.getOffset()));
    return true;
  case MachineOperand::MO_ExternalSymbol:
    appendKeyString(W, O.getSymbolName());
    W.push_back(uint64_t(O.getOffset()));
    return true;
  case MachineOperand::MO_RegisterMask:
    // The masks are the target's static tables: the same pointer is the
    // same mask.
    W.push_back(reinterpret_cast<uintptr_t>(O.getRegMask()));
    return true;
  default:
    return false;
  }
}

bool appendFunctionKey(std::vector<uint64_t> &W, const MachineFunction &MF) {
  {
    std::string Props;
    raw_string_ostream OS(Props);
    MF.getProperties().print(OS);
    appendKeyString(W, Props);
  }
  // (MachineBasicBlock::size() walks its list: counted on the way.)
  W.push_back(MF.size());
  for (const MachineBasicBlock &MBB : MF) {
    W.push_back(uint64_t(uint32_t(MBB.getNumber())) |
                uint64_t(MBB.getAlignment().value()) << 32 |
                uint64_t(MBB.isEHPad()) << 48 |
                uint64_t(MBB.hasAddressTaken()) << 49 |
                uint64_t(MBB.isEntryBlock()) << 50);
    W.push_back(MBB.pred_size());
    for (const MachineBasicBlock *P : MBB.predecessors())
      W.push_back(uint32_t(P->getNumber()));
    W.push_back(MBB.succ_size());
    for (auto S = MBB.succ_begin(), E = MBB.succ_end(); S != E; ++S) {
      BranchProbability P = MBB.getSuccProbability(S);
      W.push_back(uint64_t(uint32_t((*S)->getNumber())) |
                  uint64_t(P.getNumerator()) << 32);
    }
    size_t LiveInCount = W.size();
    W.push_back(0);
    for (const MachineBasicBlock::RegisterMaskPair &L : MBB.liveins_dbg()) {
      W.push_back(uint64_t(L.PhysReg.id()));
      W.push_back(L.LaneMask.getAsInteger());
      ++W[LiveInCount];
    }
    size_t NumInstrs = W.size();
    W.push_back(0);
    for (const MachineInstr &MI : MBB) {
      ++W[NumInstrs];
      if (!MI.memoperands_empty() || MI.getHeapAllocMarker() ||
          MI.getPCSections() || MI.getCFIType() || MI.getMMRAMetadata())
        return false;
      W.push_back(uint64_t(MI.getOpcode()) | uint64_t(MI.getFlags()) << 32);
      W.push_back(MI.getNumOperands() |
                  uint64_t(MI.getNumExplicitOperands()) << 32);
      appendSymbol(W, MI.getPreInstrSymbol());
      appendSymbol(W, MI.getPostInstrSymbol());
      for (const MachineOperand &O : MI.operands())
        if (!appendOperand(W, O))
          return false;
      // Which operands are tied to which.
      for (unsigned I = 0; I < MI.getNumOperands(); ++I) {
        const MachineOperand &O = MI.getOperand(I);
        if (O.isReg() && O.isTied() && O.isDef())
          W.push_back(uint64_t(I) | uint64_t(MI.findTiedOperandIdx(I)) << 32);
      }
    }
  }
  return true;
}

std::optional<std::vector<uint64_t>> functionKey(const MachineFunction &MF) {
  std::vector<uint64_t> W;
  if (!appendFunctionKey(W, MF))
    return std::nullopt;
  return W;
}

} // namespace asmevo
