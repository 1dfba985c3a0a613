//===- Emulator.h - Functional emulator for AMDGPU code objects -*- C++ -*-===//
//
// Executes the kernels of a gfx90a/gfx942 code object the way the hardware
// starts them (AMDGPUUsage.rst, "Initial Kernel Execution State"), on wave64
// wavefronts, with every memory operation completing late as the waitcnt
// counters allow. It is the CI oracle of the project, so it must never
// return a wrong result in silence: an instruction it does not implement,
// a runaway kernel, a read of a register whose load is still in flight, an
// access outside every buffer, a missing wait state - each stops or is
// reported as a Violation naming the PC, lane and instruction.
//
// Typical use:
//   auto Emu = Emulator::create(CO);            // decodes the code once
//   DeviceMemory Mem;
//   uint64_t Image = (*Emu)->load(Mem);          // code, rodata, globals
//   ... allocate buffers, build the kernarg segment ...
//   RunResult R = (*Emu)->launch(Mem, Params, Options);
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_EMULATOR_EMULATOR_H
#define ASMEVO_EMULATOR_EMULATOR_H

#include "asmevo/Emulator/DeviceMemory.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <array>
#include <cstdint>
#include <memory>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace llvm {
class raw_ostream;
}

namespace asmevo {
class CodeObject;
struct KernelInfo;

namespace emu {

class Program;
class TraceSink;

/// Flat-address apertures (the high 32 bits that src_shared_base and
/// src_private_base return). Addresses below them are global memory.
constexpr uint64_t SharedApertureBase = 0x1000000000000ull;
constexpr uint64_t PrivateApertureBase = 0x2000000000000ull;
constexpr uint64_t ApertureSize = 0x100000000ull;

struct Violation {
  enum Kind : uint8_t {
    Unimplemented,  ///< Instruction or modifier without semantics.
    Budget,         ///< Instruction budget exhausted (runaway kernel).
    InFlightRead,   ///< Read of a register whose load has not completed.
    InFlightWrite,  ///< Write of a register whose load has not completed.
    OutOfBounds,    ///< Access to unmapped device memory.
    GuardBand,      ///< Access touching a buffer's guard band.
    ReadOnlyWrite,  ///< Store to read-only memory (code, rodata).
    LdsOutOfRange,  ///< LDS access beyond the allocated group segment.
    LdsRace,        ///< LDS access racing with another wave (no barrier).
    StoreRace,      ///< Load of memory with another wave's unwaited store.
    Hazard,         ///< Too few wait states between dependent instructions.
    BadJump,        ///< Branch/call/return to an address with no instruction.
    Trap,           ///< s_trap executed.
    ScratchOutOfRange,
    BadRegister,    ///< Register outside the descriptor's allocation.
    Deadlock,       ///< Barrier that can never complete.
    Misaligned,
  };
  Kind K = Unimplemented;
  std::string Kernel;
  uint64_t PC = 0;       ///< Code-object address of the instruction.
  int Lane = -1;         ///< -1 when not lane-specific.
  int Wave = -1;         ///< Wave index inside its workgroup.
  std::array<uint32_t, 3> Group = {0, 0, 0};
  std::string Inst;      ///< The instruction as printed.
  std::string Message;

  static llvm::StringRef kindName(Kind K);
  void print(llvm::raw_ostream &OS) const;
  /// Kinds after which the results of the launch mean nothing.
  bool isFatal() const;
};

/// Where a hazard rule was hit: rule id, consumer and producer addresses.
struct HazardSite {
  std::string Rule;
  uint64_t Consumer = 0, Producer = 0;
  bool operator<(const HazardSite &O) const {
    return std::tie(Rule, Consumer, Producer) <
           std::tie(O.Rule, O.Consumer, O.Producer);
  }
};
struct HazardSiteHit {
  int Missing = 0;  ///< Most wait states missing at any hit.
  bool Advisory = false;
  std::string Text; ///< The first hit, for messages.
};

/// How one launch is executed.
struct RunOptions {
  /// Seed of the wave/workgroup interleaving; 0 runs waves round-robin in
  /// order (still with late completion).
  uint64_t Seed = 0;
  /// Longest run of one wave before the scheduler may switch (1 = switch
  /// after every instruction).
  unsigned MaxQuantum = 64;
  /// Workgroups in flight at once (their waves are interleaved).
  unsigned ResidentGroups = 2;
  /// Executed instructions (all waves) before the launch is stopped.
  uint64_t InstructionBudget = 1ull << 34;
  bool LateCompletion = true;
  bool HazardChecks = true;
  /// Hazard rules (lib/Analysis rule ids, e.g. "valu-sgpr-valu") whose
  /// hits are counted in RunResult::WaivedHazards instead of reported as
  /// violations: for third-party kernels that knowingly rely on a rule
  /// being conservative. The emulated result does not depend on them.
  std::set<std::string> WaivedHazardRules;
  /// Record every hazard hit (RunResult::HazardHits) instead of reporting
  /// it: a verifier holds K1 to the hazards its original already has.
  bool RecordHazards = false;
  bool RaceChecks = true;
  /// With kernel-argument preload: start at entry+256 (firmware that
  /// preloads) instead of the compatibility prologue at the entry.
  bool UsePreloadEntry = true;
  unsigned MaxViolations = 20;
  /// Record which instruction addresses executed.
  bool RecordCoverage = false;
  /// Every byte of LDS at workgroup start. Hardware leaves LDS undefined;
  /// 0xFF reads as NaN (invisible to min/max), so a verifier varies it.
  uint8_t LdsFill = 0xFF;
  /// Debugging: print every instruction of one wave with the values it
  /// wrote (lane TraceLane) to this stream.
  llvm::raw_ostream *Trace = nullptr;
  std::array<uint32_t, 3> TraceGroup = {0, 0, 0};
  unsigned TraceWave = 0;
  unsigned TraceLane = 0;
  /// Observer of every wave's instructions and memory accesses (the
  /// timing model's input; TraceSink.h). Not owned.
  TraceSink *Sink = nullptr;
};

struct LaunchParams {
  std::string Kernel;                       ///< Symbol name (no ".kd").
  std::array<uint32_t, 3> Grid = {1, 1, 1}; ///< Workgroups per dimension.
  std::array<uint32_t, 3> Block = {1, 1, 1};
  uint32_t DynamicLDS = 0;
  /// Device address and size of the kernarg segment (already filled).
  uint64_t KernargAddr = 0;
  uint64_t KernargSize = 0;
  /// Extra per-work-item scratch for kernels with a dynamic stack.
  uint32_t DynamicScratch = 16384;
};

struct RunResult {
  std::vector<Violation> Violations;
  bool Aborted = false; ///< Stopped early by a fatal violation.
  uint64_t Instructions = 0;
  uint64_t LaneInstructions = 0;
  uint64_t Waves = 0;
  uint64_t Workgroups = 0;
  double Seconds = 0;
  /// Semantics that were exercised but are approximated (never exact).
  std::set<std::string> Approximations;
  /// Hits of waived hazard rules: rule id -> (count, first hit's text).
  std::map<std::string, std::pair<uint64_t, std::string>> WaivedHazards;
  /// Hits of advisory rules (HazardRule::Advisory: LLVM's model asks for
  /// wait states the ISA table does not), same form: not violations, but
  /// a candidate should not add them where its original has none.
  std::map<std::string, std::pair<uint64_t, std::string>> AdvisoryHazards;
  /// Hazard sites hit (RunOptions::RecordHazards), with the most wait
  /// states any hit there missed.
  std::map<HazardSite, HazardSiteHit> HazardHits;
  /// Executed instruction addresses (RunOptions::RecordCoverage).
  std::vector<uint64_t> Executed;

  bool clean() const { return Violations.empty(); }
};

class Emulator {
public:
  /// Decodes every executable section of \p CO once. Fails for targets the
  /// emulator does not support.
  static llvm::Expected<std::unique_ptr<Emulator>>
  create(const CodeObject &CO);
  ~Emulator();

  const CodeObject &codeObject() const { return CO; }

  /// Places code, read-only data and globals into \p Mem (one allocation,
  /// dynamic relocations applied); returns the load base. Must be called
  /// once per DeviceMemory before launch().
  llvm::Expected<uint64_t> load(DeviceMemory &Mem) const;

  /// Runs one dispatch. Errors are for bad parameters (unknown kernel, a
  /// block over 1024 work-items); what the kernel does wrong is reported
  /// in RunResult::Violations.
  llvm::Expected<RunResult> launch(DeviceMemory &Mem, const LaunchParams &P,
                                   const RunOptions &O) const;

  /// Disassembly of the instruction at \p Addr ("" if none).
  std::string instructionText(uint64_t Addr) const;

  struct DecodedInstruction {
    uint64_t Addr = 0;
    std::string Mnemonic; ///< As llvm-objdump prints it ("v_add_u32_e32").
    std::string OpcodeName; ///< MC opcode name.
    std::string Text;     ///< The whole instruction as printed.
    unsigned Size = 0;    ///< Bytes.
    /// Address of a direct branch's target.
    std::optional<uint64_t> BranchTarget;
    bool Supported = false;
    std::string Why;      ///< Why not, when unsupported.
  };
  /// Every decoded instruction with whether the emulator can execute it.
  std::vector<DecodedInstruction> decodedInstructions() const;

  const Program &program() const { return *Prog; }

private:
  Emulator(const CodeObject &CO);
  const CodeObject &CO;
  std::unique_ptr<Program> Prog;
};


} // namespace emu
} // namespace asmevo

#endif
