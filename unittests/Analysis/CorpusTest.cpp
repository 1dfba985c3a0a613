//===- CorpusTest.cpp - The checks on every function we have --------------===//
//
// Compiled code (our HIP test kernels, clang- and Triton-built corpus
// objects) must show no hazard or waitcnt violation: compilers apply these
// rules, so a report there is a checker bug. Hand-written corpus kernels
// are counted and printed (see test/Analysis/corpus-handwritten.test for
// why their reports are believed genuine). Register use recomputed from
// the code must fit the descriptor everywhere and match it after granule
// rounding for compiled code.
//
//===----------------------------------------------------------------------===//
#include "CorpusHelpers.h"
#include "asmevo/Analysis/FunctionAnalysis.h"
#include "asmevo/Analysis/Resources.h"
#include "llvm/Support/raw_ostream.h"
#include "gtest/gtest.h"
#include <map>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::test;

namespace {

struct GroupStats {
  unsigned Objects = 0, Functions = 0, Instrs = 0, Violations = 0;
  unsigned Kernels = 0, RegWithin = 0, RegExact = 0, AccumOK = 0;
};

TEST(AnalysisCorpus, ViolationsAndRegisters) {
  std::map<std::string, GroupStats> Stats;
  for (const ObjectEntry &E : corpusObjects()) {
    auto LM = liftFile(E.Path);
    ASSERT_TRUE(LM) << E.Path;
    ISAFacts F(LM->target());
    GroupStats &G = Stats[E.Group];
    ++G.Objects;
    std::vector<RegisterUse> Uses;
    std::vector<bool> Calls;
    for (LiftedFunction &LF : LM->functions()) {
      FunctionAnalysis A = analyzeFunction(*LM, LF, F);
      ++G.Functions;
      G.Instrs += A.Seq.Instrs.size();
      G.Violations += A.violations();
      if (E.Group != "hand-written")
        EXPECT_EQ(A.violations(), 0u) << E.Path << ": " << LF.Range.Name;
      Uses.push_back(A.Regs);
      bool C = false;
      for (const InstrRecord &I : A.Seq.Instrs)
        C |= I.F->Flow == FlowKind::Call;
      Calls.push_back(C);
    }
    for (unsigned I = 0; I < LM->functions().size(); ++I) {
      const LiftedFunction &LF = LM->functions()[I];
      if (!LF.Range.IsKernel || LF.Range.KernelIndex < 0)
        continue;
      KernelResources R = kernelResources(*LM, F, I, Uses, Calls);
      ++G.Kernels;
      bool Within = R.VGPRWithinDeclared && R.SGPRWithinDeclared;
      G.RegWithin += Within;
      G.RegExact += R.VGPRExact && R.SGPRExact;
      G.AccumOK += R.AccumOffsetOK;
      if (E.Group != "hand-written")
        EXPECT_TRUE(Within) << E.Path << ": " << R.Kernel;
      else if (!Within)
        outs() << "analysis hand-written over descriptor: " << E.Path << ": "
               << R.Kernel << " recomputed v" << R.RecVGPRGranule << "/s"
               << R.RecSGPRGranule << " (" << R.Used.sgprs() << " SGPRs + "
               << R.ExtraSGPRs << ") declared v" << R.DeclVGPRGranule << "/s"
               << R.DeclSGPRGranule << "\n";
      EXPECT_TRUE(R.AccumOffsetOK) << E.Path << ": " << R.Kernel;
      if (E.Group != "hand-written") {
        EXPECT_TRUE(R.VGPRExact)
            << E.Path << ": " << R.Kernel << " v" << R.RecVGPRGranule << " vs "
            << R.DeclVGPRGranule;
        EXPECT_TRUE(R.SGPRExact)
            << E.Path << ": " << R.Kernel << " s" << R.RecSGPRGranule << " vs "
            << R.DeclSGPRGranule;
      }
    }
  }
  for (auto &[Name, G] : Stats)
    outs() << "analysis " << Name << ": objects " << G.Objects << ", functions "
           << G.Functions << ", instructions " << G.Instrs << ", violations "
           << G.Violations << "; kernels " << G.Kernels
           << ", registers within descriptor " << G.RegWithin
           << ", equal after granule rounding " << G.RegExact
           << ", accum_offset ok " << G.AccumOK << "\n";
}

} // namespace
