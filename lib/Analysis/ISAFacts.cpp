//===- ISAFacts.cpp -------------------------------------------------------===//
#include "asmevo/Analysis/ISAFacts.h"
#include "llvm/ADT/SmallVector.h"
#include <map>
#include <mutex>
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCSchedule.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

ISAFacts::ISAFacts(const TargetContext &TC) : TC(TC) {
  const TargetInfo &TI = TC.info();
  // What the facts depend on: the processor and its features.
  std::string Key = TI.targetID();
  {
    static std::mutex Lock;
    static auto *SlotMaps =
        new std::map<std::string, std::shared_ptr<const RegSlotMap>>();
    std::lock_guard<std::mutex> G(Lock);
    std::shared_ptr<const RegSlotMap> &S = (*SlotMaps)[Key];
    if (!S)
      S = std::make_shared<const RegSlotMap>(TC.regInfo());
    Slots = S;
  }
  static thread_local std::map<std::string,
                               std::shared_ptr<std::vector<OpcodeFacts>>>
      FactsByTarget;
  std::shared_ptr<std::vector<OpcodeFacts>> &F = FactsByTarget[Key];
  if (!F)
    F = std::make_shared<std::vector<OpcodeFacts>>(
        TC.instrInfo().getNumOpcodes());
  Cache = F;
  Gen = TI.isGFX90A()   ? GPUGen::GFX90A
        : TI.isGFX950() ? GPUGen::GFX950
                        : GPUGen::GFX94X;
  // LLVM's GCNSubtarget::isXNACKEnabled is "on or any": code built for
  // xnack-any must also be correct when pages fault and clauses replay.
  XnackReplay = TI.Xnack == TargetFeature::On || TI.Xnack == TargetFeature::Any;
  unsigned Add = TC.opcode("V_ADD_F32_e64_vi");
  if (Add != ~0u) {
    const MCInstrDesc &D = TC.instrInfo().get(Add);
    if (D.getNumOperands() > 1)
      InputModsType = D.operands()[1].OperandType;
  }
}

const OpcodeFacts &ISAFacts::get(unsigned Opcode) const {
  static const OpcodeFacts Invalid;
  if (Opcode >= Cache->size())
    return Invalid;
  OpcodeFacts &F = (*Cache)[Opcode];
  if (!F.Valid)
    F = compute(Opcode);
  return F;
}

static bool bit(uint64_t Flags, unsigned B) { return (Flags >> B) & 1; }

/// MFMA pass count and XDL-ness from the subtarget's scheduling model: the
/// first write resource's ReleaseAtCycle is the number of passes, and XDL
/// MFMAs occupy the HWXDL resource (LLVM's SISchedule.td).
static bool passesOfClass(const MCSubtargetInfo &STI, unsigned SchedClass,
                          unsigned &Passes, bool &XDL) {
  const MCSchedModel &SM = STI.getSchedModel();
  const MCSchedClassDesc *SC = SM.getSchedClassDesc(SchedClass);
  if (!SC || !SC->isValid() || SC->isVariant())
    return false;
  const MCWriteProcResEntry *B = STI.getWriteProcResBegin(SC);
  if (B == STI.getWriteProcResEnd(SC))
    return false;
  Passes = std::max<unsigned>(1, std::min<unsigned>(B->ReleaseAtCycle, 32));
  const MCProcResourceDesc *R = SM.getProcResource(B->ProcResourceIdx);
  XDL = R && R->Name && StringRef(R->Name) == "HWXDL";
  return true;
}

/// SISchedule.td puts every non-DGEMM MFMA on HWXDL, but on gfx940+ LLVM
/// asks its per-opcode table (SIInstrInfo::isXDL, getMAIIsGFX940XDL), which
/// leaves out the f32-source forms (v_mfma_f32_32x32x1_2b_f32 ...
/// 16x16x4_f32): llc-22 -mcpu=gfx942 waits passes+2, not passes+3, before a
/// VALU reads their result. Their LLVM names end in <digits>F32; the xf32
/// forms (..._X8XF32) do not.
static bool isGFX940NonXDL(StringRef Name) {
  if (!Name.consume_front("V_MFMA_F32_"))
    return false;
  size_t X = Name.find('_');
  StringRef Shape = Name.substr(0, X);
  return Shape.size() > 3 && Shape.ends_with("F32") &&
         isDigit(Shape[Shape.size() - 4]);
}

/// gfx950's F8F6F4 MFMAs take twice the passes when either operand is
/// FP8/BF8 (8 registers; the opcode name carries the operand widths, e.g.
/// _f4_f8): clang-22 -O2 for gfx950 waits 20 wait states (16 passes) after
/// v_mfma_scale_f32_32x32x64_f8f6f4 with cbsz:0 or cbsz:4 blgp:0, 12
/// (8 passes) with cbsz:4 blgp:4. The scheduling model's variant does not
/// resolve on an MCInst. Returns 0 for other opcodes.
static unsigned f8f6f4Passes(StringRef Name) {
  size_t At = Name.find("_F8F6F4_");
  if (At == StringRef::npos)
    return 0;
  SmallVector<StringRef, 4> Ops;
  Name.substr(At + 8).split(Ops, '_');
  bool F8 = (Ops.size() > 0 && Ops[0] == "f8") ||
            (Ops.size() > 1 && Ops[1] == "f8");
  unsigned Base = Name.contains("32X32X64") ? 8 : 4;
  return F8 ? 2 * Base : Base;
}

static void mfmaPasses(const MCSubtargetInfo &STI, const MCInstrDesc &D,
                       OpcodeFacts &F) {
  const MCSchedModel &SM = STI.getSchedModel();
  if (!SM.hasInstrSchedModel())
    return;
  const MCSchedClassDesc *SC = SM.getSchedClassDesc(D.getSchedClass());
  if (SC && SC->isValid() && SC->isVariant()) {
    F.VariantSched = true;
    return;
  }
  unsigned P;
  bool XDL;
  if (!passesOfClass(STI, D.getSchedClass(), P, XDL))
    return;
  F.Passes = P;
  if (XDL)
    F.Classes |= ic::XDL;
}

bool ISAFacts::resolveMFMA(const MCInst &MI, unsigned &Passes,
                           bool &XDL) const {
  const MCSubtargetInfo &STI = TC.subtargetInfo();
  const MCSchedModel &SM = STI.getSchedModel();
  unsigned SC = TC.instrInfo().get(MI.getOpcode()).getSchedClass();
  for (unsigned Depth = 0; Depth < 4; ++Depth) {
    const MCSchedClassDesc *D = SM.getSchedClassDesc(SC);
    if (!D || !D->isValid())
      return false;
    if (!D->isVariant()) {
      if (!passesOfClass(STI, SC, Passes, XDL))
        return false;
      StringRef Name = TC.opcodeName(MI.getOpcode());
      if (isGFX940Plus() && isGFX940NonXDL(Name))
        XDL = false;
      if (unsigned P = f8f6f4Passes(Name))
        Passes = P;
      return true;
    }
    SC = STI.resolveVariantSchedClass(SC, &MI, &TC.instrInfo(),
                                      SM.getProcessorID());
    if (!SC)
      return false;
  }
  return false;
}

OpcodeFacts ISAFacts::compute(unsigned Opcode) const {
  const MCInstrDesc &D = TC.instrInfo().get(Opcode);
  OpcodeFacts F;
  F.Valid = true;
  F.Name = TC.opcodeName(Opcode);
  F.TSFlags = D.TSFlags;
  F.MayLoad = D.mayLoad();
  F.MayStore = D.mayStore();
  uint64_t T = D.TSFlags;
  StringRef N = F.Name;
  uint64_t &C = F.Classes;

  if (bit(T, tsflag::SALU))
    C |= ic::SALU;
  if (bit(T, tsflag::VALU))
    C |= ic::VALU;
  if (bit(T, tsflag::TRANS))
    C |= ic::Trans;
  if (bit(T, tsflag::DPP))
    C |= ic::DPP;
  if (bit(T, tsflag::SDWA))
    C |= ic::SDWA;
  if (bit(T, tsflag::IsDOT))
    C |= ic::DOT;
  if (bit(T, tsflag::EXP))
    C |= ic::Export;
  if (bit(T, tsflag::IsAtomicRet) || bit(T, tsflag::IsAtomicNoRet))
    C |= ic::Atomic;
  if (bit(T, tsflag::MUBUF) || bit(T, tsflag::MTBUF))
    C |= ic::VMEM | ic::Buffer;
  if (bit(T, tsflag::MIMG))
    C |= ic::VMEM;
  if (bit(T, tsflag::FLAT)) {
    C |= ic::VMEM;
    if (bit(T, tsflag::FlatGlobal))
      C |= ic::Global;
    else if (bit(T, tsflag::FlatScratch))
      C |= ic::Scratch;
    else
      C |= ic::FLAT;
  }
  if (bit(T, tsflag::SMRD))
    C |= ic::SMEM;
  if (bit(T, tsflag::DS))
    C |= ic::DS;
  // LLVM (GCNHazardRecognizer isLdsDma): a VALU-flagged buffer/flat op is
  // the LDS DMA form (buffer_load_dword ... lds, global_load_lds_*).
  if (bit(T, tsflag::VALU) && (bit(T, tsflag::MUBUF) || bit(T, tsflag::FLAT)))
    C |= ic::LDSDMA;
  if (bit(T, tsflag::IsMAI)) {
    if (N.starts_with("V_ACCVGPR_"))
      C |= ic::AccMove;
    else {
      C |= ic::MFMA;
      if (N.contains("_F64_"))
        C |= ic::DGEMM;
      mfmaPasses(TC.subtargetInfo(), D, F);
      if (isGFX940Plus() && isGFX940NonXDL(N))
        C &= ~ic::XDL;
    }
  }
  bool Mem = F.is(ic::VMEM | ic::SMEM | ic::DS);
  if (Mem && D.getNumDefs() > 0)
    C |= ic::MemLoad;
  if (Mem && F.MayStore && !F.is(ic::LDSDMA))
    C |= ic::MemStore;

  F.Flow = classifyFlow(N);
  if (F.Flow != FlowKind::None)
    C |= ic::Branch;
  auto Starts = [&](StringRef P) { return N.starts_with(P); };
  if (Starts("S_BARRIER"))
    C |= ic::Barrier;
  if (Starts("S_WAITCNT") && !Starts("S_WAITCNT_DEPCTR") &&
      !Starts("S_WAITCNT_VSCNT") && !Starts("S_WAITCNT_VMCNT") &&
      !Starts("S_WAITCNT_EXPCNT") && !Starts("S_WAITCNT_LGKMCNT"))
    C |= ic::Waitcnt;
  if (Starts("S_NOP"))
    C |= ic::Nop;
  if (Starts("S_SETREG_"))
    C |= ic::SetReg;
  if (Starts("S_GETREG_"))
    C |= ic::GetReg;
  if (Starts("S_ENDPGM"))
    C |= ic::EndPgm;
  if (Starts("S_SENDMSG") || Starts("S_TTRACEDATA"))
    C |= ic::Message;
  if (Starts("V_READLANE_B32") || Starts("V_READFIRSTLANE_B32"))
    C |= ic::ReadLane;
  if (Starts("V_WRITELANE_B32"))
    C |= ic::WriteLane;
  if (Starts("V_DIV_FMAS_"))
    C |= ic::DivFmas;
  if (Starts("S_MOVREL"))
    C |= ic::MovRel;
  if (Starts("V_FMA_F64") || Starts("V_FMAC_F64"))
    C |= ic::FMA64;
  if (Starts("DS_GWS") || Starts("DS_ORDERED_COUNT"))
    C |= ic::GDS;
  if (Starts("DS_WRITE_ADDTID") || Starts("DS_READ_ADDTID"))
    C |= ic::AddTID;
  if (Starts("S_SETPRIO"))
    C |= ic::SetPrio;
  if (Starts("S_SLEEP"))
    C |= ic::Sleep;
  if (Starts("BUFFER_WBL2") || Starts("BUFFER_INV") ||
      Starts("BUFFER_WBINVL1") || Starts("S_DCACHE_"))
    C |= ic::CacheCtl;

  // Counters as LLVM's SIInsertWaitcnts charges them on gfx9 (the TSFlags
  // VM_CNT/EXP_CNT/LGKM_CNT bits are a "may use" superset: stores still
  // carry the SI-era EXP_CNT bit, LDS DMA carries all three).
  if (F.is(ic::VMEM))
    F.Counters |= cnt::VM;
  if (F.is(ic::FLAT) || F.is(ic::SMEM) || F.is(ic::DS) || F.is(ic::Message))
    F.Counters |= cnt::LGKM;
  if (F.is(ic::Export) || F.is(ic::GDS))
    F.Counters |= cnt::EXP;
  // Cache control (buffer_wbl2, buffer_inv) completes through vmcnt.
  return F;
}

std::string WaitcntValue::str() const {
  std::string S;
  raw_string_ostream OS(S);
  if (VM < MaxVM)
    OS << "vmcnt(" << VM << ")";
  if (Exp < MaxExp)
    OS << (S.empty() ? "" : " ") << "expcnt(" << Exp << ")";
  if (Lgkm < MaxLgkm)
    OS << (S.empty() ? "" : " ") << "lgkmcnt(" << Lgkm << ")";
  if (S.empty())
    OS << "none";
  return S;
}
