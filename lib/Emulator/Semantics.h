//===- Semantics.h - Instruction semantics keyed on opcode names -*- C++ -*-===//
//
// Each family file (SALU, VALU, memory, MFMA, program flow) registers one
// handler per opcode stem: the MC opcode name without its encoding and
// subtarget suffixes ("V_ADD_U32" for V_ADD_U32_e32_gfx9, _e64_gfx9,
// _dpp_gfx9, _sdwa_gfx9; "BUFFER_LOAD_DWORD" for every addressing mode).
// The decoder attaches the handler to each decoded instruction.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_EMULATOR_SEMANTICS_H
#define ASMEVO_LIB_EMULATOR_SEMANTICS_H

#include "Program.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"

namespace asmevo {
namespace emu {

struct SemEntry {
  ExecFn Fn = nullptr;
  const void *Info = nullptr; ///< Handler-specific record.
  uint32_t Flags = 0;         ///< DInst flags to add.
  uint32_t Aux = 0;
  /// Encodings the handler supports (bit per Enc value).
  uint8_t Encodings = 0xff;
};

class SemRegistry {
public:
  void add(llvm::StringRef Stem, SemEntry E) { Map[Stem] = E; }
  /// A handler without a record, for \p Encodings (bit per Enc value).
  void add(llvm::StringRef Stem, ExecFn F, uint8_t Encodings,
           uint32_t Flags = 0) {
    SemEntry E{F};
    E.Encodings = Encodings;
    E.Flags = Flags;
    add(Stem, E);
  }
  const SemEntry *find(llvm::StringRef Stem) const {
    auto It = Map.find(Stem);
    return It == Map.end() ? nullptr : &It->second;
  }
  const llvm::StringMap<SemEntry> &all() const { return Map; }

private:
  llvm::StringMap<SemEntry> Map;
};

/// The registry with every family registered (built once).
const SemRegistry &semantics();

void registerSALU(SemRegistry &R);
void registerFlow(SemRegistry &R);
void registerVALU(SemRegistry &R);
void registerVALUConv(SemRegistry &R);
void registerVALUMad16(SemRegistry &R);
void registerVALUSpecial(SemRegistry &R);
void registerVOP3P(SemRegistry &R);
void registerMFMA(SemRegistry &R);
void registerSMEM(SemRegistry &R);
void registerVMEM(SemRegistry &R);
void registerDS(SemRegistry &R);

/// Opcode stem: \p MCName without subtarget/encoding suffixes and, for
/// memory instructions, without addressing-mode suffixes (those are
/// returned in \p AddrFlags as F* flags).
std::string opcodeStem(llvm::StringRef MCName, uint32_t &AddrFlags, Enc &E);

} // namespace emu
} // namespace asmevo

#endif
