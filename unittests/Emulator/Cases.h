//===- Cases.h - Per-instruction semantic test cases ------------*- C++ -*-===//
//
// A case runs a snippet (AsmHarness.h) and checks registers per lane
// against values derived from the instruction descriptions of AMD's
// "AMD Instinct MI300 (CDNA3) Instruction Set Architecture" reference
// (cited per case; chapters: 4 program flow, 5 scalar ALU, 6 vector ALU,
// 7 matrix, 8 scalar memory, 9 buffer, 10 flat/global/scratch, 11 LDS,
// 12 opcode descriptions).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_UNITTESTS_EMULATOR_CASES_H
#define ASMEVO_UNITTESTS_EMULATOR_CASES_H

#include "asmevo/Emulator/Float.h"
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace asmevo {
namespace emu {
namespace test {

using LaneFn = std::function<uint32_t(unsigned Lane)>;

struct Check {
  std::string Reg;
  LaneFn Expect;
};

struct Case {
  const char *Mnemonics; ///< Space-separated objdump mnemonics covered.
  const char *Cite;      ///< ISA section the expected values come from.
  const char *Asm;
  std::vector<Check> Checks;
  const char *Arch = "gfx942";
  /// Input buffer contents (dwords); empty: dword i = 0x1000 + i.
  std::vector<uint32_t> Input = {};
};

/// Every case, gfx942 and gfx90a.
const std::vector<Case> &allCases();

inline uint32_t fbits(float F) { return asU(F); }
inline float bitsf(uint32_t U) { return asF(U); }

} // namespace test
} // namespace emu
} // namespace asmevo

#endif
