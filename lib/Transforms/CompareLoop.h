//===- CompareLoop.h - Loops exited by comparing a stepped induction ------===//
//
// Compilers give `for (i = a; i < n; i += s)` as a single-block loop that
// steps a scalar once per trip and leaves when a compare against a
// loop-invariant bound fails. Its trip count is not in a register, so the
// countdown unroller cannot peel the remainder; instead, a block of Factor
// trips runs only when the bound proves all of them will, and the
// original loop, left as it was, runs whatever is left. No trip count is
// computed, so wrap-around and overflow behave exactly as before.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_TRANSFORMS_COMPARELOOP_H
#define ASMEVO_LIB_TRANSFORMS_COMPARELOOP_H

#include "llvm/CodeGen/MachineBasicBlock.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/CodeGen/Register.h"
#include <cstdint>
#include <optional>
#include <vector>

namespace llvm {
class MachineInstr;
class MCRegisterInfo;
class TargetInstrInfo;
class TargetRegisterInfo;
} // namespace llvm

namespace asmevo {

class TargetContext;

struct CompareLoop {
  llvm::MachineBasicBlock *L = nullptr, *Exit = nullptr;
  /// The block after L holding only `s_branch L` when L leaves by a
  /// conditional branch to Exit; null when L branches to itself.
  llvm::MachineBasicBlock *Latch = nullptr;
  llvm::MachineInstr *Cmp = nullptr, *Term = nullptr;
  /// `s_branch L` after Term in L itself (a latch merged into L).
  llvm::MachineInstr *Back = nullptr;
  llvm::Register Induction;
  int64_t Step = 0;
  /// The loop goes on while `Induction Rel Bound` after the step, Rel
  /// being < (Up) or > (!Up), or <= / >= (OrEqual).
  bool Signed = true, Up = true, OrEqual = false;
  llvm::Register Bound;
  std::optional<int64_t> BoundImm;
  /// The SCC value with which Term leaves the loop.
  bool ExitSCC = true;
};

/// \p MBB as a CompareLoop, or nullopt (also for the countdown form the
/// unroller takes as it is).
std::optional<CompareLoop> matchCompareLoop(llvm::MachineBasicBlock &MBB,
                                            const llvm::TargetInstrInfo &TII,
                                            const llvm::TargetRegisterInfo &TRI,
                                            const llvm::MCRegisterInfo &MRI,
                                            llvm::MCRegister SCC);

/// The blocks a guarded unroll puts before L: G tests whether Factor more
/// trips all go on and falls into M (empty: the caller fills it with the
/// copies) or branches to L; M leaves for Exit when the last copy's compare
/// says so and falls into M2, which goes back to M while another Factor
/// trips fit and else falls into L, the original loop.
struct GuardedBlocks {
  llvm::MachineBasicBlock *G = nullptr, *M = nullptr, *M2 = nullptr;
};

/// Builds the guard into G and M2 and M's exit branch. \p Limit is a free
/// SGPR for the shifted bound (unused when the bound is an immediate).
/// nullopt, building nothing, when the shifted immediate bound overflows
/// (no block of Factor trips can ever fit).
std::optional<GuardedBlocks>
buildGuardedBlocks(const CompareLoop &CL, unsigned Factor,
                   llvm::Register Limit, const TargetContext &TC,
                   const llvm::TargetInstrInfo &TII);

class ISAFacts;

/// Reorders the copies in M (each split at its first s_waitcnt into a head
/// and a tail) as every head, then every tail, so that all copies' loads
/// are in flight before the first wait; each tail's vmcnt waits grow by
/// the loads of the heads now issued after it. Only when that reads and
/// writes every register as before: a head may narrow EXEC but gives it
/// back, a tail neither writes EXEC nor touches SCC nor memory but LDS,
/// and no later head touches a register an earlier tail reads or writes.
/// A tail temporary that shares a VGPR with a load of its copy may move
/// into a VGPR below \p Limit that neither \p UsedVGPR nor the block names
/// (its value dead at the end of M unless live into \p LiveAfter).
/// False otherwise; the caller then puts the loop back.
bool issueHeadsFirst(llvm::MachineBasicBlock &M,
                     llvm::ArrayRef<std::vector<llvm::MachineInstr *>> Copies,
                     llvm::ArrayRef<const llvm::MachineBasicBlock *> LiveAfter,
                     const std::vector<bool> &UsedVGPR, unsigned Limit,
                     const ISAFacts &F, const TargetContext &TC,
                     const llvm::TargetInstrInfo &TII,
                     const llvm::TargetRegisterInfo &TRI,
                     const llvm::MCRegisterInfo &MRI, llvm::MCRegister SCC);

} // namespace asmevo

#endif
