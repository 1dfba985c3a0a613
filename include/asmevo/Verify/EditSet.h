//===- EditSet.h - Which instructions of K1 differ from K0 ------*- C++ -*-===//
//
// A run only vouches for the instructions it executed: an edit on a path no
// run took is untested, so the verifier must know exactly which K1
// instructions differ from K0. With the address map asmevo-opt writes
// (`--address-map`: K1 address -> K0 address or "new") pairs are exact.
// Without one, objects with the same instruction addresses are paired by
// address, and otherwise each function is aligned by its longest common
// prefix and suffix, which over-approximates the edit (safe: more of it
// must be executed). A branch pairs with a branch when its target pairs
// with the K0 target; everything else pairs when its bytes are equal.
//
// Some edits cannot be judged in one coherent emulated memory whatever the
// runs show: cache-policy bits, cache invalidation/write-back, and the
// instructions workgroups synchronize through. They are classified here so
// the verifier can answer `unknown` for them unless the user accepts them.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_VERIFY_EDITSET_H
#define ASMEVO_VERIFY_EDITSET_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {
namespace emu {
class Emulator;
}
namespace verify {

/// `asmevo-opt --address-map` output: K1 address -> K0 address (nullopt
/// for an instruction the edit added).
struct AddressMap {
  std::map<uint64_t, std::optional<uint64_t>> NewToOld;
  /// K1 address -> its line in the file, for errors.
  std::map<uint64_t, size_t> LineOf;
  std::string Path;
  /// Reads the map; a malformed line, a K1 or K0 address listed twice, or a
  /// K1 address not after the previous line's is an error naming the line.
  static llvm::Expected<AddressMap> load(llvm::StringRef Path);
};

enum class EditClass {
  Code,            ///< Judged by running it.
  CachePolicy,     ///< Only sc0/sc1/nt (glc/slc/dlc) bits changed.
  MemoryScope,     ///< Cache invalidate / write-back instructions.
  Synchronization, ///< Global atomics, s_sleep: cross-workgroup protocols.
};
llvm::StringRef editClassName(EditClass C);
/// Parses a name of editClassName (for `--accept=`).
std::optional<EditClass> parseEditClass(llvm::StringRef S);

struct EditedInstruction {
  enum Kind { Changed, Added, Removed };
  Kind K = Changed;
  EditClass Class = EditClass::Code;
  /// The K1 instruction a run must execute to exercise the edit (for a
  /// removed K0 instruction: the K1 instruction now in its place).
  uint64_t K1Addr = 0;
  std::optional<uint64_t> K0Addr;
  std::string K0Text, K1Text;
  bool Executed = false;
};

struct EditSet {
  std::vector<EditedInstruction> Edits;
  /// "address map", "same addresses" or "aligned per function".
  std::string Method;
  /// Every paired instruction, edited or not: K1 address -> K0 address.
  std::map<uint64_t, uint64_t> K1ToK0;
  uint64_t K1Instructions = 0;

  bool empty() const { return Edits.empty(); }
};

/// Pairs (x, y), increasing, of a longest common subsequence of two
/// sequences of lengths \p N and \p M under \p Eq (Myers' greedy
/// algorithm after the common prefix and suffix; beyond an edit distance
/// of 4096 only the prefix and suffix are paired, which over-approximates
/// the edit).
std::vector<std::pair<size_t, size_t>>
alignSequences(size_t N, size_t M,
               llvm::function_ref<bool(size_t, size_t)> Eq);

/// Finds the instructions of \p K1 that differ from \p K0. \p Map, when
/// given, must describe K1 (an entry for every K1 instruction).
llvm::Expected<EditSet> findEdits(const emu::Emulator &K0,
                                  const emu::Emulator &K1,
                                  const AddressMap *Map);

} // namespace verify
} // namespace asmevo

#endif
