//===- PatchInPlace.h - Edits written as byte patches -----------*- C++ -*-===//
//
// Where rebuilding is not wanted (`--patch-in-place`) or not safe, an edit
// that keeps every instruction at its address — a wait count changed, an
// s_nop shortened (or removed and put back as s_nop 0), two instructions of
// a block swapped — can be written
// into the original object's bytes: nothing else in the file changes (no
// relink, no new layout, descriptors and notes as they were). The
// rebuilt candidate tells us what each instruction's bytes became; the
// patch is accepted only when every instruction of the candidate sits at
// its original address with its original size, or within a run of
// instructions that only swapped places (the run occupies exactly the bytes
// its instructions occupied in K0, none of them a branch, call or PC read),
// and the descriptors and metadata did not change.
//
// Patch-only functions (LiftedFunction::PatchMF: non-simple because the
// MachineVerifier rejected them) are never rebuilt, so their edits reach
// the output only this way, whether or not --patch-in-place was given:
// patchOnlyFunctions() lays their instructions out as a rebuild would and
// writes them under the same rules.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_REWRITE_PATCHINPLACE_H
#define ASMEVO_REWRITE_PATCHINPLACE_H

#include "asmevo/Emit/Rebuild.h"
#include "llvm/Support/Error.h"
#include <set>
#include <string>
#include <vector>

namespace llvm {
class MachineFunction;
}

namespace asmevo {
class CodeObject;
class LiftedModule;
struct LiftedFunction;
class TargetContext;

/// A patch-only function written as byte patches.
struct PatchedFunction {
  std::string Name;
  std::string Reason; ///< Why it is not simple (LiftedFunction::Reason).
  unsigned Instructions = 0;
};

struct Patch {
  std::vector<uint8_t> Bytes; ///< The original file with the patches.
  unsigned PatchedInstructions = 0;
  uint64_t PatchedBytes = 0;
  /// patchOnlyFunctions(): each function patched.
  std::vector<PatchedFunction> Functions;
};

/// \p K0's bytes with the code of \p Rebuilt (linked from K0's lifted and
/// edited functions) written over it; an error says which instruction
/// moved or grew, or which other part of the object changed. \p TC
/// decodes swapped runs to refuse PC-dependent instructions in them;
/// without it no run of swapped instructions is accepted.
llvm::Expected<Patch> patchInPlace(const CodeObject &K0,
                                   const CodeObject &Rebuilt,
                                   const RebuildResult &R,
                                   const TargetContext *TC = nullptr);

/// \p Base's bytes with the edited patch-only functions of \p LM named
/// in \p Functions written over them. \p Base holds K0's code at K0's
/// addresses: K0 itself, or a candidate rebuilt from LM, where functions
/// that are not simple keep their bytes and places. Each function's
/// entries in \p R's address map are replaced by where its instructions
/// went. An error names the function, why it is not simple and what could
/// not be patched (an instruction added, removed or moved out of a run of
/// swapped ones, or an edited one LLVM cannot re-encode without losing
/// bits); nothing is then written.
llvm::Expected<Patch> patchOnlyFunctions(const LiftedModule &LM,
                                         const std::set<std::string> &Functions,
                                         const CodeObject &Base,
                                         RebuildResult &R);

/// For a patch: each `s_nop` of the original that a pass removed (from a
/// simple function of \p LM) comes back as `s_nop 0` at its original
/// address, so that what follows keeps its place. One wait state is never
/// fewer than the hazard rules asked for (the pass found none needed).
/// Returns how many were put back.
unsigned padRemovedNops(LiftedModule &LM);
/// The same for one function, simple or patch-only (\p MF: its MIR).
unsigned padRemovedNops(LiftedModule &LM, const LiftedFunction &LF,
                        llvm::MachineFunction &MF);

} // namespace asmevo

#endif
