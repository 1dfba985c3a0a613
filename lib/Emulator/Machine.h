//===- Machine.h - State of one emulated dispatch ---------------*- C++ -*-===//
//
// Waves, workgroups and the memory model of one launch. Register files are
// flat arrays (VGPR r of lane l at V[r * 64 + l]) so that the 64-lane loops
// of the instruction handlers vectorize.
//
// Memory operations complete late: a load's data is read at issue and kept
// in a PendingOp until an s_waitcnt (or the end of the wave) forces it into
// the registers; a store's data reaches memory only at completion. While an
// operation is in flight, its destination registers are marked, and any
// instruction that reads or overwrites them is reported.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_EMULATOR_MACHINE_H
#define ASMEVO_LIB_EMULATOR_MACHINE_H

#include "asmevo/Emulator/Float.h"
#include "Program.h"
#include "asmevo/Analysis/Hazards.h"
#include "asmevo/Emulator/Emulator.h"
#include "llvm/ADT/SmallVector.h"
#include <array>
#include <cstring>
#include <deque>
#include <random>

namespace asmevo {
class HazardWindow;

namespace emu {

constexpr unsigned WaveSize = 64;
/// Instructions of issue history a hazard check looks back over (the
/// longest rule needs 19 wait states).
constexpr unsigned HazWindowLen = 24;
/// Windows remembered per instruction by the hazard check cache.
constexpr unsigned HazWays = 4;
/// The largest unified register file (gfx90a/gfx94x: 512 VGPRs + AGPRs).
constexpr unsigned MaxVSlots = 512;
constexpr uint64_t AllLanes = ~0ull;

struct Machine;
struct Workgroup;

/// One in-flight memory operation.
struct PendingOp {
  enum Type : uint8_t { LoadV, LoadS, Store, LdsWrite, LdsDma, Nothing };
  enum Ctr : uint8_t { VM = 1, LGKM = 2 };
  Type T = Nothing;
  uint8_t Counters = 0;
  bool IsLDS = false;  ///< Counts as an LDS op for lgkmcnt ordering.
  bool IsSMEM = false;
  bool IsFLAT = false;
  bool Applied = false; ///< Memory effect already performed.
  uint32_t Inst = 0;    ///< Issuing instruction index.
  uint64_t Exec = 0;
  // Register destination.
  uint8_t DstFile = 0;  ///< 0 SGPR, 1 vector slot.
  uint16_t DstReg = 0;
  uint8_t DstCount = 0;
  uint32_t DstMask = ~0u; ///< Bits of each register written (d16).
  uint8_t DstShift = 0;   ///< d16_hi: data goes to bits 31:16.
  /// [reg * 64 + lane], or [reg] for SGPRs. Only lanes in Exec are valid.
  alignas(64) uint32_t Data[256];
  // Memory effects (stores, LDS writes, LDS DMA): at most two per lane
  // (ds_write2).
  static constexpr unsigned MaxWrites = 128;
  unsigned NumWrites = 0;
  uint64_t WAddr[MaxWrites]; ///< Device address, or LDS byte offset.
  uint8_t *WHost[MaxWrites]; ///< Resolved host pointer (nullptr for LDS).
  uint8_t WLen[MaxWrites];
  alignas(16) uint8_t WData[MaxWrites][16];
  uint64_t Lo = ~0ull, Hi = 0; ///< Address summary of the writes.

  void reset() {
    T = Nothing;
    Counters = 0;
    IsLDS = IsSMEM = IsFLAT = Applied = false;
    DstFile = 0;
    DstReg = 0;
    DstCount = 0;
    DstMask = ~0u;
    DstShift = 0;
    NumWrites = 0;
    Lo = ~0ull;
    Hi = 0;
  }
  void addWrite(uint64_t Addr, uint8_t *Host, const void *Src, uint32_t Len) {
    if (NumWrites == MaxWrites)
      return; // cannot happen: one instruction writes at most 2 per lane
    unsigned N = NumWrites++;
    WAddr[N] = Addr;
    WHost[N] = Host;
    WLen[N] = uint8_t(Len);
    std::memcpy(WData[N], Src, Len);
    Lo = std::min(Lo, Addr);
    Hi = std::max(Hi, Addr + Len);
  }
};

struct Wave {
  Machine *M = nullptr;
  Workgroup *WG = nullptr;
  const DInst *Code = nullptr;
  uint32_t PC = 0;       ///< Instruction index.
  unsigned Id = 0;       ///< Wave index in the workgroup.
  bool Running = true;
  bool AtBarrier = false;
  bool SCC = false;
  uint32_t Mode = 0;     ///< MODE register (hwreg 1).
  uint32_t AccOff = 256; ///< Slot of a0 (accum_offset).
  uint32_t NumVRegs = 512; ///< Allocated slots (descriptor granule).
  // GPR indexing (s_set_gpr_idx_on).
  bool GprIdxOn = false;
  uint8_t GprIdxMode = 0;
  alignas(64) uint32_t S[NumSgprSlots];
  uint32_t *V = nullptr; ///< NumVRegs * 64.
  std::vector<uint32_t> VStorage;

  // Memory model.
  std::deque<PendingOp *> Pending;
  std::vector<PendingOp *> Pool;
  unsigned VmCnt = 0, LgkmCnt = 0;
  unsigned NumPendRegs = 0;
  unsigned NumPendStores = 0;
  uint8_t PendS[NumSgprSlots];
  std::vector<uint8_t> PendV; ///< Per vector slot.

  // Private memory: per lane, ScratchPerLane bytes.
  std::vector<uint8_t> Scratch;
  uint32_t ScratchPerLane = 0;

  uint64_t Clock = 0;
  // Issue history for the hazard checks (HazardCheck.cpp): instruction
  // index + 1 per slot (0 = none) and a rolling hash of the ring.
  uint32_t HazRing[HazWindowLen];
  unsigned HazPos = 0;
  uint64_t HazHash = 0;

  // Memory translation cache.
  Allocation *MemCache = nullptr;
  /// RunOptions::Sink's handle of this wave (nullptr: not traced).
  void *TraceCookie = nullptr;

  uint64_t exec() const {
    uint64_t E;
    std::memcpy(&E, &S[SgprEXEC], 8);
    return E;
  }
  void setExec(uint64_t E) { std::memcpy(&S[SgprEXEC], &E, 8); }
  uint64_t vcc() const {
    uint64_t E;
    std::memcpy(&E, &S[SgprVCC], 8);
    return E;
  }
  void setVcc(uint64_t E) { std::memcpy(&S[SgprVCC], &E, 8); }
  uint64_t sreg64(unsigned R) const {
    uint64_t E;
    std::memcpy(&E, &S[R & 127], 4);
    std::memcpy(reinterpret_cast<char *>(&E) + 4, &S[(R + 1) & 127], 4);
    return E;
  }
  void setSreg64(unsigned R, uint64_t V64) {
    S[R & 127] = uint32_t(V64);
    S[(R + 1) & 127] = uint32_t(V64 >> 32);
  }
  unsigned slot(const Operand &O, unsigned K = 0) const {
    unsigned R = O.Reg + K + (O.Kind == OpKind::AGPR ? AccOff : 0);
    // Launch-time validation keeps decoded operands in range; the clamp
    // only guards memory safety (GPR indexing is checked separately).
    return R < NumVRegs ? R : NumVRegs - 1;
  }
  uint32_t *vreg(const Operand &O, unsigned K = 0) {
    return V + slot(O, K) * WaveSize;
  }
  uint32_t *vslot(unsigned Slot) { return V + Slot * WaveSize; }

  /// 32-bit value of a scalar operand (SGPR, constant or special).
  uint32_t scalar32(const Operand &O) const;
  /// 64-bit value of a scalar operand.
  uint64_t scalar64(const Operand &O) const;
  void writeScalar32(const Operand &O, uint32_t V32);
  void writeScalar64(const Operand &O, uint64_t V64);

  PendingOp *newOp() {
    PendingOp *P;
    if (Pool.empty())
      P = new PendingOp();
    else {
      P = Pool.back();
      Pool.pop_back();
    }
    P->reset();
    return P;
  }
  ~Wave() {
    for (PendingOp *P : Pending)
      delete P;
    for (PendingOp *P : Pool)
      delete P;
  }
};

struct Workgroup {
  std::array<uint32_t, 3> Id = {0, 0, 0};
  std::vector<std::unique_ptr<Wave>> Waves;
  std::vector<uint8_t> LDS;
  uint32_t LdsSize = 0;
  unsigned Epoch = 1; ///< Barrier generation.
  unsigned Arrived = 0;
  bool Done = false;
  // LDS race shadow, one entry per dword.
  std::vector<uint32_t> ShWriter; ///< epoch << 6 | (wave + 1)
  std::vector<uint32_t> ShRead;   ///< (epoch & 0xffff) << 16 | wave mask
};

/// Everything one launch shares.
struct Machine {
  const Program &Prog;
  DeviceMemory &Mem;
  const RunOptions &Opt;
  const LaunchParams &P;
  RunResult &R;
  std::string KernelName;
  bool Stop = false;
  /// --trace or a TraceSink: the instruction loop takes its slow path.
  bool SlowStep = false;
  uint64_t Budget = 0;
  std::mt19937_64 Rng;
  uint64_t LoadBase = 0; ///< Device address of code-object address 0.
  uint64_t DispatchPtr = 0, QueuePtr = 0;
  Wave *Cur = nullptr;
  std::vector<Wave *> Resident; ///< Waves of the resident workgroups.
  std::vector<uint8_t> Executed; ///< Per instruction (coverage).
  /// Per instruction: operands outside this kernel's register allocation
  /// (empty when none is).
  std::vector<uint8_t> BadReg;
  bool FlushF32 = false;          ///< Descriptor denorm mode flushes f32.
  bool FlushF16F64 = false;
  uint32_t ApproxBits = 0;        ///< AX_* kinds exercised.

  Machine(const Program &Prog, DeviceMemory &Mem, const RunOptions &Opt,
          const LaunchParams &P, RunResult &R)
      : Prog(Prog), Mem(Mem), Opt(Opt), P(P), R(R) {}

  /// Records a violation; fatal kinds stop the launch.
  void report(Wave &W, const DInst &I, Violation::Kind K, int Lane,
              const llvm::Twine &Msg);
  void approx(const char *What) { R.Approximations.insert(What); }

  // Memory model (MemoryModel.cpp).
  void issue(Wave &W, PendingOp *Op);
  void waitCounters(Wave &W, unsigned Vm, unsigned Lgkm);
  void completeAll(Wave &W);
  void complete(Wave &W, PendingOp *Op);
  void applyStore(Wave &W, PendingOp *Op);
  /// Own-wave store-to-load forwarding: applies this wave's pending stores
  /// that overlap [Lo, Hi) before it reads there.
  void flushOwnStores(Wave &W, uint64_t Lo, uint64_t Hi, bool Lds);
  /// Reports a load that reads memory another wave stored to without a
  /// completed wait.
  void checkStoreRace(Wave &W, const DInst &I, const uint64_t *Addr,
                      const uint32_t *Len, uint64_t Mask, bool Lds);
  void checkInFlight(Wave &W, const DInst &I);
  // Hazard checks (HazardCheck.cpp).
  /// Per instruction, HazWays recently checked windows (hash keys).
  std::vector<uint64_t> HazKey;
  std::unique_ptr<HazardWindow> HazWin;
  uint64_t HazMisses = 0;
  std::map<std::string, std::pair<uint64_t, std::string>> Waived;
  std::map<std::string, std::pair<uint64_t, std::string>> Advisories;
  std::map<HazardSite, HazardSiteHit> Sites;
  void checkHazards(Wave &W, const DInst &I);
  void hazardIssued(Wave &W, const DInst &I);
  ~Machine();

  /// Stores of resident waves not yet visible (cheap pre-check for races).
  unsigned PendStoresAll = 0;
  bool OtherPendStores(const Wave &W) const {
    return PendStoresAll > W.NumPendStores;
  }

  // Memory access (Access.cpp). Each returns nullptr and reports when the
  // access is invalid.
  uint8_t *global(Wave &W, const DInst &I, uint64_t Addr, uint32_t Len,
                  bool Write, int Lane);
  uint8_t *lds(Wave &W, const DInst &I, uint64_t Off, uint32_t Len, int Lane);
  uint8_t *scratch(Wave &W, const DInst &I, uint64_t Off, uint32_t Len,
                   int Lane);
  void ldsShadowRead(Wave &W, const DInst &I, uint64_t Off, uint32_t Len,
                     int Lane);
  void ldsShadowWrite(Wave &W, uint32_t InstIdx, uint64_t Off, uint32_t Len);
  /// ldsShadowRead for every lane of \p Mask (addresses in range).
  void ldsShadowReadLanes(Wave &W, const DInst &I, const uint64_t *Addr,
                          uint64_t Mask, uint32_t Len);

  std::string instText(const DInst &I) const {
    return Prog.Text[I.Index].Text;
  }
};

/// Approximated semantics, reported with every run (Machine::ApproxBits).
enum : uint32_t {
  AX_TRANS = 1u << 0,
  AX_MFMA = 1u << 1,
  AX_MAD_DENORM = 1u << 2,
  AX_FP8 = 1u << 3,
  AX_CACHE = 1u << 4,
  AX_F16_TRANS = 1u << 5,
  AX_SR = 1u << 6,
  AX_MFMA_F64 = 1u << 7,
  AX_BUF_RANGE = 1u << 8,
};
/// Text of each AX_* bit.
const char *approxText(uint32_t Bit);

inline unsigned popcount64(uint64_t X) { return __builtin_popcountll(X); }

/// Whether [Off, Off+Len) lies in [0, Size); addresses come from the
/// kernel under test, so Off + Len may wrap and must not be computed.
inline bool fitsIn(uint64_t Off, uint64_t Len, uint64_t Size) {
  return Len <= Size && Off <= Size - Len;
}

template <typename T> inline T bitcast(const void *P) {
  T V;
  std::memcpy(&V, P, sizeof(T));
  return V;
}

} // namespace emu
} // namespace asmevo

#endif
