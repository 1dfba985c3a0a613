//===- FunctionLifter.cpp - Disassembly, CFG and MachineFunction ----------===//
#include "FunctionLifter.h"
#include "LiveIns.h"
#include "VerifierMemo.h"
#include "asmevo/Lift/InstrKinds.h"
#include "asmevo/Lift/SymbolRefs.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/LivePhysRegs.h"
#include "llvm/CodeGen/MachineInstrBuilder.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/MC/MCExpr.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/raw_ostream.h"
#include "asmevo/Support/PhaseTimer.h"
#include "llvm/Support/xxhash.h"
#include <list>
#include <map>
#include <mutex>
#include <unordered_map>
#include <set>

using namespace llvm;
using namespace asmevo;

std::vector<DecodedInst> asmevo::decodeRange(const TargetContext &TC,
                                             ArrayRef<uint8_t> Bytes,
                                             uint64_t Addr,
                                             std::optional<uint64_t> &BadAddr) {
  std::vector<DecodedInst> Out;
  decodeRange(TC, Bytes, Addr, BadAddr, Out);
  return Out;
}

namespace {
/// Decoded ranges by (target, address, bytes): the optimizer lifts and
/// emits the same K0 once per candidate, and decoding is a pure function
/// of those. Only instructions whose operands are registers and
/// immediates are kept (an expression operand lives in one MCContext).
struct DecodeMemo {
  struct Entry {
    std::string Target;
    uint64_t Addr;
    std::vector<uint8_t> Bytes;
    std::optional<uint64_t> BadAddr;
    std::vector<DecodedInst> Insts;
  };
  std::mutex M;
  std::list<Entry> Order;
  std::unordered_map<uint64_t, std::vector<std::list<Entry>::iterator>> Index;
  size_t Bytes = 0;
  static constexpr size_t Budget = size_t(256) << 20;

  static uint64_t digest(uint64_t Addr, ArrayRef<uint8_t> B) {
    return xxh3_64bits(B) ^ (Addr * 0x9e3779b97f4a7c15ull);
  }
  bool find(StringRef Target, uint64_t Addr, ArrayRef<uint8_t> B,
            std::optional<uint64_t> &BadAddr, std::vector<DecodedInst> &Out) {
    std::lock_guard<std::mutex> L(M);
    auto It = Index.find(digest(Addr, B));
    if (It == Index.end())
      return false;
    for (auto E : It->second)
      if (E->Addr == Addr && E->Target == Target &&
          ArrayRef<uint8_t>(E->Bytes) == B) {
        Order.splice(Order.begin(), Order, E);
        if (E->BadAddr)
          BadAddr = E->BadAddr;
        Out = E->Insts;
        return true;
      }
    return false;
  }
  void insert(StringRef Target, uint64_t Addr, ArrayRef<uint8_t> B,
              std::optional<uint64_t> BadAddr,
              const std::vector<DecodedInst> &Insts) {
    for (const DecodedInst &D : Insts)
      for (const MCOperand &O : D.Inst)
        if (!O.isReg() && !O.isImm() && !O.isSFPImm() && !O.isDFPImm())
          return;
    std::lock_guard<std::mutex> L(M);
    Order.push_front({Target.str(), Addr, B.vec(), BadAddr, Insts});
    Index[digest(Addr, B)].push_back(Order.begin());
    Bytes += B.size() + Insts.size() * sizeof(DecodedInst);
    while (Bytes > Budget && Order.size() > 1) {
      auto Last = std::prev(Order.end());
      auto &Bucket = Index[digest(Last->Addr, Last->Bytes)];
      llvm::erase(Bucket, Last);
      if (Bucket.empty())
        Index.erase(digest(Last->Addr, Last->Bytes));
      Bytes -= Last->Bytes.size() + Last->Insts.size() * sizeof(DecodedInst);
      Order.erase(Last);
    }
  }
};
DecodeMemo &decodeMemo() {
  static DecodeMemo M;
  return M;
}
} // namespace

static void decodeUncached(const TargetContext &TC, ArrayRef<uint8_t> Bytes,
                           uint64_t Addr, std::optional<uint64_t> &BadAddr,
                           std::vector<DecodedInst> &Out);

void asmevo::decodeRange(const TargetContext &TC, ArrayRef<uint8_t> Bytes,
                         uint64_t Addr, std::optional<uint64_t> &BadAddr,
                         std::vector<DecodedInst> &Out) {
  std::string Target = TC.info().targetID();
  if (decodeMemo().find(Target, Addr, Bytes, BadAddr, Out))
    return;
  std::optional<uint64_t> Bad;
  decodeUncached(TC, Bytes, Addr, Bad, Out);
  decodeMemo().insert(Target, Addr, Bytes, Bad, Out);
  if (Bad)
    BadAddr = Bad;
}

static void decodeUncached(const TargetContext &TC, ArrayRef<uint8_t> Bytes,
                           uint64_t Addr, std::optional<uint64_t> &BadAddr,
                           std::vector<DecodedInst> &Out) {
  PhaseScope Phase("decode");
  Out.clear();
  // No instruction is shorter than 4 bytes: no reallocation (copying
  // MCInsts) on the way.
  Out.reserve(Bytes.size() / 4 + 1);
  uint64_t Off = 0;
  while (Off < Bytes.size()) {
    DecodedInst D;
    uint64_t Size = 0;
    auto S = TC.disassembler().getInstruction(D.Inst, Size, Bytes.slice(Off),
                                              Addr + Off, nulls());
    if (S != MCDisassembler::Success || Size == 0 ||
        Size > Bytes.size() - Off) {
      BadAddr = Addr + Off;
      return;
    }
    D.Addr = Addr + Off;
    D.Size = Size;
    Out.push_back(std::move(D));
    Off += Size;
  }
}

// Keyed by the target's name table: every AMDGPU subtarget shares one
// numbering.
const OpcodeTraits &asmevo::opcodeTraits(const MCInstrInfo &II, unsigned Opc) {
  static thread_local const char *Table = nullptr;
  static thread_local std::vector<OpcodeTraits> Cache;
  const char *T = II.getName(0).data();
  if (T != Table || Cache.size() != II.getNumOpcodes()) {
    Table = T;
    Cache.assign(II.getNumOpcodes(), OpcodeTraits());
  }
  OpcodeTraits &Tr = Cache[Opc];
  if (!Tr.Known) {
    StringRef N = II.getName(Opc);
    Tr.Known = true;
    Tr.VALU = N.starts_with("V_");
    Tr.SignedSOPK = N.starts_with("S_") && N.contains("K_I32");
    Tr.SDWA = N.contains("_sdwa");
    Tr.GetPC = isGetPC(N);
    Tr.Flow = classifyFlow(N);
  }
  return Tr;
}

/// The disassembler returns encoding-specific registers (M0_gfxpre11,
/// SGPR_NULL_gfxpre11); CodeGen and its verifier know only the generic ones.
static MCRegister canonicalRegisterSlow(const TargetRegisterInfo *TRI,
                                        MCRegister R) {
  StringRef N = TRI->getName(R);
  for (StringRef Suffix : {"_gfxpre11", "_gfx11plus"}) {
    if (!N.ends_with(Suffix))
      continue;
    StringRef Base = N.drop_back(Suffix.size());
    for (unsigned C = 1; C < TRI->getNumRegs(); ++C)
      if (TRI->getName(C) == Base)
        return MCRegister(C);
    return R;
  }
  return R;
}

static MCRegister canonicalRegister(MachineFunction &MF, MCRegister R) {
  const TargetRegisterInfo *TRI = MF.getSubtarget().getRegisterInfo();
  if (!R.isValid() || R.id() >= TRI->getNumRegs())
    return R;
  // Per register, once (the name test is a strlen): 0 = not yet known.
  static thread_local const char *Table = nullptr;
  static thread_local std::vector<unsigned> Cache;
  const char *T = TRI->getName(1);
  if (T != Table || Cache.size() != TRI->getNumRegs()) {
    Table = T;
    Cache.assign(TRI->getNumRegs(), 0);
  }
  unsigned &C = Cache[R.id()];
  if (!C)
    C = canonicalRegisterSlow(TRI, R).id();
  return MCRegister(C);
}

/// The disassembler zero-extends 16-bit SOPK immediates; the signed forms
/// (s_movk_i32, s_addk_i32, s_cmpk_*_i32, ...) hold int16 in CodeGen.
static int64_t normalizeImm(MachineFunction &MF, MachineInstr &MI, unsigned I,
                            int64_t V) {
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  if (opcodeTraits(TII, MI.getOpcode()).SignedSOPK && isUInt<16>(V))
    return (int16_t)V;
  return V;
}

void asmevo::addOperandsFromMCInst(MachineFunction &MF, MachineInstr &MI,
                                   const MCInst &Inst,
                                   const OperandOverride &Override) {
  const MCInstrDesc &Desc = MI.getDesc();
  unsigned N = Desc.getNumOperands();
  // D16 loads read the old destination (they keep its other half) through
  // a register operand of the destination's class, vdst_in, which the
  // disassembler leaves out or gives as an immediate.
  auto ReadsDestination = [&](unsigned I) {
    return I >= Desc.NumDefs && Desc.NumDefs == 1 && MI.getNumOperands() > 0 &&
           MI.getOperand(0).isReg() &&
           Desc.operands()[I].OperandType == MCOI::OPERAND_REGISTER &&
           Desc.operands()[I].RegClass == Desc.operands()[0].RegClass;
  };
  for (unsigned I = 0; I < N; ++I) {
    if (I >= Inst.getNumOperands() && ReadsDestination(I)) {
      MI.addOperand(MF, MachineOperand::CreateReg(MI.getOperand(0).getReg(),
                                                  false));
      continue;
    }
    if (I >= Inst.getNumOperands()) {
      // VOP3P and a few others decode with fewer operands than their
      // descriptor lists; the missing ones are zero modifiers, or a tied
      // source (s_bitset1_b32 reads its destination).
      int Tied = Desc.getOperandConstraint(I, MCOI::TIED_TO);
      if (Tied >= 0 && (unsigned)Tied < MI.getNumOperands() &&
          MI.getOperand(Tied).isReg())
        MI.addOperand(MF, MachineOperand::CreateReg(
                              MI.getOperand(Tied).getReg(), false));
      else
        MI.addOperand(MF, MachineOperand::CreateImm(0));
      continue;
    }
    const MCOperand &Op = Inst.getOperand(I);
    if (Override)
      if (std::optional<MachineOperand> MO = Override(I)) {
        MI.addOperand(MF, *MO);
        continue;
      }
    if (!Op.isReg() && ReadsDestination(I)) {
      MI.addOperand(MF, MachineOperand::CreateReg(MI.getOperand(0).getReg(),
                                                  false));
      continue;
    }
    if (Op.isReg()) {
      MI.addOperand(MF, MachineOperand::CreateReg(canonicalRegister(MF, Op.getReg()),
                                                  I < Desc.NumDefs));
    } else if (Op.isImm()) {
      MI.addOperand(MF, MachineOperand::CreateImm(normalizeImm(MF, MI, I, Op.getImm())));
    } else if (Op.isSFPImm()) {
      MI.addOperand(MF, MachineOperand::CreateImm(Op.getSFPImm()));
    } else if (Op.isDFPImm()) {
      MI.addOperand(MF, MachineOperand::CreateImm(Op.getDFPImm()));
    } else if (Op.isExpr()) {
      // Forced literals ("lit(0x0)") come back as expressions; the value is
      // all a MachineOperand can hold, the original bytes keep the form.
      int64_t V = 0;
      if (!Op.getExpr()->evaluateAsAbsolute(V))
        V = 0;
      MI.addOperand(MF, MachineOperand::CreateImm(V));
    } else {
      MI.addOperand(MF, MachineOperand::CreateImm(0));
    }
  }
  // Some real VALU opcodes (v_readlane, v_writelane) lack the implicit EXEC
  // use their pseudos carry; the MachineVerifier requires it and it does
  // not change the encoding.
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  if (opcodeTraits(TII, MI.getOpcode()).VALU) {
    const TargetRegisterInfo *TRI = MF.getSubtarget().getRegisterInfo();
    static thread_local MCRegister ExecReg;
    if (!ExecReg)
      for (unsigned R = 1; R < TRI->getNumRegs(); ++R)
        if (TRI->getName(R) == StringRef("EXEC"))
          ExecReg = R;
    bool HasExec = false;
    for (const MachineOperand &MO : MI.implicit_operands())
      if (MO.isReg() && MO.getReg() == ExecReg)
        HasExec = true;
    if (!HasExec && ExecReg)
      MI.addOperand(MF, MachineOperand::CreateReg(ExecReg, false, true));
  }
}

MachineInstr *asmevo::createMachineInstr(MachineFunction &MF,
                                         const MCInst &Inst) {
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  MachineInstr *MI =
      MF.CreateMachineInstr(TII.get(Inst.getOpcode()), DebugLoc());
  addOperandsFromMCInst(MF, *MI, Inst);
  return MI;
}

bool FunctionLifter::markNonSimple(uint64_t Addr, const Twine &Why) {
  if (LF.Simple) {
    LF.Simple = false;
    LF.Reason = (Why + " at 0x" + Twine(utohexstr(Addr)) + " (" +
                 LF.Range.Name + "+0x" +
                 Twine(utohexstr(Addr - LF.Range.Addr)) + ")")
                    .str();
  }
  return false;
}

static bool isReg(const MCOperand &Op, MCRegister R) {
  return Op.isReg() && Op.getReg() == R;
}

static std::optional<int64_t> literalValue(const MCOperand &Op) {
  if (Op.isImm())
    return Op.getImm();
  int64_t V;
  if (Op.isExpr() && Op.getExpr()->evaluateAsAbsolute(V))
    return V;
  return std::nullopt;
}

std::vector<PCRelSite>
asmevo::findPCRelSites(const TargetContext &TC, ArrayRef<DecodedInst> Insts,
                       function_ref<bool(unsigned)> StartsBlock,
                       function_ref<bool(unsigned)> ChangesFlow,
                       std::optional<unsigned> &BadGetPC) {
  const MCRegisterInfo &MRI = TC.regInfo();
  std::vector<PCRelSite> Sites;
  BadGetPC.reset();
  // Sub-register indices are target-private enums: take the two 32-bit
  // SGPRs that cover the pair.
  auto Halves = [&](MCRegister Pair) {
    std::pair<MCRegister, MCRegister> R;
    for (MCSubRegIterator SR(Pair, &MRI); SR.isValid(); ++SR) {
      MCRegister Sub = *SR;
      if (MRI.getEncodingValue(Sub) == MRI.getEncodingValue(Pair) &&
          !R.first && TC.regInfo().getName(Sub)[0] == 'S' &&
          !StringRef(TC.regInfo().getName(Sub)).contains("_"))
        R.first = Sub;
      else if (MRI.getEncodingValue(Sub) == MRI.getEncodingValue(Pair) + 1 &&
               !R.second && TC.regInfo().getName(Sub)[0] == 'S' &&
               !StringRef(TC.regInfo().getName(Sub)).contains("_"))
        R.second = Sub;
    }
    return R;
  };
  for (unsigned I = 0; I < Insts.size(); ++I) {
    if (!opcodeTraits(TC.instrInfo(), Insts[I].Inst.getOpcode()).GetPC)
      continue;
    MCRegister Pair = Insts[I].Inst.getOperand(0).getReg();
    auto [Lo, Hi] = Halves(Pair);
    std::optional<unsigned> LoIdx, HiIdx;
    for (unsigned J = I + 1; J < Insts.size() && J < I + 16; ++J) {
      if (StartsBlock(J))
        break;
      const MCInst &In = Insts[J].Inst;
      StringRef Nm = TC.opcodeName(In.getOpcode());
      if (!LoIdx && Nm.starts_with("S_ADD_U32") && In.getNumOperands() >= 3 &&
          isReg(In.getOperand(0), Lo) && isReg(In.getOperand(1), Lo) &&
          literalValue(In.getOperand(2))) {
        LoIdx = J;
        continue;
      }
      if (LoIdx && !HiIdx && Nm.starts_with("S_ADDC_U32") &&
          In.getNumOperands() >= 3 && isReg(In.getOperand(0), Hi) &&
          isReg(In.getOperand(1), Hi) && literalValue(In.getOperand(2))) {
        HiIdx = J;
        break;
      }
      // Anything else that writes the pair ends the search.
      const MCInstrDesc &Desc = TC.instrInfo().get(In.getOpcode());
      bool Clobbers = false;
      for (unsigned D = 0; D < Desc.NumDefs && D < In.getNumOperands(); ++D)
        if (In.getOperand(D).isReg() &&
            MRI.regsOverlap(In.getOperand(D).getReg(), Pair))
          Clobbers = true;
      if (Clobbers || ChangesFlow(J))
        break;
    }
    if (!LoIdx || !HiIdx) {
      BadGetPC = I;
      return Sites;
    }
    uint64_t LoV = (uint32_t)*literalValue(Insts[*LoIdx].Inst.getOperand(2));
    uint64_t HiV = (uint32_t)*literalValue(Insts[*HiIdx].Inst.getOperand(2));
    uint64_t Next = Insts[I].Addr + Insts[I].Size;
    uint64_t Target = Next + ((HiV << 32) | LoV);
    Sites.push_back({I, *LoIdx, *HiIdx, Target, Next});
  }
  return Sites;
}

void FunctionLifter::run() {
  const CodeObject &CO = LM.original();
  const TargetContext &TC = LM.target();
  auto BytesOrErr = CO.bytesAt(LF.Range.Addr, LF.Range.Size);
  if (!BytesOrErr) {
    markNonSimple(LF.Range.Addr, toString(BytesOrErr.takeError()));
    return;
  }
  std::optional<uint64_t> BadAddr;
  // One buffer for all functions: a fresh one per function would be fresh
  // pages (page faults) each time.
  static thread_local std::vector<DecodedInst> Scratch;
  std::vector<DecodedInst> &Insts = Scratch;
  decodeRange(TC, *BytesOrErr, LF.Range.Addr, BadAddr, Insts);
  LF.NumInstrs = Insts.size();
  if (BadAddr) {
    auto W = CO.bytesAt(*BadAddr, 4);
    std::string Word =
        W ? utohexstr(support::endian::read32le(W->data())) : "??";
    consumeError(W.takeError());
    markNonSimple(*BadAddr, "undecodable word 0x" + Word);
    return;
  }
  if (Insts.empty()) {
    markNonSimple(LF.Range.Addr, "empty function");
    return;
  }

  // Instructions are in address order: boundaries by binary search.
  auto IsBoundary = [&](uint64_t A) {
    auto It = llvm::partition_point(
        Insts, [A](const DecodedInst &D) { return D.Addr < A; });
    return It != Insts.end() && It->Addr == A;
  };

  // Block leaders and branch targets.
  std::set<uint64_t> Leaders = {LF.Range.Addr};
  std::vector<FlowKind> Kinds(Insts.size());
  std::vector<uint64_t> BranchTarget(Insts.size(), 0);
  bool IsKernel = LF.Range.IsKernel;
  const KernelInfo *K =
      IsKernel ? &CO.kernels()[LF.Range.KernelIndex] : nullptr;
  if (K && K->hasPreload()) {
    uint64_t PE = K->preloadEntryAddr();
    if (!IsBoundary(PE)) {
      markNonSimple(PE, "preload entry is not on an instruction boundary");
      return;
    }
    Leaders.insert(PE);
  }
  for (unsigned I = 0; I < Insts.size(); ++I) {
    const DecodedInst &D = Insts[I];
    FlowKind FK = opcodeTraits(TC.instrInfo(), D.Inst.getOpcode()).Flow;
    Kinds[I] = FK;
    if (FK == FlowKind::Branch || FK == FlowKind::CondBranch) {
      std::optional<int64_t> Imm = literalValue(D.Inst.getOperand(0));
      if (!Imm)
        return (void)markNonSimple(D.Addr, "branch without immediate target");
      uint64_t T = D.Addr + 4 + (int64_t)(int16_t)*Imm * 4;
      if (!IsBoundary(T))
        return (void)markNonSimple(
            D.Addr, "branch to 0x" + utohexstr(T) +
                        " outside the function or inside an instruction");
      BranchTarget[I] = T;
      Leaders.insert(T);
    }
    if (FK == FlowKind::Return && IsKernel)
      return (void)markNonSimple(D.Addr, "indirect branch (s_setpc_b64)");
    if (isTerminatorKind(FK) && I + 1 < Insts.size())
      Leaders.insert(Insts[I + 1].Addr);
  }

  // PC-relative sequences: s_getpc_b64 sN:N+1, then s_add_u32 sN, sN, lo and
  // s_addc_u32 sN+1, sN+1, hi in the same block.
  std::optional<unsigned> BadGetPC;
  std::vector<PCRelSite> Sites = findPCRelSites(
      TC, Insts,
      [&](unsigned J) { return Leaders.count(Insts[J].Addr) != 0; },
      [&](unsigned J) { return Kinds[J] != FlowKind::None; }, BadGetPC);
  if (BadGetPC)
    return (void)markNonSimple(
        Insts[*BadGetPC].Addr,
        "s_getpc_b64 whose use is not an add/addc pair (unrecoverable "
        "PC-relative use)");

  // Resolve every PC-relative target to a symbol + offset before building.
  std::vector<SymbolRef> SiteRefs;
  for (const PCRelSite &S : Sites) {
    auto Ref = resolveAddress(LM, S.Target);
    if (!Ref)
      return (void)markNonSimple(Insts[S.LoIdx].Addr,
                                 "PC-relative target 0x" +
                                     utohexstr(S.Target) + " is " +
                                     toString(Ref.takeError()));
    SiteRefs.push_back(*Ref);
  }

  // Build the MachineFunction.
  MachineFunction &MF = LM.mmi().getOrCreateMachineFunction(*LF.IRFunc);
  LF.MF = &MF;
  // Original addresses stay in the lift prints until finalize().
  LM.deferAddressSymbols(MF);
  MF.getProperties().setNoVRegs().setNoPHIs();
  MF.getProperties().resetIsSSA();
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  std::map<uint64_t, MachineBasicBlock *> BlockAt;
  for (uint64_t L : Leaders) {
    MachineBasicBlock *MBB = MF.CreateMachineBasicBlock();
    MF.push_back(MBB);
    BlockAt[L] = MBB;
  }
  if (K && K->hasPreload())
    LF.PreloadEntry = BlockAt[K->preloadEntryAddr()];

  std::map<unsigned, std::pair<unsigned, bool>> SiteOfInst; // idx->(site,hi)
  for (unsigned S = 0; S < Sites.size(); ++S) {
    SiteOfInst[Sites[S].LoIdx] = {S, false};
    SiteOfInst[Sites[S].HiIdx] = {S, true};
  }
  // Target flags are private enums: find them by their MIR names.
  unsigned FlagLo = 0, FlagHi = 0, FlagGotLo = 0, FlagGotHi = 0;
  for (auto &P : TII.getSerializableDirectMachineOperandTargetFlags()) {
    StringRef N(P.second);
    if (N == "amdgpu-rel32-lo")
      FlagLo = P.first;
    else if (N == "amdgpu-rel32-hi")
      FlagHi = P.first;
    else if (N == "amdgpu-gotprel32-lo")
      FlagGotLo = P.first;
    else if (N == "amdgpu-gotprel32-hi")
      FlagGotHi = P.first;
  }

  MachineBasicBlock *Cur = nullptr;
  for (unsigned I = 0; I < Insts.size(); ++I) {
    const DecodedInst &D = Insts[I];
    auto BIt = BlockAt.find(D.Addr);
    if (BIt != BlockAt.end()) {
      MachineBasicBlock *Next = BIt->second;
      // Fall through from the previous block unless it ended the flow.
      if (Cur && I > 0) {
        FlowKind PK = Kinds[I - 1];
        if ((PK == FlowKind::None || PK == FlowKind::Call ||
             PK == FlowKind::CondBranch || PK == FlowKind::Trap) &&
            !Cur->isSuccessor(Next))
          Cur->addSuccessor(Next);
      }
      Cur = Next;
    }
    MachineInstr *MI =
        MF.CreateMachineInstr(TII.get(D.Inst.getOpcode()), DebugLoc());
    MachineBasicBlock *BrTarget = nullptr;
    if (Kinds[I] == FlowKind::Branch || Kinds[I] == FlowKind::CondBranch) {
      BrTarget = BlockAt[BranchTarget[I]];
      if (!Cur->isSuccessor(BrTarget))
        Cur->addSuccessor(BrTarget);
    }
    auto SIt = SiteOfInst.find(I);
    auto Override = [&](unsigned Idx) -> std::optional<MachineOperand> {
      if (BrTarget && Idx == 0)
        return MachineOperand::CreateMBB(BrTarget);
      if (SIt != SiteOfInst.end() && Idx == 2) {
        const SymbolRef &Ref = SiteRefs[SIt->second.first];
        bool Hi = SIt->second.second;
        // ELF's R_AMDGPU_REL32_* are relative to the literal's own address;
        // the +4/+12 addend re-bases them on s_getpc's result, as the
        // compiler writes it.
        int64_t Addend = (int64_t)(D.Addr + 4) -
                         (int64_t)Sites[SIt->second.first].GetPCNext;
        unsigned Flag = Ref.ViaGOT ? (Hi ? FlagGotHi : FlagGotLo)
                                   : (Hi ? FlagHi : FlagLo);
        return MachineOperand::CreateGA(Ref.GV, Ref.Offset + Addend, Flag);
      }
      return std::nullopt;
    };
    addOperandsFromMCInst(MF, *MI, D.Inst, Override);
    Cur->insert(Cur->end(), MI);
    tieSDWAPreserve(*MI);
    LM.recordLiftPrint(*MI, D.Addr, D.Size);
  }

}

void FunctionLifter::finalize() {
  if (!LF.MF || LF.Finalized)
    return;
  LF.Finalized = true;
  // MIR, the verifier's messages and passes see the addresses as symbols.
  LM.materializeAddressSymbols(*LF.MF);
  recomputeLiveIns(*LF.MF);
  LF.MF->getProperties().setTracksLiveness();
  checkWithVerifier();
}

void FunctionLifter::tieSDWAPreserve(MachineInstr &MI) {
  // SDWA with dst_unused:UNUSED_PRESERVE reads the destination's other
  // bits; CodeGen models that as an implicit use tied to the def, which the
  // verifier demands. Operand names are private, so ask the verifier.
  MachineFunction &MF = *MI.getMF();
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  if (!opcodeTraits(TII, MI.getOpcode()).SDWA ||
      MI.getDesc().getNumDefs() != 1 || !MI.getOperand(0).isReg())
    return;
  StringRef Err;
  if (TII.verifyInstruction(MI, Err) ||
      !Err.contains("should have tied register"))
    return;
  MI.addOperand(MF, MachineOperand::CreateReg(MI.getOperand(0).getReg(),
                                              /*isDef=*/false,
                                              /*isImp=*/true));
  MI.tieOperands(0, MI.getNumOperands() - 1);
}

void FunctionLifter::checkWithVerifier() {
  // A function the MachineVerifier rejects is not safe to rebuild: keep its
  // bytes (and, when it was a rejection, its MIR for byte patches). AMDGPU's
  // per-instruction check can crash on decoded operand lists CodeGen never
  // produces, so the verifier runs under crash recovery; after a crash,
  // instruction by instruction to name the culprit.
  MachineFunction &MF = *LF.MF;
  auto Key = VerifierMemo::keyOf(MF);
  if (Key && VerifierMemo::accepted(*Key))
    return;
  CrashRecoveryContext::Enable();
  std::string Msg;
  raw_string_ostream OS(Msg);
  bool Ok = true;
  {
    CrashRecoveryContext CRC;
    if (CRC.RunSafely([&] {
          Ok = MF.verify(nullptr, nullptr, &OS, /*AbortOnError=*/false);
        })) {
      if (!Ok) {
        StringRef First = Msg;
        size_t P = First.find("*** Bad machine code: ");
        std::string What = "rejected";
        uint64_t At = LF.Range.Addr;
        if (P != StringRef::npos) {
          StringRef Rest = First.drop_front(P + 22);
          What = Rest.take_until([](char C) {
                       return C == '*' || C == '\n';
                     })
                     .trim()
                     .str();
          // "- instruction: <MIR>" names the culprit; its original address
          // rides on its pre-instruction symbol.
          size_t I = Rest.find("- instruction: ");
          if (I != StringRef::npos) {
            StringRef Inst = Rest.drop_front(I + 15).split('\n').first;
            size_t S = Inst.find("asmevo.orig.");
            if (S != StringRef::npos)
              Inst.drop_front(S + 12)
                  .take_while([](char C) { return isHexDigit(C); })
                  .getAsInteger(16, At);
            What += " (" + Inst.split(", pre-instr-symbol").first.trim().str() +
                    ")";
          }
        }
        markNonSimple(At, "MachineVerifier: " + What);
        // Everything decoded and the CFG is known; only CodeGen's operand
        // rules are broken, which the hazard and waitcnt analyses do not
        // rely on. Edits that keep every address can still be patched in.
        // (A verifier crash is no such evidence: it stays bytes only.)
        LF.PatchMF = LF.MF;
      } else if (Key) {
        VerifierMemo::remember(std::move(*Key));
      }
      return;
    }
  }
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  for (MachineBasicBlock &MBB : MF)
    for (MachineInstr &MI : MBB) {
      StringRef Err;
      CrashRecoveryContext CRC;
      if (!CRC.RunSafely([&] { (void)TII.verifyInstruction(MI, Err); })) {
        markNonSimple(LiftedModule::originalAddress(MI).value_or(0),
                      "the MachineVerifier crashes on " +
                          TII.getName(MI.getOpcode()).str());
        return;
      }
    }
  markNonSimple(LF.Range.Addr, "the MachineVerifier crashes on this function");
}
