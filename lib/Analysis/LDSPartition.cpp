//===- LDSPartition.cpp - Per-wave LDS slices -----------------------------===//
//
// A forward dataflow over the MachineFunction: every 32-bit register slot
// holds `A * W + [Lo, Hi]` or nothing known. W ranges over 0..15 (a
// workgroup has at most 1024 work-items, 16 waves of 64), which bounds
// every value so no arithmetic below can wrap.
//
// VALU results are per lane and only active lanes are written: while EXEC
// may be partial, a lane may keep its old value, so a VGPR's new value is
// joined with the old one. EXEC is full at entry and after `exec = -1`
// (waves are taken to be full: a partial wave enabling lanes that hold no
// work-item would compute from undefined registers anyway).
//
//===----------------------------------------------------------------------===//
#include "asmevo/Analysis/LDSPartition.h"
#include "Uncached.h"
#include "asmevo/Analysis/RegSlots.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/Support/MathExtras.h"
#include <vector>

using namespace llvm;
using namespace asmevo;

namespace {

constexpr int64_t MaxWave = 15;
constexpr unsigned WidenAfter = 8;
constexpr int64_t Limit = int64_t(1) << 31;

/// `A * W + [Lo, Hi]`, or unknown.
struct Value {
  bool Known = false;
  int64_t A = 0, Lo = 0, Hi = 0;

  static Value unknown() { return Value(); }
  static Value of(int64_t A, int64_t Lo, int64_t Hi) {
    Value V;
    V.Known = true;
    V.A = A;
    V.Lo = Lo;
    V.Hi = Hi;
    return V.bounded();
  }
  static Value constant(int64_t C) { return of(0, C, C); }
  int64_t min() const { return std::min<int64_t>(0, A) * MaxWave + Lo; }
  int64_t max() const { return std::max<int64_t>(0, A) * MaxWave + Hi; }
  /// Unknown once a value could leave the 32-bit range (it would wrap).
  Value bounded() const {
    if (!Known || Lo > Hi || min() < -Limit || max() >= Limit)
      return unknown();
    return *this;
  }
  bool operator==(const Value &O) const {
    return Known == O.Known &&
           (!Known || (A == O.A && Lo == O.Lo && Hi == O.Hi));
  }
  bool operator!=(const Value &O) const { return !(*this == O); }
};

Value join(const Value &X, const Value &Y) {
  if (!X.Known || !Y.Known || X.A != Y.A)
    return Value::unknown();
  return Value::of(X.A, std::min(X.Lo, Y.Lo), std::max(X.Hi, Y.Hi));
}

Value add(const Value &X, const Value &Y) {
  if (!X.Known || !Y.Known)
    return Value::unknown();
  return Value::of(X.A + Y.A, X.Lo + Y.Lo, X.Hi + Y.Hi);
}

Value sub(const Value &X, const Value &Y) {
  if (!X.Known || !Y.Known)
    return Value::unknown();
  return Value::of(X.A - Y.A, X.Lo - Y.Hi, X.Hi - Y.Lo);
}

std::optional<int64_t> constantOf(const Value &V) {
  if (V.Known && V.A == 0 && V.Lo == V.Hi)
    return V.Lo;
  return std::nullopt;
}

/// For a commutative operation: the constant operand (if either is one)
/// and the other operand.
std::pair<std::optional<int64_t>, const Value *>
constantAndOther(const Value &X, const Value &Y) {
  if (std::optional<int64_t> C = constantOf(Y))
    return {C, &X};
  return {constantOf(X), &Y};
}

Value mul(const Value &X, const Value &Y) {
  auto [C, V] = constantAndOther(X, Y);
  if (!C || *C < 0 || !V->Known)
    return Value::unknown();
  return Value::of(V->A * *C, V->Lo * *C, V->Hi * *C);
}

Value shl(const Value &X, const Value &S) {
  std::optional<int64_t> C = constantOf(S);
  if (!C || *C < 0 || *C > 31)
    return Value::unknown();
  return mul(X, Value::constant(int64_t(1) << *C));
}

Value lshr(const Value &X, const Value &S) {
  std::optional<int64_t> C = constantOf(S);
  if (!C || *C < 0 || *C > 31 || !X.Known || X.min() < 0)
    return Value::unknown();
  int64_t D = int64_t(1) << *C;
  // Exact only when the wave term is a multiple of the divisor.
  if (X.A % D != 0)
    return Value::unknown();
  return Value::of(X.A / D, X.Lo >> *C, X.Hi >> *C);
}

Value andMask(const Value &X, const Value &M) {
  auto [C, V] = constantAndOther(X, M);
  if (!C || *C < 0)
    return Value::unknown();
  // Any 32-bit value masked by C >= 0 is within [0, C].
  Value Any = Value::of(0, 0, *C);
  if (!V->Known || V->min() < 0 || !isMask_64(uint64_t(*C)))
    return Any;
  if (V->max() <= *C)
    return *V;
  if (V->A % (*C + 1) == 0 && V->Lo >= 0)
    return V->Hi <= *C ? Value::of(0, V->Lo, V->Hi) : Any;
  return Any;
}

/// Access size in bytes from a DS opcode name, 0 when unknown.
unsigned dsAccessSize(StringRef N) {
  for (auto [Tag, Size] : std::initializer_list<std::pair<StringRef, unsigned>>{
           {"B128", 16}, {"B96", 12}, {"B64", 8}, {"U64", 8}, {"I64", 8},
           {"F64", 8}, {"B32", 4}, {"U32", 4}, {"I32", 4}, {"F32", 4},
           {"B16", 2}, {"U16", 2}, {"I16", 2}, {"F16", 2}, {"B8", 1},
           {"U8", 1}, {"I8", 1}})
    if (N.contains(Tag))
      return Size;
  return 0;
}

class Prover {
public:
  Prover(const MachineFunction &MF, const ISAFacts &F)
      : MF(MF), F(F), MII(F.target().instrInfo()) {}

  std::optional<LDSPartition> run(unsigned WorkItemIDDims,
                                  std::string &Why);

private:
  struct State {
    bool Valid = false;
    bool ExecFull = true;
    DenseMap<unsigned, Value> Regs; ///< Slot -> value (absent: unknown).
  };
  using ExitMap = DenseMap<const MachineBasicBlock *, State>;

  /// The state on entry to \p MBB: the join of its predecessors' exits
  /// and \p Seed (the function entry's state), invalid when none is.
  static State entryOf(const MachineBasicBlock &MBB, const ExitMap &Exit,
                       const State *Seed) {
    State S = Seed ? *Seed : State();
    for (const MachineBasicBlock *Pred : MBB.predecessors()) {
      auto It = Exit.find(Pred);
      if (It == Exit.end() || !It->second.Valid)
        continue;
      if (!S.Valid) {
        S = It->second;
        continue;
      }
      S.ExecFull &= It->second.ExecFull;
      for (auto I = S.Regs.begin(); I != S.Regs.end();) {
        auto J = It->second.Regs.find(I->first);
        Value V = J == It->second.Regs.end() ? Value::unknown()
                                             : join(I->second, J->second);
        auto Cur = I++;
        if (V.Known)
          Cur->second = V;
        else
          S.Regs.erase(Cur);
      }
    }
    return S;
  }

  Value get(const State &S, const MachineOperand &O) const {
    if (O.isImm())
      return Value::constant(int64_t(int32_t(O.getImm())));
    if (!O.isReg() || !O.getReg())
      return Value::unknown();
    SlotRange R = F.slots().slots(O.getReg().asMCReg());
    if (R.Count != 1)
      return Value::unknown();
    auto It = S.Regs.find(R.First);
    return It == S.Regs.end() ? Value::unknown() : It->second;
  }

  /// Source operands in order: register-class operands the instruction
  /// reads (immediates in source position included), not modifiers.
  SmallVector<const MachineOperand *, 4> sources(const MachineInstr &MI) const {
    SmallVector<const MachineOperand *, 4> Out;
    const MCInstrDesc &D = MII.get(MI.getOpcode());
    for (unsigned I = D.getNumDefs(); I < MI.getNumExplicitOperands() &&
                                      I < D.getNumOperands();
         ++I)
      if (D.operands()[I].RegClass >= 0)
        Out.push_back(&MI.getOperand(I));
    return Out;
  }

  Value evaluate(const State &S, const MachineInstr &MI) const;
  void step(State &S, const MachineInstr &MI) const;
  bool checkAccess(const State &S, const MachineInstr &MI, std::string &Why);

  const MachineFunction &MF;
  const ISAFacts &F;
  const MCInstrInfo &MII;
  LDSPartition P;
  bool HaveStride = false;
};

Value Prover::evaluate(const State &S, const MachineInstr &MI) const {
  StringRef N = F.get(MI.getOpcode()).Name;
  auto Src = sources(MI);
  auto Op = [&](unsigned I) {
    return I < Src.size() ? get(S, *Src[I]) : Value::unknown();
  };
  if (N.starts_with("V_MOV_B32_e") || N.starts_with("S_MOV_B32") ||
      N.starts_with("V_READFIRSTLANE_B32"))
    return Op(0);
  if (N.starts_with("V_ADD_U32_") || N.starts_with("V_ADD_CO_U32_") ||
      N.starts_with("S_ADD_U32") || N.starts_with("S_ADD_I32"))
    return add(Op(0), Op(1));
  if (N.starts_with("V_ADD3_U32"))
    return add(add(Op(0), Op(1)), Op(2));
  if (N.starts_with("V_SUB_U32_") || N.starts_with("S_SUB_U32") ||
      N.starts_with("S_SUB_I32"))
    return sub(Op(0), Op(1));
  if (N.starts_with("V_SUBREV_U32_"))
    return sub(Op(1), Op(0));
  if (N.starts_with("V_MUL_LO_U32") || N.starts_with("V_MUL_U32_U24") ||
      N.starts_with("V_MUL_I32_I24") || N.starts_with("S_MUL_I32"))
    return mul(Op(0), Op(1));
  if (N.starts_with("V_LSHLREV_B32"))
    return shl(Op(1), Op(0));
  if (N.starts_with("S_LSHL_B32"))
    return shl(Op(0), Op(1));
  if (N.starts_with("V_LSHL_ADD_U32"))
    return add(shl(Op(0), Op(1)), Op(2));
  if (N.starts_with("V_ADD_LSHL_U32"))
    return shl(add(Op(0), Op(1)), Op(2));
  if (N.starts_with("V_LSHRREV_B32"))
    return lshr(Op(1), Op(0));
  if (N.starts_with("S_LSHR_B32"))
    return lshr(Op(0), Op(1));
  if (N.starts_with("V_AND_B32") || N.starts_with("S_AND_B32"))
    return andMask(Op(0), Op(1));
  if (N.starts_with("V_BFE_U32") || N.starts_with("S_BFE_U32")) {
    std::optional<int64_t> W = constantOf(Op(2));
    if (!W || *W < 0 || *W > 31)
      return Value::unknown();
    return andMask(lshr(Op(0), Op(1)),
                   Value::constant((int64_t(1) << *W) - 1));
  }
  return Value::unknown();
}

void Prover::step(State &S, const MachineInstr &MI) const {
  const OpcodeFacts &OF = F.get(MI.getOpcode());
  Value V = evaluate(S, MI);
  bool PerLane = OF.isVALU() && !OF.is(ic::ReadLane);
  for (const MachineOperand &O : MI.operands()) {
    if (!O.isReg() || !O.isDef() || !O.getReg())
      continue;
    SlotRange R = F.slots().slots(O.getReg().asMCReg());
    for (unsigned Sl = R.First; Sl < R.end(); ++Sl) {
      if (Sl == slot::ExecLo || Sl == slot::ExecHi) {
        // Only `exec = -1` makes EXEC full again.
        std::optional<int64_t> C;
        if (OF.Name.starts_with("S_MOV_B64") && MI.getNumOperands() > 1 &&
            MI.getOperand(1).isImm())
          C = MI.getOperand(1).getImm();
        S.ExecFull = C && *C == -1;
        continue;
      }
      // The value is the first explicit def's (not a carry-out's).
      Value New = R.Count == 1 && &O == &MI.getOperand(0) ? V : Value::unknown();
      if (PerLane && !S.ExecFull && isVectorSlot(Sl)) {
        auto It = S.Regs.find(Sl);
        New = join(New, It == S.Regs.end() ? Value::unknown() : It->second);
      }
      if (New.Known)
        S.Regs[Sl] = New;
      else
        S.Regs.erase(Sl);
    }
  }
}

bool Prover::checkAccess(const State &S, const MachineInstr &MI,
                         std::string &Why) {
  const OpcodeFacts &OF = F.get(MI.getOpcode());
  StringRef N = OF.Name;
  auto Fail = [&](const Twine &T) {
    Why = (T + " at " + N).str();
    return false;
  };
  // A callee's LDS accesses are not seen here, nor are the paths of an
  // indirect jump.
  if (OF.Flow == FlowKind::Call || OF.Flow == FlowKind::Return)
    return Fail("a call or indirect jump");
  if (OF.is(ic::LDSDMA))
    return Fail("LDS DMA (address from M0)");
  if (OF.is(ic::FLAT) && !OF.is(ic::Global | ic::Scratch))
    return Fail("a FLAT access that may reach LDS");
  if (!OF.is(ic::DS))
    return true;
  // Cross-lane moves use the LDS hardware, not its memory.
  if (N.starts_with("DS_BPERMUTE") || N.starts_with("DS_PERMUTE") ||
      N.starts_with("DS_SWIZZLE") || N.starts_with("DS_NOP"))
    return true;
  if (OF.is(ic::GDS | ic::AddTID) || N.starts_with("DS_APPEND") ||
      N.starts_with("DS_CONSUME") || N.starts_with("DS_GWS") ||
      N.starts_with("DS_ORDERED"))
    return Fail("an LDS access addressed through M0");
  unsigned Size = dsAccessSize(N);
  auto Src = sources(MI);
  if (!Size || Src.empty())
    return Fail("an LDS access of unknown size");
  Value Addr = get(S, *Src[0]);
  if (!Addr.Known || Addr.A <= 0)
    return Fail("an LDS address not known to be per wave");
  // Offsets: the immediates after the sources (offset, or offset0 and
  // offset1 in elements for the two-address forms).
  SmallVector<int64_t, 2> Imms;
  const MCInstrDesc &D = MII.get(MI.getOpcode());
  for (unsigned I = D.getNumDefs(); I < MI.getNumExplicitOperands() &&
                                    I < D.getNumOperands();
       ++I)
    if (D.operands()[I].RegClass < 0 && MI.getOperand(I).isImm())
      Imms.push_back(MI.getOperand(I).getImm());
  int64_t OffLo, OffHi;
  if (N.contains("READ2") || N.contains("WRITE2") || N.contains("WRXCHG2")) {
    if (Imms.size() < 2)
      return Fail("a two-address LDS access without offsets");
    int64_t Scale = N.contains("ST64") ? 64 * Size : Size;
    OffLo = std::min(Imms[0], Imms[1]) * Scale;
    OffHi = std::max(Imms[0], Imms[1]) * Scale;
  } else {
    if (Imms.empty())
      return Fail("an LDS access without an offset operand");
    OffLo = OffHi = Imms[0];
  }
  int64_t Lo = Addr.Lo + OffLo, End = Addr.Hi + OffHi + Size;
  if (!HaveStride) {
    HaveStride = true;
    P.Stride = Addr.A;
    P.Lo = Lo;
    P.End = End;
  } else if (Addr.A != P.Stride) {
    return Fail("LDS slices of different strides");
  }
  P.Lo = std::min(P.Lo, Lo);
  P.End = std::max(P.End, End);
  ++P.Accesses;
  return true;
}

std::optional<LDSPartition> Prover::run(unsigned WorkItemIDDims,
                                        std::string &Why) {
  if (WorkItemIDDims != 0) {
    Why = "the kernel asks for more than the X work-item id";
    return std::nullopt;
  }
  ExitMap Exit;
  State Entry;
  Entry.Valid = true;
  // v0 = the X work-item id = 64 * W + lane.
  Entry.Regs[slot::VGPRBase] = Value::of(64, 0, 63);
  for (unsigned Iter = 0;; ++Iter) {
    if (Iter == 64) {
      Why = "the dataflow did not settle";
      return std::nullopt;
    }
    bool Changed = false;
    for (const MachineBasicBlock &MBB : MF) {
      State S = entryOf(MBB, Exit, &MBB == &MF.front() ? &Entry : nullptr);
      if (!S.Valid)
        continue;
      for (const MachineInstr &MI : MBB)
        if (!MI.isMetaInstruction())
          step(S, MI);
      State &Old = Exit[&MBB];
      if (!Old.Valid || Old.ExecFull != S.ExecFull ||
          Old.Regs.size() != S.Regs.size() ||
          llvm::any_of(S.Regs, [&](auto &KV) {
            auto It = Old.Regs.find(KV.first);
            return It == Old.Regs.end() || It->second != KV.second;
          })) {
        // Widening: a value still moving after a few rounds (a loop
        // counter) is given up, so the dataflow settles.
        if (Old.Valid && Iter >= WidenAfter)
          for (auto I = S.Regs.begin(); I != S.Regs.end();) {
            auto Cur = I++;
            auto It = Old.Regs.find(Cur->first);
            if (It == Old.Regs.end() || It->second != Cur->second)
              S.Regs.erase(Cur);
          }
        Old = std::move(S);
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
  // The settled states: check every access with the values before it.
  for (const MachineBasicBlock &MBB : MF) {
    State S = entryOf(MBB, Exit, &MBB == &MF.front() ? &Entry : nullptr);
    if (!S.Valid)
      continue; // Unreachable: never executes.
    for (const MachineInstr &MI : MBB) {
      if (MI.isMetaInstruction())
        continue;
      if (!checkAccess(S, MI, Why))
        return std::nullopt;
      step(S, MI);
    }
  }
  if (!HaveStride) {
    Why = "no LDS access";
    return std::nullopt;
  }
  if (P.Lo < 0 || P.End > P.Stride) {
    Why = "LDS accesses reach outside one slice (offsets " +
          std::to_string(P.Lo) + ".." + std::to_string(P.End) +
          ", stride " + std::to_string(P.Stride) + ")";
    return std::nullopt;
  }
  return P;
}

} // namespace

std::optional<LDSPartition>
asmevo::uncached::proveWavePrivateLDS(const MachineFunction &MF,
                                      const ISAFacts &F,
                                      unsigned WorkItemIDDims,
                                      std::string &WhyNot) {
  Prover Pr(MF, F);
  return Pr.run(WorkItemIDDims, WhyNot);
}
