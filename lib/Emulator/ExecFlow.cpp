//===- ExecFlow.cpp - Program control: branches, waits, barrier, calls ----===//
//
// CDNA3 ISA 4.x "Program Flow Control" and 12.6 (SOPP): S_BRANCH,
// S_CBRANCH_*, S_WAITCNT (GFX9 encoding: vmcnt [3:0] and [15:14], expcnt
// [6:4], lgkmcnt [11:8]), S_BARRIER, S_ENDPGM; 12.4 (SOP1): S_GETPC_B64,
// S_SETPC_B64, S_SWAPPC_B64; 12.3 (SOPK): S_CALL_B64;
// S_SET_GPR_IDX_ON/OFF/MODE/IDX (VGPR indexing: M0[7:0] index, M0[15:12]
// enables src0, src1, src2, dst); S_CBRANCH_G_FORK / I_FORK / JOIN (the
// conditional branch stack), S_SETKILL 0, S_WAKEUP.
//
//===----------------------------------------------------------------------===//
#include "Machine.h"
#include "Semantics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/bit.h"

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

namespace {

inline void branchTo(Wave &W, const DInst &I) {
  if (I.Flags & FBadTarget) {
    W.M->report(W, I, Violation::BadJump, -1,
                "branch target 0x" + utohexstr(uint64_t(I.Imm[1])) +
                    " is not an instruction");
    return;
  }
  W.PC = I.Target;
}

/// Jump to a device address (s_setpc/s_swappc).
void jumpTo(Wave &W, const DInst &I, uint64_t Target) {
  uint64_t Rel = Target - W.M->LoadBase;
  const DInst *T = W.M->Prog.at(Rel);
  if (!T || Target < W.M->LoadBase) {
    W.M->report(W, I, Violation::BadJump, -1,
                "jump to 0x" + utohexstr(Target) +
                    ", which is not an instruction of the code object");
    return;
  }
  W.PC = T->Index;
}

void execBranch(Wave &W, const DInst &I) { branchTo(W, I); }

template <int Cond> void execCBranch(Wave &W, const DInst &I) {
  bool Take;
  switch (Cond) {
  case 0: Take = !W.SCC; break;
  case 1: Take = W.SCC; break;
  case 2: Take = W.vcc() == 0; break;
  case 3: Take = W.vcc() != 0; break;
  case 4: Take = W.exec() == 0; break;
  default: Take = W.exec() != 0; break;
  }
  if (Take)
    branchTo(W, I);
}

void execWaitcnt(Wave &W, const DInst &I) {
  uint32_t Imm = uint32_t(I.Imm[0]);
  unsigned Vm = (Imm & 0xf) | ((Imm >> 10) & 0x30);
  unsigned Lgkm = (Imm >> 8) & 0xf;
  W.M->waitCounters(W, Vm, Lgkm);
}

void execBarrier(Wave &W, const DInst &) { W.AtBarrier = true; }

void execEndpgm(Wave &W, const DInst &) {
  W.M->completeAll(W);
  W.Running = false;
}

void execNop(Wave &, const DInst &) {}

void execTrap(Wave &W, const DInst &I) {
  W.M->report(W, I, Violation::Trap, -1,
              "s_trap " + std::to_string(I.Imm[0]) + " (the kernel aborted)");
}

void execGetpc(Wave &W, const DInst &I) {
  W.writeScalar64(I.Def[0], W.M->LoadBase + I.Addr + 4);
}

void execSetpc(Wave &W, const DInst &I) {
  jumpTo(W, I, W.scalar64(I.Src[0]));
}

void execSwappc(Wave &W, const DInst &I) {
  uint64_t Target = W.scalar64(I.Src[0]);
  W.writeScalar64(I.Def[0], W.M->LoadBase + I.Addr + 4);
  jumpTo(W, I, Target);
}

/// S_CALL_B64 (SOPK): D = PC + 4; PC = PC + 4 + SIMM16 * 4.
void execCall(Wave &W, const DInst &I) {
  uint64_t Next = W.M->LoadBase + I.Addr + 4;
  W.writeScalar64(I.Def[0], Next);
  jumpTo(W, I, Next + uint64_t(int64_t(int16_t(uint16_t(I.Imm[0]))) * 4));
}

void execSetVskip(Wave &W, const DInst &I) {
  uint32_t V = W.scalar32(I.Src[0]);
  unsigned Bit = I.NumSrcs > 1 ? W.scalar32(I.Src[1]) & 31 : 0;
  if ((V >> Bit) & 1)
    W.M->report(W, I, Violation::Unimplemented, -1,
                "s_setvskip enabling VSKIP mode is not modelled");
}

void execGprIdxOn(Wave &W, const DInst &I) {
  uint32_t Idx = W.scalar32(I.Src[0]) & 0xff;
  uint32_t Mode = uint32_t(I.Imm[0]) & 0xf;
  W.S[SgprM0] = (W.S[SgprM0] & ~0xf0ffu) | Idx | (Mode << 12);
  W.GprIdxOn = true;
}
void execGprIdxOff(Wave &W, const DInst &) { W.GprIdxOn = false; }
void execGprIdxIdx(Wave &W, const DInst &I) {
  W.S[SgprM0] = (W.S[SgprM0] & ~0xffu) | (W.scalar32(I.Src[0]) & 0xff);
}
void execGprIdxMode(Wave &W, const DInst &I) {
  W.S[SgprM0] = (W.S[SgprM0] & ~0xf000u) | ((uint32_t(I.Imm[0]) & 0xf) << 12);
}

// The GCN conditional branch stack (CDNA4 ISA guide 4.6 "Arbitrary Divergent
// Control Flow", 12.3-12.5: S_CBRANCH_G_FORK, S_CBRANCH_I_FORK,
// S_CBRANCH_JOIN): a fork that splits EXEC runs the smaller half first and
// pushes {other PC, other mask} as 128 bits at SGPR[CSP * 4] (mask in the
// low two SGPRs, the byte address above), CSP being MODE[31:29]; the join
// pops it back while CSP differs from the value saved before the fork.

unsigned csp(const Wave &W) { return W.Mode >> 29; }
void setCsp(Wave &W, unsigned C) {
  W.Mode = (W.Mode & 0x1fffffffu) | ((C & 7u) << 29);
}

/// The mask operand: the first SGPR source (I_FORK's is the SOPK sdst).
const Operand &forkMask(const DInst &I) {
  return I.NumSrcs ? I.Src[0] : I.Def[0];
}

void fork(Wave &W, const DInst &I, uint64_t Target) {
  uint64_t Exec = W.exec();
  uint64_t Mask = W.scalar64(forkMask(I));
  uint64_t Pass = Mask & Exec, Fail = ~Mask & Exec;
  uint64_t Next = W.M->LoadBase + I.Addr + I.Size;
  if (Pass == Exec) {
    jumpTo(W, I, Target);
    return;
  }
  if (Fail == Exec)
    return;
  unsigned C = csp(W);
  bool FailFirst = llvm::popcount(Fail) < llvm::popcount(Pass);
  W.setSreg64(C * 4, FailFirst ? Pass : Fail);
  W.setSreg64(C * 4 + 2, FailFirst ? Target : Next);
  setCsp(W, C + 1);
  W.setExec(FailFirst ? Fail : Pass);
  if (!FailFirst)
    jumpTo(W, I, Target);
}

void execGFork(Wave &W, const DInst &I) { fork(W, I, W.scalar64(I.Src[1])); }

void execIFork(Wave &W, const DInst &I) {
  int64_t Off = int16_t(uint16_t(I.Imm[0]));
  fork(W, I, W.M->LoadBase + I.Addr + 4 + uint64_t(Off * 4));
}

void execJoin(Wave &W, const DInst &I) {
  unsigned Saved = W.scalar32(I.Src[0]);
  unsigned C = csp(W);
  if (C == Saved)
    return;
  C = (C - 1) & 7;
  setCsp(W, C);
  W.setExec(W.sreg64(C * 4));
  jumpTo(W, I, W.sreg64(C * 4 + 2));
}

/// S_SETKILL: sets the wave's KILL bit to SIMM16[0] ("used primarily for
/// debugging kill wave host command behavior"): clearing it is a no-op in
/// a launch where nothing sets it; setting it asks for what the host's
/// kill-wave command does, which belongs to the host and the debugger.
void execSetkill(Wave &W, const DInst &I) {
  if (I.Imm[0] & 1) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "instruction S_SETKILL not implemented: refused by design: "
                "s_setkill 1 raises the host's kill-wave behaviour (debugger)");
    W.Running = false;
  }
}

} // namespace

void emu::registerFlow(SemRegistry &R) {
  auto A = [&](const char *N, ExecFn F) { R.add(N, SemEntry{F}); };
  A("S_BRANCH", execBranch);
  A("S_CBRANCH_SCC0", execCBranch<0>);
  A("S_CBRANCH_SCC1", execCBranch<1>);
  A("S_CBRANCH_VCCZ", execCBranch<2>);
  A("S_CBRANCH_VCCNZ", execCBranch<3>);
  A("S_CBRANCH_EXECZ", execCBranch<4>);
  A("S_CBRANCH_EXECNZ", execCBranch<5>);
  A("S_WAITCNT", execWaitcnt);
  A("S_BARRIER", execBarrier);
  A("S_ENDPGM", execEndpgm);
  A("S_ENDPGM_SAVED", execEndpgm);
  A("S_NOP", execNop);
  A("S_SETPRIO", execNop);
  A("S_SLEEP", execNop);
  A("S_ICACHE_INV", execNop);
  A("S_INCPERFLEVEL", execNop);
  A("S_DECPERFLEVEL", execNop);
  A("S_TTRACEDATA", execNop);
  A("S_CODE_END", execNop);
  A("S_TRAP", execTrap);
  A("S_GETPC_B64", execGetpc);
  A("S_SETPC_B64", execSetpc);
  A("S_SWAPPC_B64", execSwappc);
  A("S_CALL_B64", execCall);
  A("S_SETVSKIP", execSetVskip);
  A("S_SET_GPR_IDX_ON", execGprIdxOn);
  A("S_SET_GPR_IDX_OFF", execGprIdxOff);
  A("S_SET_GPR_IDX_IDX", execGprIdxIdx);
  A("S_SET_GPR_IDX_MODE", execGprIdxMode);
  A("S_CBRANCH_G_FORK", execGFork);
  A("S_CBRANCH_I_FORK", execIFork);
  A("S_CBRANCH_JOIN", execJoin);
  A("S_SETKILL", execSetkill);
  // Wakes the workgroup's waves from s_sleep, which the emulator does not
  // model as a pause: nothing to wake.
  A("S_WAKEUP", execNop);
}

//===----------------------------------------------------------------------===//
// Registry
//===----------------------------------------------------------------------===//

const SemRegistry &emu::semantics() {
  static const SemRegistry *R = [] {
    auto *Reg = new SemRegistry();
    registerSALU(*Reg);
    registerFlow(*Reg);
    registerVALU(*Reg);
    registerVALUConv(*Reg);
    registerVALUSpecial(*Reg);
    registerVOP3P(*Reg);
    registerMFMA(*Reg);
    registerSMEM(*Reg);
    registerVMEM(*Reg);
    registerDS(*Reg);
    return Reg;
  }();
  return *R;
}

const char *emu::approxText(uint32_t Bit) {
  switch (Bit) {
  case AX_TRANS:
    return "transcendental instructions (v_exp/log/rcp/rsq/sqrt/sin/cos) "
           "use the host's libm; the hardware is accurate to about 1 ulp";
  case AX_MFMA:
    return "MFMA/dot accumulation: exact products summed in double and "
           "rounded once to f32; the hardware's summation order and "
           "intermediate rounding differ";
  case AX_MFMA_F64:
    return "f64 MFMA accumulates with fused multiply-adds in k order";
  case AX_MAD_DENORM:
    return "v_mad_f32/v_mac_f32 keep f32 denormals; the hardware flushes "
           "them";
  case AX_FP8:
    return "fp8/bf8 conversion from f32: round to nearest even; without "
           "clamp an out-of-range value becomes NaN (0x80)";
  case AX_BUF_RANGE:
    return "structured buffer access (stride != 0, idxen): range-checked "
           "as index >= num_records, but some lanes would get the other "
           "answer from a byte check (index * stride + offset against "
           "num_records)";
  case AX_CACHE:
    return "cache maintenance (buffer_wbl2/inv, s_dcache_*) is a no-op: "
           "emulated memory is coherent";
  default:
    return "unknown approximation";
  }
}
