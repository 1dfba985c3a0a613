//===- ISAFacts.h - What an instruction is, from LLVM's tables --*- C++ -*-===//
//
// Instruction class, waitcnt counters, MFMA pass counts and memory effects
// for real (encoding-specific) MC opcodes of gfx90a, gfx942 and gfx950.
// Derived from LLVM where it knows them:
//  - MCInstrDesc::TSFlags: the SIInstrFlags bits of LLVM's private header
//    llvm/lib/Target/AMDGPU/SIDefines.h (positions written down below; the
//    unit test ISAFactsTest pins the classification of known instructions
//    so that an LLVM upgrade that moves a bit fails loudly);
//  - MCInstrDesc mayLoad/mayStore and implicit uses/defs;
//  - the subtarget's scheduling model: the pass count of an MFMA is the
//    ReleaseAtCycle of its first write resource, and the resource name
//    (HWXDL or not) tells XDL from DGEMM/SMFMA, as LLVM's own
//    GCNHazardRecognizer::getMFMAPipelineWaitStates does;
//  - opcode names where LLVM keeps the fact in private tables (s_nop,
//    s_waitcnt, v_readlane, v_div_fmas, ...).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_ANALYSIS_ISAFACTS_H
#define ASMEVO_ANALYSIS_ISAFACTS_H

#include "asmevo/Analysis/RegSlots.h"
#include "asmevo/Lift/InstrKinds.h"
#include "asmevo/Support/TargetContext.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <memory>

namespace llvm {
class MCInst;
}
#include <vector>

namespace asmevo {

/// Bit positions of SIInstrFlags in MCInstrDesc::TSFlags (LLVM 22,
/// llvm/lib/Target/AMDGPU/SIDefines.h, "namespace SIInstrFlags").
namespace tsflag {
enum : unsigned {
  SALU = 0,
  VALU = 1,
  SOPK = 5,
  SOPP = 6,
  VOP1 = 7,
  VOP2 = 8,
  VOPC = 9,
  VOP3 = 10,
  VOP3P = 12,
  SDWA = 14,
  DPP = 15,
  TRANS = 16,
  MUBUF = 17,
  MTBUF = 18,
  SMRD = 19,
  MIMG = 20,
  EXP = 23,
  FLAT = 24,
  DS = 25,
  VM_CNT = 32,
  EXP_CNT = 33,
  LGKM_CNT = 34,
  SCALAR_STORE = 39,
  FlatGlobal = 51,
  IsMAI = 54,
  IsDOT = 55,
  FlatScratch = 56,
  IsAtomicNoRet = 57,
  IsAtomicRet = 58,
};
} // namespace tsflag

enum class GPUGen : uint8_t { GFX90A, GFX94X, GFX950 };

/// Instruction classes (several may hold at once).
namespace ic {
enum : uint64_t {
  SALU = 1ull << 0,
  VALU = 1ull << 1,     ///< TSFlags VALU (includes MFMA and LDS DMA).
  Trans = 1ull << 2,    ///< Transcendental VALU (v_exp, v_rcp, ...).
  VMEM = 1ull << 3,     ///< Buffer, global, scratch or flat access.
  MemLoad = 1ull << 4,  ///< Returns data to registers.
  MemStore = 1ull << 5, ///< Writes memory.
  Atomic = 1ull << 6,
  LDSDMA = 1ull << 7, ///< buffer/global load ... lds: memory -> LDS.
  SMEM = 1ull << 8,
  DS = 1ull << 9,     ///< LDS (or GDS) instruction.
  FLAT = 1ull << 10,  ///< Generic flat: may access LDS or memory.
  MFMA = 1ull << 11,  ///< Matrix instruction with passes (not accvgpr).
  XDL = 1ull << 12,   ///< MFMA on the XDL unit.
  DGEMM = 1ull << 13, ///< F64 MFMA.
  DOT = 1ull << 14,
  AccMove = 1ull << 15, ///< v_accvgpr_read/write/mov.
  Branch = 1ull << 16,  ///< Any control transfer (see Flow).
  Barrier = 1ull << 17,
  Message = 1ull << 18, ///< s_sendmsg, s_sendmsghalt, s_ttracedata.
  Waitcnt = 1ull << 19,
  Nop = 1ull << 20,
  SetReg = 1ull << 21,
  GetReg = 1ull << 22,
  EndPgm = 1ull << 23,
  DPP = 1ull << 24,
  SDWA = 1ull << 25,
  ReadLane = 1ull << 26,  ///< v_readlane_b32, v_readfirstlane_b32.
  WriteLane = 1ull << 27, ///< v_writelane_b32.
  DivFmas = 1ull << 28,
  Export = 1ull << 29,
  MovRel = 1ull << 30,  ///< s_movrel*: reads M0 as an index.
  Scratch = 1ull << 31, ///< scratch_* (FLAT scratch segment).
  Global = 1ull << 32,  ///< global_* (FLAT global segment).
  Buffer = 1ull << 33,  ///< MUBUF/MTBUF.
  FMA64 = 1ull << 34,   ///< v_fma_f64 / v_fmac_f64 (DGEMM hazard).
  GDS = 1ull << 35,
  AddTID = 1ull << 36, ///< ds_*_addtid: reads M0.
  SetPrio = 1ull << 37,
  Sleep = 1ull << 38,
  CacheCtl = 1ull << 39, ///< buffer_wbl2, buffer_inv, s_dcache_*.
};
} // namespace ic

/// Waitcnt counters an instruction increments.
namespace cnt {
enum : uint8_t { VM = 1, LGKM = 2, EXP = 4 };
}

struct OpcodeFacts {
  llvm::StringRef Name;
  uint64_t TSFlags = 0;
  uint64_t Classes = 0;
  uint8_t Counters = 0;
  /// MFMA passes (2, 4, 8, 16); 1 for other instructions.
  uint8_t Passes = 1;
  FlowKind Flow = FlowKind::None;
  /// The scheduling class depends on operands (gfx950 scaled MFMAs): the
  /// pass count is resolved per instruction (ISAFacts::resolveMFMA).
  bool VariantSched = false;
  bool MayLoad = false;
  bool MayStore = false;
  bool Valid = false;

  bool is(uint64_t C) const { return (Classes & C) != 0; }
  bool isVALU() const { return is(ic::VALU); }
  /// VALU that is not an MFMA ("legacy VALU" in the ISA tables).
  bool isLegacyVALU() const { return is(ic::VALU) && !is(ic::MFMA); }
  /// Any vector memory instruction (VMEM, FLAT, DS).
  bool isVectorMem() const { return is(ic::VMEM | ic::DS); }
  /// Writes LDS: DS stores/atomics and LDS DMA.
  bool writesLDS() const { return (is(ic::DS) && MayStore) || is(ic::LDSDMA); }
  bool readsLDS() const { return is(ic::DS) && MayLoad; }
};

/// Facts for one target; cheap to query (computed once per opcode).
class ISAFacts {
public:
  explicit ISAFacts(const TargetContext &TC);

  const OpcodeFacts &get(unsigned Opcode) const;
  /// Pass count and XDL-ness of an MFMA whose scheduling class is variant,
  /// resolved on the instruction; false when LLVM cannot resolve it.
  bool resolveMFMA(const llvm::MCInst &MI, unsigned &Passes, bool &XDL) const;
  const TargetContext &target() const { return TC; }
  const RegSlotMap &slots() const { return *Slots; }
  GPUGen gen() const { return Gen; }
  bool isGFX940Plus() const { return Gen != GPUGen::GFX90A; }
  /// XNACK on or any: memory clauses may be replayed (soft clauses).
  bool xnackReplay() const { return XnackReplay; }
  /// The MCOperandInfo::OperandType of source-modifier operands
  /// (src0_modifiers: SISrcMods bits), learnt from v_add_f32_e64's
  /// descriptor; ~0u when the target has no such opcode.
  unsigned inputModsType() const { return InputModsType; }

private:
  OpcodeFacts compute(unsigned Opcode) const;
  const TargetContext &TC;
  /// Both depend on the target alone, and building them costs milliseconds
  /// (a pass of the optimizer makes an ISAFacts per run, hundreds per
  /// object): shared by every ISAFacts of a target, the slot map in the
  /// process, the facts per thread (they are filled in lazily).
  std::shared_ptr<const RegSlotMap> Slots;
  GPUGen Gen = GPUGen::GFX94X;
  bool XnackReplay = true;
  unsigned InputModsType = ~0u;
  std::shared_ptr<std::vector<OpcodeFacts>> Cache;
};

/// gfx9 s_waitcnt simm16 (CDNA3 ISA, SOPP "S_WAITCNT": vmcnt [3:0] and
/// [15:14], expcnt [6:4], lgkmcnt [11:8]).
struct WaitcntValue {
  static constexpr unsigned MaxVM = 63, MaxExp = 7, MaxLgkm = 15;
  unsigned VM = MaxVM, Exp = MaxExp, Lgkm = MaxLgkm;

  static WaitcntValue decode(uint64_t Imm) {
    WaitcntValue W;
    W.VM = (Imm & 0xf) | ((Imm >> 10) & 0x30);
    W.Exp = (Imm >> 4) & 0x7;
    W.Lgkm = (Imm >> 8) & 0xf;
    return W;
  }
  uint16_t encode() const {
    return (VM & 0xf) | ((VM & 0x30) << 10) | ((Exp & 7) << 4) |
           ((Lgkm & 0xf) << 8);
  }
  static WaitcntValue none() { return {}; }
  bool waitsOn(uint8_t Counter) const {
    return (Counter == cnt::VM && VM < MaxVM) ||
           (Counter == cnt::LGKM && Lgkm < MaxLgkm) ||
           (Counter == cnt::EXP && Exp < MaxExp);
  }
  unsigned get(uint8_t Counter) const {
    return Counter == cnt::VM ? VM : Counter == cnt::LGKM ? Lgkm : Exp;
  }
  static unsigned max(uint8_t Counter) {
    return Counter == cnt::VM ? MaxVM : Counter == cnt::LGKM ? MaxLgkm : MaxExp;
  }
  void set(uint8_t Counter, unsigned V) {
    (Counter == cnt::VM ? VM : Counter == cnt::LGKM ? Lgkm : Exp) = V;
  }
  /// "vmcnt(0) lgkmcnt(1)" as the assembler writes it.
  std::string str() const;
};

} // namespace asmevo

#endif
