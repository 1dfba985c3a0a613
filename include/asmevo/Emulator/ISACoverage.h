//===- ISACoverage.h - The target's ISA, and what the emulator does of it -===//
//
// LLVM's MCInstrInfo has no per-opcode subtarget predicate, so a target's
// ISA is found by decoding: for each encoding family the opcode field and
// the bits that select variants (DPP/SDWA source codes, VOP3 carry-out,
// MAI acc_cd, buffer addressing modes, FLAT segments, SMEM offset kinds)
// are swept through the target's MCDisassembler, and every distinct MC
// opcode it accepts is collected with one encoding of it. Each opcode is
// then classified by handing that encoding to the emulator's decoder.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_EMULATOR_ISACOVERAGE_H
#define ASMEVO_EMULATOR_ISACOVERAGE_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <set>
#include <string>
#include <vector>

namespace asmevo {
class TargetContext;

namespace emu {

/// One MC opcode the target's disassembler accepts.
struct ISAOpcode {
  std::string Name;   ///< MC opcode name ("V_ALIGNBIT_B32_opsel_gfx9").
  std::string Family; ///< "SOP2", "VOP1-DPP", "MAI", "GLOBAL", ...
  std::string Text;   ///< One instance as the printer shows it.
  llvm::SmallVector<uint8_t, 16> Bytes; ///< Its encoding.
};

/// Every opcode of \p TC's target, by sweeping each encoding family; sorted
/// by family (in the order of isaFamilies()) and name.
std::vector<ISAOpcode> enumerateISA(const TargetContext &TC);

/// The families enumerateISA reports, in print order.
llvm::ArrayRef<const char *> isaFamilies();

enum class CoverageStatus {
  Tested,              ///< implemented, and a differential case passes
  ImplementedUntested, ///< implemented, no differential case
  Unimplemented,       ///< stops a run with `unimplemented`
  Refused,             ///< refused by design (closed list, refusedByDesign)
};

llvm::StringRef statusName(CoverageStatus S);

struct OpcodeCoverage {
  ISAOpcode Op;
  CoverageStatus Status = CoverageStatus::Unimplemented;
  std::string Why; ///< The decoder's reason when not implemented.
};

/// Classifies every opcode of enumerateISA(\p TC) with the emulator's
/// decoder. \p Tested holds MC opcode names, with or without their
/// subtarget suffixes (V_ADD_F32_e32), that pass at least one differential
/// case; the encoding suffix stays, so each form counts on its own.
llvm::Expected<std::vector<OpcodeCoverage>>
isaCoverage(const TargetContext &TC, const std::set<std::string> &Tested);

/// The opcode stem the emulator keys semantics on (see Semantics.h).
std::string semanticStem(llvm::StringRef MCName);

/// Why the emulator refuses \p Stem by design, or "" when it does not. The
/// list is closed and documented in lib/Emulator/README.md.
llvm::StringRef refusedByDesign(llvm::StringRef Stem);

} // namespace emu
} // namespace asmevo

#endif
