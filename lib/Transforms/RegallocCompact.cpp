//===- RegallocCompact.cpp ------------------------------------------------===//
//
// The renumbering is a map on VGPR indices that keeps each index mod 4 and
// keeps the order of indices, so it is injective on 32-bit registers and
// on 16-bit halves: two operands overlap after it exactly when they did
// before. Every dependence, and with it every hazard and wait the analyses
// see, is the one the input had; the pass still compares the violation
// sites before and after, because a site is named by its register.
//
//===----------------------------------------------------------------------===//
#include "RegallocCompact.h"
#include "EditSupport.h"
#include "ExecMask.h"
#include "ViolationSites.h"
#include "asmevo/Lift/InstrKinds.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include <array>

using namespace llvm;
using namespace asmevo;

namespace {

/// Indices move by whole quads, so that each keeps its value mod 4.
constexpr unsigned QuadSize = 4;
/// Allocation granule of wave64 VGPRs on gfx90a, gfx94x and gfx950.
constexpr unsigned Granule = 8;

/// k of a register-name part "VGPRk".
std::optional<unsigned> vgprIndex(StringRef Part) {
  unsigned Idx;
  if (!Part.consume_front("VGPR") || Part.getAsInteger(10, Idx) ||
      Idx >= NumVGPRs)
    return std::nullopt;
  return Idx;
}

/// Calls and indirect jumps hand registers to code that keeps the old
/// numbers; GPR indexing computes register numbers from data.
bool blocksRenumbering(StringRef Name) {
  FlowKind K = classifyFlow(Name);
  return K == FlowKind::Call || K == FlowKind::Return ||
         Name.starts_with("S_CALL") || Name.starts_with("S_SET_GPR_IDX") ||
         Name.starts_with("V_MOVREL") || Name.starts_with("V_SWAPREL");
}

/// Register names -> registers, and what a renumbering makes of each.
class Renamer {
public:
  Renamer(const MCRegisterInfo &MRI, ArrayRef<unsigned> Map)
      : MRI(MRI), Map(Map) {
    for (unsigned R = 1; R < MRI.getNumRegs(); ++R)
      ByName[MRI.getName(R)] = MCRegister(R);
  }

  /// \p R with each VGPRk of its name made VGPR(Map[k]) (halves and tuples
  /// alike); R when it names no VGPR; nullopt when no register has the new
  /// name.
  std::optional<MCRegister> operator()(MCRegister R) {
    auto It = Done.find(R);
    if (It != Done.end())
      return It->second;
    SmallVector<StringRef, 8> Parts;
    StringRef(MRI.getName(R)).split(Parts, '_');
    std::string New;
    bool Any = false;
    for (StringRef P : Parts) {
      if (!New.empty())
        New += '_';
      if (std::optional<unsigned> I = vgprIndex(P)) {
        New += "VGPR" + std::to_string(Map[*I]);
        Any = true;
      } else {
        New += P.str();
      }
    }
    std::optional<MCRegister> Out = R;
    if (Any) {
      auto N = ByName.find(New);
      Out = N == ByName.end() ? std::nullopt
                              : std::optional<MCRegister>(N->second);
    }
    Done[R] = Out;
    return Out;
  }

private:
  const MCRegisterInfo &MRI;
  ArrayRef<unsigned> Map;
  StringMap<MCRegister> ByName;
  DenseMap<MCRegister, std::optional<MCRegister>> Done;
};

/// The VGPR indices \p R names; AGPR is set when it names an AGPR.
void noteIndices(const MCRegisterInfo &MRI, MCRegister R, BitVector &Used,
                 bool &AGPR) {
  if (StringRef(MRI.getName(R)).contains("AGPR"))
    AGPR = true;
  if (std::optional<VRange> V = vgprsOf(MRI, R))
    Used.set(V->First, V->First + V->Count);
}

/// Block live-ins, by block, to put back.
using LiveInList = std::vector<MachineBasicBlock::RegisterMaskPair>;

} // namespace

Expected<bool> RegallocCompactPass::run(LiftedModule &LM, LiftedFunction &LF) {
  // The granule arithmetic below is that of the wave64 unified register
  // file; device functions share their registers with their callers.
  const TargetInfo &T = LM.original().target();
  if (!LF.MF || !LF.Range.IsKernel || LF.Range.KernelIndex < 0 ||
      (unsigned)LF.Range.KernelIndex >= LM.descriptors().size() ||
      !(T.isGFX90A() || T.isGFX94X() || T.isGFX950()))
    return false;
  MachineFunction &MF = *LF.MF;
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  const TargetRegisterInfo &TRI = *MF.getSubtarget().getRegisterInfo();
  EditableRegion Region(LF);

  BitVector Used(NumVGPRs);
  bool AGPR = false;
  for (MachineBasicBlock &MBB : MF) {
    for (const auto &LI : MBB.liveins())
      noteIndices(TRI, LI.PhysReg, Used, AGPR);
    for (MachineInstr &MI : MBB) {
      if (blocksRenumbering(TII.getName(MI.getOpcode())))
        return false;
      for (const MachineOperand &MO : MI.operands()) {
        if (MO.isRegMask())
          return false;
        if (MO.isReg() && MO.getReg())
          noteIndices(TRI, MO.getReg().asMCReg(), Used, AGPR);
      }
    }
  }
  if (AGPR || Used.none())
    return false;

  // Quad 0 holds the work-item IDs the dispatch writes (v0, or v0..v2 on
  // targets without packed IDs) and stays where it is, used or not.
  std::array<unsigned, NumVGPRs> Map;
  unsigned NextQuad = 1, OldCount = Used.find_last() + 1, NewCount = 0;
  for (unsigned Q = 0; Q < NumVGPRs / QuadSize; ++Q) {
    bool QuadUsed = false;
    for (unsigned I = Q * QuadSize; I < (Q + 1) * QuadSize; ++I)
      QuadUsed |= Used.test(I);
    unsigned To = Q == 0 ? 0 : QuadUsed ? NextQuad++ : Q;
    for (unsigned I = Q * QuadSize; I < (Q + 1) * QuadSize; ++I) {
      Map[I] = To * QuadSize + I % QuadSize;
      if (Used.test(I))
        NewCount = std::max(NewCount, Map[I] + 1);
    }
  }
  // Worth it only when the count the emitter would declare drops by a
  // granule: max(declared, used) without the pass, what the code uses with
  // it.
  const KernelDescriptor &KD = LM.descriptors()[LF.Range.KernelIndex];
  unsigned Before = std::max<unsigned>(alignTo(OldCount, Granule),
                                       KD.allocatedVGPRs());
  if (alignTo(NewCount, Granule) >= Before)
    return false;

  // A VGPR read before any write holds what the dispatch put there (or
  // garbage the code may depend on): it keeps its number. The preload
  // prologue is never edited.
  auto Moves = [&](MCRegister R) {
    BitVector V(NumVGPRs);
    bool A = false;
    noteIndices(TRI, R, V, A);
    return llvm::any_of(V.set_bits(), [&](unsigned I) { return Map[I] != I; });
  };
  for (MachineBasicBlock *Entry : {&MF.front(), LF.PreloadEntry})
    if (Entry)
      for (const auto &LI : Entry->liveins())
        if (Moves(LI.PhysReg))
          return false;
  for (MachineBasicBlock &MBB : MF)
    if (Region.inPrologue(MBB))
      for (MachineInstr &MI : MBB)
        for (const MachineOperand &MO : MI.operands())
          if (MO.isReg() && MO.getReg() && Moves(MO.getReg().asMCReg()))
            return false;

  // Every new register first, so that a name with no register refuses the
  // kernel before anything changed.
  Renamer Rename(TRI, Map);
  std::vector<std::pair<MachineOperand *, MCRegister>> Ops;
  for (MachineBasicBlock &MBB : MF) {
    for (const auto &LI : MBB.liveins())
      if (!Rename(LI.PhysReg))
        return false;
    for (MachineInstr &MI : MBB)
      for (MachineOperand &MO : MI.operands()) {
        if (!MO.isReg() || !MO.getReg())
          continue;
        std::optional<MCRegister> New = Rename(MO.getReg().asMCReg());
        if (!New)
          return false;
        if (*New != MO.getReg().asMCReg())
          Ops.push_back({&MO, *New});
      }
  }
  if (Ops.empty() || !shouldRewrite())
    return false;

  const ISAFacts &F = Facts.get(LM);
  SiteSet Sites = SiteSet::of(LM, LF, F, /*Advisories=*/true);
  std::vector<std::pair<MachineOperand *, Register>> Undo;
  std::vector<std::pair<MachineBasicBlock *, LiveInList>> OldLiveIns;
  for (auto &[MO, New] : Ops) {
    Undo.push_back({MO, MO->getReg()});
    MO->setReg(New);
  }
  for (MachineBasicBlock &MBB : MF) {
    LiveInList Old(MBB.livein_begin(), MBB.livein_end());
    MBB.clearLiveIns();
    for (const auto &LI : Old)
      MBB.addLiveIn(*Rename(LI.PhysReg), LI.LaneMask);
    MBB.sortUniqueLiveIns();
    OldLiveIns.push_back({&MBB, std::move(Old)});
  }
  // A site is named by its register: one the input had on a VGPR that
  // moved reads as new. Such a kernel is left as it was.
  if (!Sites.noneIntroducedBy(SiteSet::of(LM, LF, F, true))) {
    for (auto &[MO, Old] : Undo)
      MO->setReg(Old);
    for (auto &[MBB, Old] : OldLiveIns) {
      MBB->clearLiveIns();
      for (const auto &LI : Old)
        MBB->addLiveIn(LI.PhysReg, LI.LaneMask);
      MBB->sortUniqueLiveIns();
    }
    return false;
  }
  LF.RegistersRenumbered = true;
  return true;
}
