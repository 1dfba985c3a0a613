//===- ISACoverageTest.cpp - The enumerated ISA is plausible --------------===//
//
// The enumeration sweeps encodings through LLVM's disassembler; these
// checks catch a sweep that silently stopped finding a family (a field
// layout got wrong, an LLVM upgrade renamed opcodes) without pinning
// exact counts, which move with LLVM.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Emulator/ISACoverage.h"
#include "asmevo/Support/TargetContext.h"
#include "gtest/gtest.h"
#include <map>

using namespace asmevo;
using namespace asmevo::emu;

namespace {

std::unique_ptr<TargetContext> target(const char *Proc) {
  initializeAMDGPUTarget();
  TargetInfo TI;
  TI.Processor = Proc;
  auto TC = TargetContext::create(TI);
  EXPECT_TRUE(bool(TC)) << (TC ? "" : llvm::toString(TC.takeError()));
  return TC ? std::move(*TC) : nullptr;
}

class ISAEnumeration : public ::testing::TestWithParam<const char *> {};

TEST_P(ISAEnumeration, CountsArePlausible) {
  auto TC = target(GetParam());
  ASSERT_TRUE(TC);
  std::vector<ISAOpcode> Ops = enumerateISA(*TC);
  std::map<std::string, unsigned> ByFamily;
  std::set<std::string> Names;
  for (const ISAOpcode &O : Ops) {
    ++ByFamily[O.Family];
    EXPECT_TRUE(Names.insert(O.Name).second) << "twice: " << O.Name;
    EXPECT_FALSE(O.Bytes.empty()) << O.Name;
    EXPECT_EQ(O.Bytes.size() % 4, 0u) << O.Name;
  }
  // Roughly 1,800 instructions, more MC opcodes (addressing modes, e32/e64,
  // DPP/SDWA and _acd/_vcd count separately).
  EXPECT_GT(Ops.size(), 2000u);
  EXPECT_LT(Ops.size(), 3500u);
  // Lower bounds per family, well under what LLVM 22 has.
  const std::pair<const char *, unsigned> Min[] = {
      {"SOP1", 40},  {"SOP2", 40},      {"SOPC", 15},      {"SOPK", 15},
      {"SOPP", 20},  {"SMEM", 100},     {"VOP1", 60},      {"VOP1-DPP", 50},
      {"VOP1-SDWA", 40}, {"VOP2", 45},  {"VOP2-DPP", 40},  {"VOP2-SDWA", 40},
      {"VOPC", 150}, {"VOPC-SDWA", 100}, {"VOP3", 350},    {"VOP3P", 25},
      {"MAI", 40},   {"DS", 150},       {"MUBUF", 250},    {"MTBUF", 40},
      {"FLAT", 40},  {"GLOBAL", 100},   {"SCRATCH", 40}};
  for (auto &[F, N] : Min)
    EXPECT_GE(ByFamily[F], N) << F;
  // Well-known members, by MC name.
  for (const char *N : {"V_ALIGNBIT_B32_opsel_gfx9", "S_ADD_U32_vi",
                        "V_ADD_F32_e32_vi", "V_ADD_F32_dpp_vi",
                        "V_ADD_F32_sdwa_gfx9", "DS_READ_B32_vi",
                        "GLOBAL_LOAD_DWORD_SADDR_vi", "V_PK_FMA_F32_vi",
                        "BUFFER_LOAD_DWORD_OFFEN_gfx90a"})
    EXPECT_TRUE(Names.count(N)) << N;
}

TEST_P(ISAEnumeration, EveryOpcodeIsClassified) {
  auto TC = target(GetParam());
  ASSERT_TRUE(TC);
  auto Cov = isaCoverage(*TC, {"V_ALIGNBIT_B32_opsel"});
  ASSERT_TRUE(bool(Cov)) << llvm::toString(Cov.takeError());
  std::map<CoverageStatus, unsigned> N;
  for (const OpcodeCoverage &C : *Cov) {
    ++N[C.Status];
    if (C.Status == CoverageStatus::Refused)
      EXPECT_FALSE(C.Why.empty()) << C.Op.Name;
    if (C.Op.Name == "V_ALIGNBIT_B32_opsel_gfx9")
      EXPECT_EQ(C.Status, CoverageStatus::Tested);
    if (C.Op.Name == "S_TRAP_vi")
      EXPECT_EQ(C.Status, CoverageStatus::Refused);
  }
  // Most of what compilers emit is implemented.
  EXPECT_GT(N[CoverageStatus::ImplementedUntested], Cov->size() / 2);
  EXPECT_GE(N[CoverageStatus::Refused], 8u);
}

INSTANTIATE_TEST_SUITE_P(Targets, ISAEnumeration,
                         ::testing::Values("gfx942", "gfx90a"));

} // namespace
