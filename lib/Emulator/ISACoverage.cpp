//===- ISACoverage.cpp - What the emulator does with each opcode ----------===//
//
// Every enumerated opcode's encoding goes through the emulator's own
// decoder (the one a launch uses), so "implemented" here means exactly
// what a run would find: a handler for the stem and the encoding, and
// operands the decoder can resolve.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Emulator/ISACoverage.h"
#include "Program.h"
#include "Semantics.h"
#include "asmevo/Support/TargetContext.h"

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

StringRef emu::statusName(CoverageStatus S) {
  switch (S) {
  case CoverageStatus::Tested:
    return "tested";
  case CoverageStatus::ImplementedUntested:
    return "implemented-untested";
  case CoverageStatus::Unimplemented:
    return "unimplemented";
  case CoverageStatus::Refused:
    return "refused-by-design";
  }
  return "?";
}

/// \p MCName without its subtarget suffixes (V_ADD_F32_e32_vi ->
/// V_ADD_F32_e32): the encoding stays, so a case that exercised the e32
/// form does not count for the DPP or SDWA one.
static StringRef withoutSubtarget(StringRef Name) {
  static const char *Subtargets[] = {"_vi",     "_gfx9",  "_gfx90a",
                                     "_gfx940", "_gfx950", "_gfx6_gfx7",
                                     "_si",     "_ci"};
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (const char *S : Subtargets)
      if (Name.consume_back(S))
        Changed = true;
  }
  return Name;
}

std::string emu::semanticStem(StringRef MCName) {
  uint32_t Flags;
  Enc E;
  return opcodeStem(MCName, Flags, E);
}

Expected<std::vector<OpcodeCoverage>>
emu::isaCoverage(const TargetContext &TC, const std::set<std::string> &Tested) {
  std::vector<ISAOpcode> Ops = enumerateISA(TC);
  // One code range per opcode, 16 bytes apart, so each decodes alone.
  std::vector<std::pair<uint64_t, ArrayRef<uint8_t>>> Code;
  for (size_t K = 0; K < Ops.size(); ++K)
    Code.push_back({uint64_t(K) * 16, ArrayRef<uint8_t>(Ops[K].Bytes)});
  auto P = Program::decode(TC.info(), Code);
  if (!P)
    return P.takeError();
  std::vector<OpcodeCoverage> Out;
  for (size_t K = 0; K < Ops.size(); ++K) {
    OpcodeCoverage C;
    C.Op = std::move(Ops[K]);
    std::string Stem = semanticStem(C.Op.Name);
    const DInst *I = (*P)->at(uint64_t(K) * 16);
    bool Impl = I && !(I->Flags & FDecodeError);
    if (!refusedByDesign(Stem).empty()) {
      C.Status = CoverageStatus::Refused;
      C.Why = refusedByDesign(Stem).str();
    } else if (Impl) {
      C.Status = Tested.count(C.Op.Name) ||
                         Tested.count(withoutSubtarget(C.Op.Name).str())
                     ? CoverageStatus::Tested
                     : CoverageStatus::ImplementedUntested;
    } else {
      C.Status = CoverageStatus::Unimplemented;
      if (I) {
        auto It = (*P)->Notes.find(I->Index);
        if (It != (*P)->Notes.end())
          C.Why = It->second;
      }
    }
    Out.push_back(std::move(C));
  }
  return Out;
}
