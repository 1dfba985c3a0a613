//===- Engine.cpp - Loading, dispatch and wave scheduling -----------------===//
//
// The dispatch ABI follows AMDGPUUsage.rst ("Kernel Descriptor",
// "Initial Kernel Execution State", "Preloaded Kernel Arguments"): user
// SGPRs from s0 in the documented order, then the preloaded kernel
// arguments, then (from USER_SGPR_COUNT on) the workgroup IDs, workgroup
// info and the private segment wave offset; packed work-item IDs in v0.
//
//===----------------------------------------------------------------------===//
#include "Machine.h"
#include "Semantics.h"
#include "asmevo/Analysis/Hazards.h"
#include "asmevo/Analysis/Resources.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/KernelMetadata.h"
#include "asmevo/Emulator/TraceSink.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <ctime>
#include <numeric>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

//===----------------------------------------------------------------------===//
// Violations
//===----------------------------------------------------------------------===//

StringRef Violation::kindName(Kind K) {
  switch (K) {
  case Unimplemented: return "unimplemented";
  case Budget: return "instruction-budget";
  case InFlightRead: return "in-flight-read";
  case InFlightWrite: return "in-flight-write";
  case OutOfBounds: return "out-of-bounds";
  case GuardBand: return "guard-band";
  case ReadOnlyWrite: return "read-only-write";
  case LdsOutOfRange: return "lds-out-of-range";
  case LdsRace: return "lds-race";
  case StoreRace: return "store-race";
  case Hazard: return "hazard";
  case BadJump: return "bad-jump";
  case Trap: return "trap";
  case ScratchOutOfRange: return "scratch-out-of-range";
  case BadRegister: return "bad-register";
  case Deadlock: return "deadlock";
  case Misaligned: return "misaligned";
  }
  return "unknown";
}

bool Violation::isFatal() const {
  switch (K) {
  case Unimplemented:
  case Budget:
  case BadJump:
  case Trap:
  case BadRegister:
  case Deadlock:
    return true;
  default:
    return false;
  }
}

void Violation::print(raw_ostream &OS) const {
  OS << "violation: " << kindName(K) << ": kernel '" << Kernel << "'";
  if (PC != ~0ull)
    OS << " pc " << format_hex(PC, 8);
  OS << " workgroup (" << Group[0] << "," << Group[1] << "," << Group[2]
     << ")";
  if (Wave >= 0)
    OS << " wave " << Wave;
  if (Lane >= 0)
    OS << " lane " << Lane;
  if (!Inst.empty())
    OS << ": '" << Inst << "'";
  OS << ": " << Message << "\n";
}

void Machine::report(Wave &W, const DInst &I, Violation::Kind K, int Lane,
                     const Twine &Msg) {
  Violation V;
  V.K = K;
  V.Kernel = KernelName;
  V.PC = I.Addr;
  V.Lane = Lane;
  V.Wave = int(W.Id);
  if (W.WG)
    V.Group = W.WG->Id;
  V.Inst = I.Index < Prog.Text.size() ? Prog.Text[I.Index].Text : "";
  V.Message = Msg.str();
  bool Fatal = V.isFatal();
  if (Opt.Trace)
    V.print(*Opt.Trace);
  // Keep the report short: one violation per (kind, pc) is enough to act.
  bool Dup = false;
  for (const Violation &O : R.Violations)
    if (O.K == K && O.PC == V.PC) {
      Dup = true;
      break;
    }
  if (!Dup && R.Violations.size() < Opt.MaxViolations)
    R.Violations.push_back(std::move(V));
  if (Fatal || R.Violations.size() >= Opt.MaxViolations) {
    Stop = true;
    R.Aborted = true;
    W.Running = false;
  }
}

Machine::~Machine() = default;

void emu::execUnimplemented(Wave &W, const DInst &I) {
  const Program &P = W.M->Prog;
  auto It = P.Notes.find(I.Index);
  std::string Why = It == P.Notes.end() ? "no semantics" : It->second;
  std::string Name = I.Index < P.Text.size() ? P.Text[I.Index].Name : "";
  Violation::Kind K = I.Addr == ~0ull ? Violation::BadJump
                                      : Violation::Unimplemented;
  // Undecodable bytes have no name: say what they are instead.
  W.M->report(W, I, K, -1,
              Name.empty() ? Why
                           : "instruction " + Name + " not implemented: " + Why);
  W.Running = false;
}

//===----------------------------------------------------------------------===//
// Scalar operand access
//===----------------------------------------------------------------------===//

static uint64_t specialValue(const Wave &W, const Operand &O) {
  switch (O.Special) {
  case SpSCC: return W.SCC;
  case SpVCCZ: return W.vcc() == 0;
  case SpEXECZ: return W.exec() == 0;
  case SpSharedBase: return SharedApertureBase;
  case SpSharedLimit: return SharedApertureBase + ApertureSize - 1;
  case SpPrivateBase: return PrivateApertureBase;
  case SpPrivateLimit: return PrivateApertureBase + ApertureSize - 1;
  default: return 0;
  }
}

uint32_t Wave::scalar32(const Operand &O) const {
  switch (O.Kind) {
  case OpKind::SGPR: return S[O.Reg & 127];
  case OpKind::Imm: return uint32_t(O.Imm);
  case OpKind::Special: {
    uint64_t V = specialValue(*this, O);
    // As a 32-bit operand an aperture register is its high half.
    if (O.Special >= SpSharedBase && O.Special <= SpPrivateLimit)
      return uint32_t(V >> 32);
    return uint32_t(V);
  }
  default: return 0;
  }
}

uint64_t Wave::scalar64(const Operand &O) const {
  switch (O.Kind) {
  case OpKind::SGPR: return sreg64(O.Reg);
  case OpKind::Imm: return O.Imm;
  case OpKind::Special: return specialValue(*this, O);
  default: return 0;
  }
}

void Wave::writeScalar32(const Operand &O, uint32_t V32) {
  if (O.Kind == OpKind::SGPR && O.Reg != SgprNull)
    S[O.Reg & 127] = V32;
}

void Wave::writeScalar64(const Operand &O, uint64_t V64) {
  if (O.Kind == OpKind::SGPR && O.Reg != SgprNull)
    setSreg64(O.Reg, V64);
}

//===----------------------------------------------------------------------===//
// Emulator
//===----------------------------------------------------------------------===//

Emulator::Emulator(const CodeObject &CO) : CO(CO) {}
Emulator::~Emulator() = default;

Expected<std::unique_ptr<Emulator>> Emulator::create(const CodeObject &CO) {
  std::unique_ptr<Emulator> E(new Emulator(CO));
  auto P = Program::decode(CO);
  if (!P)
    return P.takeError();
  E->Prog = std::move(*P);
  return std::move(E);
}

std::string Emulator::instructionText(uint64_t Addr) const {
  const DInst *I = Prog->at(Addr);
  return I ? Prog->Text[I->Index].Text : "";
}

std::vector<Emulator::DecodedInstruction>
Emulator::decodedInstructions() const {
  std::vector<DecodedInstruction> Out;
  for (const DInst &I : Prog->Insts) {
    if (I.Addr == ~0ull)
      continue;
    DecodedInstruction D;
    D.Addr = I.Addr;
    D.Mnemonic = Prog->Text[I.Index].Mnemonic;
    D.OpcodeName = Prog->Text[I.Index].Name;
    D.Text = Prog->Text[I.Index].Text;
    D.Size = I.Size;
    if (I.Target != ~0u)
      D.BranchTarget = Prog->Insts[I.Target].Addr;
    D.Supported = !(I.Flags & FDecodeError);
    if (!D.Supported) {
      auto It = Prog->Notes.find(I.Index);
      D.Why = It == Prog->Notes.end() ? "" : It->second;
    }
    Out.push_back(std::move(D));
  }
  return Out;
}

/// The image spans every allocated section; relocations are applied to it.
Expected<uint64_t> Emulator::load(DeviceMemory &Mem) const {
  uint64_t End = 0;
  for (const ELFSection &S : CO.sections())
    if (S.isAlloc())
      End = std::max(End, S.Addr + S.Size);
  if (End > (1ull << 32))
    return createStringError("%s: loadable image of %llu bytes is too large",
                             CO.name().str().c_str(),
                             (unsigned long long)End);
  uint64_t Base = Mem.allocate("code object " + CO.name().str(), End, 4096,
                               4096);
  Allocation *A = Mem.find(Base);
  for (const ELFSection &S : CO.sections()) {
    if (!S.isAlloc() || S.Type == ELF::SHT_NOBITS || S.Bytes.empty())
      continue;
    std::memcpy(A->data() + S.Addr, S.Bytes.data(), S.Bytes.size());
  }
  for (const ELFDynReloc &R : CO.dynamicRelocations()) {
    if (R.Offset + 8 > End)
      return createStringError("%s: dynamic relocation at 0x%llx is outside "
                               "the image",
                               CO.name().str().c_str(),
                               (unsigned long long)R.Offset);
    uint64_t V;
    if (R.Type == ELF::R_AMDGPU_RELATIVE64) {
      V = Base + uint64_t(R.Addend);
    } else if (R.Type == ELF::R_AMDGPU_ABS64) {
      const ELFSymbol *Sym = CO.findSymbol(R.Symbol);
      if (!Sym || Sym->SectionIndex == 0)
        return createStringError(
            "%s: dynamic relocation against undefined symbol '%s'",
            CO.name().str().c_str(), R.Symbol.c_str());
      V = Base + Sym->Value + uint64_t(R.Addend);
    } else {
      return createStringError("%s: unsupported dynamic relocation type %u",
                               CO.name().str().c_str(), R.Type);
    }
    std::memcpy(A->data() + R.Offset, &V, 8);
  }
  return Base;
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

namespace {

struct KernelSetup {
  const KernelInfo *K = nullptr;
  uint32_t EntryIndex = 0;
  uint32_t LdsSize = 0;
  uint32_t ScratchPerLane = 0;
  unsigned WavesPerGroup = 0;
  unsigned GroupSize = 0;
  uint32_t Mode = 0;
};

class Scheduler {
public:
  Scheduler(Machine &M, const KernelSetup &KS) : M(M), KS(KS) {}
  void run();

private:
  std::unique_ptr<Workgroup> makeGroup(uint32_t X, uint32_t Y, uint32_t Z);
  void initWave(Wave &W, Workgroup &G, unsigned WaveIdx);
  /// Runs \p W for up to \p Quantum instructions.
  void step(Wave &W, uint64_t Quantum);
  void retireGroup(Workgroup &G);

  Machine &M;
  const KernelSetup &KS;
  /// Waves of retired workgroups, reused (their buffers stay allocated).
  std::vector<std::unique_ptr<Wave>> Spare;
};

} // namespace

std::unique_ptr<Workgroup> Scheduler::makeGroup(uint32_t X, uint32_t Y,
                                                uint32_t Z) {
  auto G = std::make_unique<Workgroup>();
  G->Id = {X, Y, Z};
  G->LdsSize = KS.LdsSize;
  // LDS is not initialised at workgroup start on hardware: a poison
  // pattern (not zeros) keeps a kernel that forgets to clear it from
  // looking right.
  G->LDS.assign(std::max<uint32_t>(KS.LdsSize, 4), M.Opt.LdsFill);
  if (M.Opt.RaceChecks) {
    size_t Dw = (G->LDS.size() + 3) / 4;
    G->ShWriter.assign(Dw, 0);
    G->ShRead.assign(Dw, 0);
  }
  for (unsigned Wi = 0; Wi < KS.WavesPerGroup; ++Wi) {
    std::unique_ptr<Wave> W;
    if (!Spare.empty()) {
      W = std::move(Spare.back());
      Spare.pop_back();
    } else {
      W = std::make_unique<Wave>();
    }
    initWave(*W, *G, Wi);
    G->Waves.push_back(std::move(W));
  }
  return G;
}

void Scheduler::initWave(Wave &W, Workgroup &G, unsigned WaveIdx) {
  const KernelDescriptor &KD = KS.K->KD;
  const LaunchParams &P = M.P;
  W.M = &M;
  W.WG = &G;
  W.Code = M.Prog.Insts.data();
  W.PC = KS.EntryIndex;
  W.Id = WaveIdx;
  W.Running = true;
  W.AtBarrier = false;
  W.SCC = false;
  W.GprIdxOn = false;
  W.GprIdxMode = 0;
  W.VmCnt = W.LgkmCnt = 0;
  W.NumPendRegs = W.NumPendStores = 0;
  W.Clock = 0;
  W.MemCache = nullptr;
  W.TraceCookie = nullptr;
  if (M.Opt.Sink)
    W.TraceCookie = M.Opt.Sink->beginWave(
        G.Id[0] + uint64_t(M.P.Grid[0]) * (G.Id[1] + uint64_t(M.P.Grid[1]) *
                                                        G.Id[2]),
        WaveIdx);
  std::memset(W.HazRing, 0, sizeof(W.HazRing));
  W.HazPos = 0;
  W.HazHash = 0;
  W.Mode = KS.Mode;
  W.AccOff = KD.accumOffset();
  W.NumVRegs = std::max(1u, std::min(KD.allocatedVGPRs(), MaxVSlots));
  W.VStorage.assign(size_t(W.NumVRegs) * WaveSize, 0);
  W.V = W.VStorage.data();
  W.PendV.assign(W.NumVRegs, 0);
  std::memset(W.S, 0, sizeof(W.S));
  std::memset(W.PendS, 0, sizeof(W.PendS));
  W.ScratchPerLane = KS.ScratchPerLane;
  if (KS.ScratchPerLane)
    W.Scratch.assign(size_t(KS.ScratchPerLane) * WaveSize, 0);

  // EXEC: the work-items of this wave (a partial last wave has fewer).
  unsigned First = WaveIdx * WaveSize;
  unsigned Active = std::min<unsigned>(WaveSize, KS.GroupSize - First);
  W.setExec(Active == 64 ? AllLanes : ((1ull << Active) - 1));

  // v0: packed work-item IDs (X bits 0-9, Y 10-19, Z 20-29), as many as
  // ENABLE_VGPR_WORKITEM_ID asks for; the others are zero (LLVM relies on
  // it and reads X unmasked from a kernel that enables X only).
  uint32_t *V0 = W.vslot(0);
  unsigned Dims = KD.workItemIDDims();
  for (unsigned L = 0; L < Active; ++L) {
    unsigned F = First + L;
    unsigned X = F % P.Block[0];
    unsigned Y = Dims >= 1 ? (F / P.Block[0]) % P.Block[1] : 0;
    unsigned Z = Dims >= 2 ? F / (P.Block[0] * P.Block[1]) : 0;
    V0[L] = X | (Y << 10) | (Z << 20);
  }

  // User SGPRs in AMDGPUUsage order.
  unsigned S = 0;
  auto Put64 = [&](uint64_t V) {
    if (S + 1 < 16) {
      W.S[S] = uint32_t(V);
      W.S[S + 1] = uint32_t(V >> 32);
    }
    S += 2;
  };
  if (KD.hasProperty(0)) { // private segment buffer V#
    uint32_t Desc[4];
    uint64_t Base = 0;
    Desc[0] = uint32_t(Base);
    // Stride 0; ADD_TID_ENABLE, swizzle (element size 4, index stride 64):
    // the descriptor of the private segment (AMDGPUUsage "Private Segment
    // Buffer"); the emulator resolves it to per-lane private memory.
    Desc[1] = uint32_t(Base >> 32) & 0xffff;
    Desc[1] |= 1u << 31; // SWIZZLE_ENABLE
    Desc[2] = 0xffffffffu;
    Desc[3] = (1u << 23) /*ADD_TID*/ | (3u << 21) /*INDEX_STRIDE 64*/ |
              (1u << 19) /*ELEMENT_SIZE 4*/;
    for (unsigned K = 0; K < 4; ++K)
      if (S + K < 16)
        W.S[S + K] = Desc[K];
    S += 4;
  }
  if (KD.hasProperty(1))
    Put64(M.DispatchPtr);
  if (KD.hasProperty(2))
    Put64(M.QueuePtr);
  if (KD.hasProperty(3))
    Put64(P.KernargAddr);
  if (KD.hasProperty(4))
    Put64(0); // dispatch id
  if (KD.hasProperty(5))
    Put64(0); // flat scratch init: per-wave private memory starts at 0
  if (KD.hasProperty(6)) {
    if (S < 16)
      W.S[S] = KS.ScratchPerLane;
    ++S;
  }
  // Preloaded kernel arguments follow the other user SGPRs.
  unsigned PreLen = KD.preloadLength();
  if (PreLen) {
    const Allocation *KA = M.Mem.find(P.KernargAddr);
    uint64_t Off = uint64_t(KD.preloadOffset()) * 4;
    for (unsigned K = 0; K < PreLen && S < 16; ++K, ++S) {
      uint32_t V = 0;
      if (KA && P.KernargAddr - KA->Base + Off + 4 * K + 4 <= KA->Size)
        std::memcpy(&V, KA->data() + (P.KernargAddr - KA->Base) + Off + 4 * K,
                    4);
      W.S[S] = V;
    }
  }
  // System SGPRs.
  S = KD.userSGPRCount();
  for (unsigned D = 0; D < 3; ++D)
    if (KD.enablesWorkgroupID(D))
      W.S[S++ & 127] = G.Id[D];
  if (KD.enablesWorkgroupInfo())
    W.S[S++ & 127] = KS.WavesPerGroup & 0x3f;
  if (KD.enablesPrivateSegment())
    W.S[S++ & 127] = 0; // private segment wave byte offset
}

void Scheduler::retireGroup(Workgroup &G) {
  for (auto &W : G.Waves) {
    M.completeAll(*W);
    if (W->TraceCookie)
      M.Opt.Sink->endWave(W->TraceCookie);
    W->TraceCookie = nullptr;
    Spare.push_back(std::move(W));
  }
  G.Waves.clear();
}

/// VGPR indexing mode (s_set_gpr_idx_on): VALU operands selected by
/// M0[15:12] are offset by M0[7:0].
static void execIndexed(Wave &W, const DInst &I) {
  DInst C = I;
  uint32_t M0 = W.S[SgprM0];
  unsigned Idx = M0 & 0xff, Mode = (M0 >> 12) & 0xf;
  auto Shift = [&](Operand &O) {
    O.Reg = uint16_t(O.Reg + Idx);
    return O.Reg + O.Width <= std::min(W.AccOff, W.NumVRegs);
  };
  bool Ok = true;
  for (unsigned K = 0; K < 3 && K < C.NumSrcs; ++K)
    if (((Mode >> K) & 1) && C.Src[K].Kind == OpKind::VGPR)
      Ok &= Shift(C.Src[K]);
  if (((Mode >> 3) & 1) && C.NumDefs && C.Def[0].Kind == OpKind::VGPR)
    Ok &= Shift(C.Def[0]);
  if (!Ok) {
    W.M->report(W, I, Violation::BadRegister, -1,
                "VGPR index mode (M0 = " + Twine(M0) +
                    ") leaves the kernel's VGPRs");
    return;
  }
  I.Fn(W, C);
}

static void traceBefore(Wave &W, const DInst &I) {
  raw_ostream &OS = *W.M->Opt.Trace;
  OS << format_hex(I.Addr, 8) << " exec=" << format_hex(W.exec(), 18)
     << "  " << W.M->Prog.Text[I.Index].Text << "\n";
}

static void traceAfter(Wave &W, const DInst &I) {
  raw_ostream &OS = *W.M->Opt.Trace;
  unsigned L = W.M->Opt.TraceLane & 63;
  for (unsigned K = 0; K < I.NumDefs; ++K) {
    const Operand &O = I.Def[K];
    if (O.Kind == OpKind::SGPR) {
      OS << "    s" << O.Reg << " =";
      for (unsigned R = 0; R < O.Width; ++R)
        OS << " " << format_hex(W.S[(O.Reg + R) & 127], 10);
      OS << "\n";
    } else if (O.isVector()) {
      OS << "    " << (O.Kind == OpKind::VGPR ? "v" : "a") << O.Reg << "[" << L
         << "] =";
      for (unsigned R = 0; R < O.Width; ++R)
        OS << " " << format_hex(W.vreg(O, R)[L], 10);
      if (I.Flags & (FIsVMEM | FIsDS | FIsSMEM))
        OS << " (load in flight)";
      OS << "\n";
    }
  }
  if (I.Flags & FIsSALU)
    OS << "    scc = " << W.SCC << "\n";
}

/// One instruction with --trace printing and/or a TraceSink observing.
static void stepObserved(Wave &W, const DInst &I) {
  Machine &Mc = *W.M;
  bool Print = Mc.Opt.Trace && W.WG->Id == Mc.Opt.TraceGroup &&
               W.Id == Mc.Opt.TraceWave;
  uint64_t Exec = W.exec();
  if (Print)
    traceBefore(W, I);
  if (W.GprIdxOn && (I.Flags & FIsVALU))
    execIndexed(W, I);
  else
    I.Fn(W, I);
  if (Print)
    traceAfter(W, I);
  if (W.TraceCookie)
    Mc.Opt.Sink->instruction(W.TraceCookie, I.Index, Exec,
                             W.Running ? W.PC : ~0u);
}

void Scheduler::step(Wave &W, uint64_t Quantum) {
  const DInst *Code = W.Code;
  Machine &Mc = M;
  RunResult &R = Mc.R;
  const bool Cov = Mc.Opt.RecordCoverage;
  const bool HazOn = Mc.Opt.HazardChecks;
  uint64_t N = 0;
  while (N < Quantum && W.Running && !W.AtBarrier) {
    const DInst &I = Code[W.PC];
    if (__builtin_expect(!Mc.BadReg.empty(), 0) && Mc.BadReg[I.Index]) {
      Mc.report(W, I, Violation::BadRegister, -1,
                "uses a VGPR/AGPR outside the kernel's allocation (" +
                    Twine(W.NumVRegs) + " registers, accum_offset " +
                    Twine(W.AccOff) + ")");
      break;
    }
    if (W.NumPendRegs)
      Mc.checkInFlight(W, I);
    if (HazOn) {
      Mc.checkHazards(W, I);
      Mc.hazardIssued(W, I);
    }
    R.LaneInstructions += popcount64(W.exec());
    if (Cov)
      Mc.Executed[I.Index] = 1;
    W.PC = I.Index + 1;
    if (__builtin_expect(Mc.SlowStep, 0)) {
      stepObserved(W, I);
    } else if (__builtin_expect(W.GprIdxOn, 0) && (I.Flags & FIsVALU))
      execIndexed(W, I);
    else
      I.Fn(W, I);
    ++N;
    ++W.Clock;
  }
  R.Instructions += N;
  if (Mc.Budget <= N) {
    Mc.Budget = 0;
    if (!Mc.Stop) {
      const DInst &I = Code[W.PC < Mc.Prog.Insts.size() ? W.PC : 0];
      Mc.report(W, I, Violation::Budget, -1,
                "instruction budget of " + Twine(Mc.Opt.InstructionBudget) +
                    " exhausted (runaway kernel?)");
    }
    Mc.Stop = true;
  } else {
    Mc.Budget -= N;
  }
}

void Scheduler::run() {
  const LaunchParams &P = M.P;
  // Workgroup order: linear, or a seeded permutation. The permutation is
  // materialised only for grids of up to 2^24 workgroups; a larger grid
  // (which the instruction budget still allows) steps through the linear
  // order with a seeded stride coprime to its size, so its order costs no
  // memory.
  // A sampling trace sink runs only the workgroups it models (a sink never
  // sees a grid beyond 2^24 workgroups: the timing model samples).
  uint64_t NumGroups = uint64_t(P.Grid[0]) * P.Grid[1] * P.Grid[2];
  std::vector<uint32_t> Order;
  uint64_t Stride = 1, Start = 0;
  if (NumGroups <= (1u << 24)) {
    Order.reserve(NumGroups);
    for (uint32_t L = 0; L < NumGroups; ++L)
      if (!M.Opt.Sink || M.Opt.Sink->wantGroup(L))
        Order.push_back(L);
    NumGroups = Order.size();
    if (M.Opt.Seed)
      std::shuffle(Order.begin(), Order.end(), M.Rng);
  } else if (M.Opt.Seed) {
    Start = M.Rng() % NumGroups;
    Stride = M.Rng() % NumGroups | 1;
    while (std::gcd(Stride, NumGroups) != 1)
      Stride += 2;
  }
  auto GroupAt = [&](uint64_t I) -> std::array<uint32_t, 3> {
    uint64_t L =
        Order.empty()
            ? uint64_t((Start + (unsigned __int128)I * Stride) % NumGroups)
            : Order[I];
    return {uint32_t(L % P.Grid[0]), uint32_t(L / P.Grid[0] % P.Grid[1]),
            uint32_t(L / P.Grid[0] / P.Grid[1])};
  };
  unsigned Resident = std::max(1u, M.Opt.ResidentGroups);
  std::vector<std::unique_ptr<Workgroup>> Live;
  uint64_t Next = 0;
  uint64_t MaxQ = std::max(1u, M.Opt.MaxQuantum);
  bool Seeded = M.Opt.Seed != 0;
  size_t RR = 0; // round-robin position in M.Resident
  auto Refill = [&] {
    bool Changed = false;
    while (Live.size() < Resident && Next < NumGroups) {
      auto O = GroupAt(Next++);
      Live.push_back(makeGroup(O[0], O[1], O[2]));
      ++M.R.Workgroups;
      M.R.Waves += KS.WavesPerGroup;
      Changed = true;
    }
    if (Changed) {
      M.Resident.clear();
      for (auto &G : Live)
        for (auto &W : G->Waves)
          M.Resident.push_back(W.get());
    }
  };
  /// Releases barriers and retires finished groups; false when stuck.
  auto Settle = [&]() -> bool {
    bool Progress = false;
    for (size_t Gi = 0; Gi < Live.size();) {
      Workgroup &G = *Live[Gi];
      bool AllDone = true, Any = false, All = true;
      for (auto &W : G.Waves) {
        AllDone &= !W->Running;
        if (W->Running) {
          All &= W->AtBarrier;
          Any |= W->AtBarrier;
        }
      }
      if (AllDone) {
        retireGroup(G);
        Live.erase(Live.begin() + Gi);
        M.Resident.clear();
        for (auto &LG : Live)
          for (auto &W : LG->Waves)
            M.Resident.push_back(W.get());
        RR = 0;
        Progress = true;
        continue;
      }
      // Waves that ended count as arrived (s_endpgm releases a barrier).
      if (All && Any) {
        ++G.Epoch;
        for (auto &W : G.Waves)
          W->AtBarrier = false;
        Progress = true;
      }
      ++Gi;
    }
    return Progress;
  };
  Refill();
  while (!M.Stop && !Live.empty()) {
    // Pick a runnable wave without scanning more than needed.
    Wave *W = nullptr;
    size_t N = M.Resident.size();
    if (Seeded) {
      size_t Start = M.Rng() % N;
      for (size_t K = 0; K < N; ++K) {
        Wave *C = M.Resident[(Start + K) % N];
        if (C->Running && !C->AtBarrier) {
          W = C;
          break;
        }
      }
    } else {
      for (size_t K = 0; K < N; ++K) {
        Wave *C = M.Resident[(RR + K) % N];
        if (C->Running && !C->AtBarrier) {
          W = C;
          RR = (RR + K) % N;
          break;
        }
      }
    }
    if (!W) {
      if (!Settle()) {
        // Every live wave waits at a barrier that cannot complete.
        for (auto &G : Live)
          for (auto &X : G->Waves)
            if (X->Running) {
              const DInst &I = M.Prog.Insts[X->PC ? X->PC - 1 : 0];
              M.report(*X, I, Violation::Deadlock, -1,
                       "s_barrier can never complete");
              break;
            }
        break;
      }
      Refill();
      continue;
    }
    uint64_t Q = Seeded ? 1 + M.Rng() % MaxQ : MaxQ;
    M.Cur = W;
    step(*W, std::min<uint64_t>(Q, std::max<uint64_t>(M.Budget, 1)));
    if (!W->Running || W->AtBarrier) {
      if (!Seeded)
        RR = (RR + 1) % std::max<size_t>(N, 1);
      Workgroup &G = *W->WG;
      bool All = true, Any = false, AllDone = true;
      for (auto &X : G.Waves) {
        AllDone &= !X->Running;
        if (!X->Running)
          continue;
        All &= X->AtBarrier;
        Any |= X->AtBarrier;
      }
      if (All && Any) {
        ++G.Epoch;
        for (auto &X : G.Waves)
          X->AtBarrier = false;
      }
      if (AllDone) {
        Settle();
        Refill();
      }
    } else if (!Seeded) {
      RR = (RR + 1) % N;
    }
  }
  for (auto &G : Live)
    retireGroup(*G);
}

TraceSink::~TraceSink() = default;

Expected<RunResult> Emulator::launch(DeviceMemory &Mem, const LaunchParams &P,
                                     const RunOptions &O) const {
  const KernelInfo *K = CO.findKernel(P.Kernel);
  if (!K) {
    for (const KernelInfo &KI : CO.kernels())
      if (KI.DescriptorSymbol == P.Kernel)
        K = &KI;
  }
  if (!K)
    return createStringError("%s: no kernel named '%s'",
                             CO.name().str().c_str(), P.Kernel.c_str());
  uint64_t GroupSize = uint64_t(P.Block[0]) * P.Block[1] * P.Block[2];
  if (GroupSize == 0 || GroupSize > 1024)
    return createStringError("kernel '%s': block of %llu work-items (must be "
                             "1..1024)",
                             P.Kernel.c_str(), (unsigned long long)GroupSize);
  if (P.Block[0] > 1024 || P.Block[1] > 1024 || P.Block[2] > 1024)
    return createStringError("kernel '%s': block dimension over 1024",
                             P.Kernel.c_str());
  if (P.Grid[0] == 0 || P.Grid[1] == 0 || P.Grid[2] == 0)
    return createStringError("kernel '%s': empty grid", P.Kernel.c_str());
  // Every wave executes at least one instruction: a grid whose waves alone
  // exceed the budget is refused before anything is set up for it.
  uint64_t Groups = 0, Waves = 0;
  if (__builtin_mul_overflow(uint64_t(P.Grid[0]) * P.Grid[1],
                             uint64_t(P.Grid[2]), &Groups) ||
      __builtin_mul_overflow(
          Groups, uint64_t((GroupSize + WaveSize - 1) / WaveSize), &Waves) ||
      Waves > O.InstructionBudget)
    return createStringError(
        "kernel '%s': a grid of %u x %u x %u workgroups of %llu work-items "
        "has more waves than the instruction budget of %llu allows",
        P.Kernel.c_str(), P.Grid[0], P.Grid[1], P.Grid[2],
        (unsigned long long)GroupSize, (unsigned long long)O.InstructionBudget);
  const KernelDescriptor &KD = K->KD;
  KernelSetup KS;
  KS.K = K;
  uint64_t Entry = K->EntryAddr;
  if (K->hasPreload() && O.UsePreloadEntry)
    Entry = K->preloadEntryAddr();
  const DInst *EI = Prog->at(Entry);
  if (!EI)
    return createStringError("kernel '%s': entry 0x%llx is not an instruction",
                             P.Kernel.c_str(), (unsigned long long)Entry);
  KS.EntryIndex = EI->Index;
  uint64_t Lds = uint64_t(KD.groupSegmentFixedSize()) + P.DynamicLDS;
  if (Lds > 65536)
    return createStringError("kernel '%s': descriptor field "
                             "group_segment_fixed_size: %llu bytes of LDS "
                             "(with the spec's dynamic LDS) exceed 64 KiB",
                             P.Kernel.c_str(), (unsigned long long)Lds);
  KS.LdsSize = uint32_t(Lds);
  uint64_t Scratch = KD.privateSegmentFixedSize();
  if (KD.hasProperty(11) /*dynamic stack*/ || KD.privateSegmentFixedSize())
    Scratch += P.DynamicScratch;
  Scratch = alignTo(Scratch, 16);
  // COMPUTE_TMPRING_SIZE.WAVESIZE is 13 bits of 1 KiB per wave on gfx9: no
  // wave64 kernel gets more than 8191 KiB / 64 of scratch per work-item.
  constexpr uint64_t MaxScratchPerLane = 8191ull * 1024 / 64;
  if (Scratch > MaxScratchPerLane)
    return createStringError(
        "kernel '%s': descriptor field private_segment_fixed_size: %llu "
        "bytes of scratch per work-item (with the spec's dynamic scratch) "
        "exceed the hardware's %llu",
        P.Kernel.c_str(), (unsigned long long)Scratch,
        (unsigned long long)MaxScratchPerLane);
  KS.ScratchPerLane = uint32_t(Scratch);
  KS.GroupSize = unsigned(GroupSize);
  KS.WavesPerGroup = unsigned((GroupSize + WaveSize - 1) / WaveSize);
  // MODE from COMPUTE_PGM_RSRC1: FP_ROUND [3:0] = rsrc1[15:12],
  // FP_DENORM [7:4] = rsrc1[19:16], DX10_CLAMP bit 8, IEEE bit 9,
  // FP16_OVFL bit 23 = rsrc1[26].
  uint32_t R1 = KD.pgmRsrc1();
  KS.Mode = ((R1 >> 12) & 0xff) | (((R1 >> 21) & 1) << 8) |
            (((R1 >> 23) & 1) << 9) | (((R1 >> 26) & 1) << 23);

  RunResult R;
  Machine M(*Prog, Mem, O, P, R);
  M.KernelName = K->Name;
  {
    const Allocation *Img = Mem.byName("code object " + CO.name().str());
    if (!Img)
      return createStringError("kernel '%s': the code object is not loaded "
                               "into this device memory (call load())",
                               P.Kernel.c_str());
    M.LoadBase = Img->Base;
  }
  M.Budget = O.InstructionBudget;
  M.Rng.seed(O.Seed * 0x9E3779B97F4A7C15ull + 1);
  if (O.RecordCoverage)
    M.Executed.assign(Prog->Insts.size(), 0);
  if (O.HazardChecks)
    M.HazKey.assign(Prog->Insts.size() * HazWays, 0);
  M.FlushF32 = ((R1 >> 16) & 3) != 3;
  M.FlushF16F64 = ((R1 >> 18) & 3) != 3;
  if (M.FlushF32)
    M.approx("f32 denormal flushing (descriptor FLOAT_DENORM_MODE_32 != 3) "
             "is not modelled: denormals are kept");
  // The dispatch packet (hsa_kernel_dispatch_packet_t) and a zeroed queue.
  {
    uint64_t DP = Mem.allocate("dispatch packet " + K->Name, 64, 64, 64,
                               /*ReadOnly=*/true);
    Allocation *A = Mem.find(DP);
    uint8_t *B = A->data();
    uint16_t Setup = 3;
    std::memcpy(B + 2, &Setup, 2);
    for (unsigned D = 0; D < 3; ++D) {
      uint16_t WGS = uint16_t(P.Block[D]);
      uint32_t GS = P.Grid[D] * P.Block[D];
      std::memcpy(B + 4 + 2 * D, &WGS, 2);
      std::memcpy(B + 12 + 4 * D, &GS, 4);
    }
    uint32_t Priv = KS.ScratchPerLane;
    std::memcpy(B + 24, &Priv, 4);
    uint32_t Grp = KS.LdsSize;
    std::memcpy(B + 28, &Grp, 4);
    std::memcpy(B + 40, &P.KernargAddr, 8);
    M.DispatchPtr = DP;
    M.QueuePtr = Mem.allocate("queue " + K->Name, 256, 64, 64, true);
  }
  // Operands outside this kernel's register allocation (gfx90a/gfx94x
  // unified file: v0..v[accum_offset-1], a0..a[total-accum_offset-1]).
  {
    unsigned Total = std::min(KD.allocatedVGPRs(), MaxVSlots);
    unsigned Acc = KD.accumOffset();
    for (const DInst &I : Prog->Insts) {
      bool Bad = false;
      auto Check = [&](const RegRange &R) {
        if (R.File == 1 && R.Reg + R.Count > std::min(Acc, Total))
          Bad = true;
        if (R.File == 2 && Acc + R.Reg + R.Count > Total)
          Bad = true;
      };
      for (unsigned K = 0; K < I.NumReads; ++K)
        Check(I.Reads[K]);
      for (unsigned K = 0; K < I.NumWrites; ++K)
        Check(I.Writes[K]);
      if (Bad) {
        if (M.BadReg.empty())
          M.BadReg.assign(Prog->Insts.size(), 0);
        M.BadReg[I.Index] = 1;
      }
    }
  }
  // CPU time of this thread: the figure benchmarks report, not disturbed
  // by other processes on a shared machine.
  auto CpuNow = [] {
    timespec T;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &T);
    return double(T.tv_sec) + double(T.tv_nsec) * 1e-9;
  };
  M.SlowStep = O.Trace || O.Sink;
  if (O.Sink) {
    TraceLaunchInfo TL;
    TL.Kernel = K->Name;
    TL.Grid = P.Grid;
    TL.Block = P.Block;
    TL.WavesPerGroup = KS.WavesPerGroup;
    TL.LdsBytes = KS.LdsSize;
    TL.ScratchPerLane = KS.ScratchPerLane;
    TL.VGPRs = std::min(KD.allocatedVGPRs(), MaxVSlots);
    TL.ArchVGPRs = KD.accumOffset();
    // The field counts blocks of 8 (LLVM's SGPR encoding granule) that
    // gfx9 allocates in 16s: a field of 6 is 56 SGPRs, granted as 64, not
    // 112 (the same rule as the static occupancy in Analysis/Resources).
    TL.SGPRs = sgprsAllocated(KD.sgprGranule());
    TL.Instrs = Prog->Recs;
    O.Sink->beginLaunch(TL);
  }
  double T0 = CpuNow();
  Scheduler S(M, KS);
  S.run();
  R.Seconds = CpuNow() - T0;
  if (O.Sink)
    O.Sink->endLaunch();
  R.WaivedHazards = std::move(M.Waived);
  R.AdvisoryHazards = std::move(M.Advisories);
  R.HazardHits = std::move(M.Sites);
  for (uint32_t Bit = 1; Bit; Bit <<= 1)
    if (M.ApproxBits & Bit)
      R.Approximations.insert(approxText(Bit));
  if (O.RecordCoverage)
    for (size_t I = 0; I < M.Executed.size(); ++I)
      if (M.Executed[I])
        R.Executed.push_back(Prog->Insts[I].Addr);
  return R;
}
