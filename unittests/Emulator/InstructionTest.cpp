//===- InstructionTest.cpp - Per-instruction semantics --------------------===//
//
// Runs every case of Cases.h on gfx942 and, where the snippet assembles for
// it, on gfx90a. A case passes when the run is clean (no violation) and
// every checked register holds the value the ISA description gives.
//
//===----------------------------------------------------------------------===//
#include "AsmHarness.h"
#include "Cases.h"
#include "gtest/gtest.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"
#include <set>
#include <sstream>

using namespace asmevo::emu;
using namespace asmevo::emu::test;

std::vector<Case> scalarCases();
std::vector<Case> vectorCases();
std::vector<Case> memoryCases();
std::vector<Case> matrixCases();

const std::vector<Case> &test::allCases() {
  static std::vector<Case> All = [] {
    std::vector<Case> V;
    for (auto *F : {scalarCases, vectorCases, memoryCases, matrixCases})
      for (Case &C : F())
        V.push_back(std::move(C));
    return V;
  }();
  return All;
}

namespace {

struct Param {
  unsigned Index;
  std::string Arch;
};

class InstructionSemantics : public ::testing::TestWithParam<Param> {};

std::string caseName(const ::testing::TestParamInfo<Param> &I) {
  std::string N = allCases()[I.param.Index].Mnemonics;
  N = N.substr(0, N.find(' '));
  for (char &Ch : N)
    if (!isalnum((unsigned char)Ch))
      Ch = '_';
  return I.param.Arch + "_" + std::to_string(I.param.Index) + "_" + N;
}

TEST_P(InstructionSemantics, MatchesISA) {
  const Case &C = allCases()[GetParam().Index];
  std::vector<std::string> Regs;
  for (const Check &K : C.Checks)
    Regs.push_back(K.Reg);
  SnippetOptions O;
  O.Arch = GetParam().Arch;
  O.Input = C.Input;
  SnippetResult R = runSnippet(C.Asm, Regs, O);
  if (!R.Error.empty() && O.Arch == "gfx90a" &&
      R.Error.find("llvm-mc failed") != std::string::npos)
    GTEST_SKIP() << "does not assemble for gfx90a";
  ASSERT_TRUE(R.Error.empty()) << R.Error;
  std::string V;
  llvm::raw_string_ostream VS(V);
  for (const Violation &X : R.Run.Violations)
    X.print(VS);
  EXPECT_TRUE(R.Run.Violations.empty()) << VS.str();
  for (size_t K = 0; K < C.Checks.size(); ++K) {
    unsigned Bad = 0;
    std::ostringstream Msg;
    for (unsigned L = 0; L < 64; ++L) {
      uint32_t Want = C.Checks[K].Expect(L), Got = R.Regs[K][L];
      if (Want != Got && Bad++ < 4)
        Msg << " lane " << L << ": got 0x" << std::hex << Got << " want 0x"
            << Want << std::dec;
    }
    EXPECT_EQ(Bad, 0u) << C.Mnemonics << " (" << C.Cite << ") "
                       << C.Checks[K].Reg << ":" << Msg.str();
  }
}

std::vector<Param> params() {
  std::vector<Param> P;
  for (unsigned I = 0; I < allCases().size(); ++I) {
    P.push_back({I, allCases()[I].Arch});
    if (std::string(allCases()[I].Arch) == "gfx942")
      P.push_back({I, "gfx90a"});
  }
  return P;
}

INSTANTIATE_TEST_SUITE_P(Cases, InstructionSemantics,
                         ::testing::ValuesIn(params()), caseName);

} // namespace

/// The mnemonics the cases cover, one per line (for
/// `asmevo-verify coverage --tested`).
extern const char *ViolationTestMnemonics;

void printTestedMnemonics() {
  std::set<std::string> S;
  {
    std::istringstream IS(ViolationTestMnemonics);
    std::string M;
    while (IS >> M)
      S.insert(M);
  }
  for (const Case &C : allCases()) {
    std::istringstream IS(C.Mnemonics);
    std::string M;
    while (IS >> M)
      S.insert(M);
  }
  for (const std::string &M : S)
    llvm::outs() << M << "\n";
}
