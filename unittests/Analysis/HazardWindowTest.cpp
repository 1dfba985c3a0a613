//===- HazardWindowTest.cpp - The run-time (stream) form of the tables ----===//
#include "AnalysisTestUtil.h"
#include "asmevo/Analysis/Hazards.h"
#include "llvm/MC/MCInst.h"

using namespace llvm;
using namespace asmevo;
using namespace asmevo::test;

namespace {

struct Builder {
  const TestTarget &T;
  InstrRecord make(StringRef Opc, std::initializer_list<StringRef> Regs,
                   int64_t Imm = 0) {
    MCInst I;
    I.setOpcode(T.op(Opc));
    for (StringRef R : Regs) {
      if (R == "#") {
        I.addOperand(MCOperand::createImm(Imm));
        continue;
      }
      MCRegister Reg = T.reg(R);
      EXPECT_TRUE(Reg) << R.str();
      I.addOperand(MCOperand::createReg(Reg));
    }
    return InstrRecord::fromMCInst(I, *T.Facts);
  }
};

const HazardHit *find(const std::vector<HazardHit> &Hits, StringRef Id) {
  for (const HazardHit &H : Hits)
    if (StringRef(H.Rule->Id) == Id)
      return &H;
  return nullptr;
}

TEST(HazardWindow, LaneSelectAfterVALUWrite) {
  const TestTarget &T = target("gfx942");
  Builder B{T};
  HazardWindow W(*T.Facts);
  W.issue(B.make("V_READFIRSTLANE_B32_vi", {"s2", "v1"}));
  InstrRecord RL = B.make("V_READLANE_B32_vi", {"s10", "v2", "s2"});
  const HazardHit *H = find(W.check(RL), "valu-sgpr-lanesel");
  ASSERT_TRUE(H);
  EXPECT_EQ(H->Missing, 4);
  EXPECT_EQ(H->Reg, (SlotRange{2, 1}));
  // s_nop 2 provides three wait states.
  W.issue(B.make("S_NOP_vi", {"#"}, 2));
  H = find(W.check(RL), "valu-sgpr-lanesel");
  ASSERT_TRUE(H);
  EXPECT_EQ(H->Missing, 1);
  W.issue(B.make("S_NOP_vi", {"#"}, 0));
  EXPECT_FALSE(find(W.check(RL), "valu-sgpr-lanesel"));
}

TEST(HazardWindow, MFMAResultReadByVALU) {
  const TestTarget &T = target("gfx942");
  Builder B{T};
  HazardWindow W(*T.Facts);
  // 8-pass XDL on gfx942: a VALU read needs 8 + 3 wait states.
  W.issue(B.make("V_MFMA_F32_32X32X8F16_vi", {"v[0:15]", "v[16:17]", "v[18:19]",
                                              "v[0:15]", "#", "#", "#"}));
  InstrRecord Add = B.make("V_ADD_F32_e32_vi", {"v20", "v3", "v21"});
  const HazardHit *H = find(W.check(Add), "mfma-read");
  ASSERT_TRUE(H);
  EXPECT_EQ(H->Missing, 11);
  // A chained MFMA reading the same registers as SrcC needs nothing.
  InstrRecord Chain =
      B.make("V_MFMA_F32_32X32X8F16_vi",
             {"v[0:15]", "v[16:17]", "v[18:19]", "v[0:15]", "#", "#", "#"});
  EXPECT_TRUE(W.check(Chain).empty());
  // Reading them as SrcA needs passes + 3.
  InstrRecord AB =
      B.make("V_MFMA_F32_32X32X8F16_vi",
             {"v[32:47]", "v[0:1]", "v[18:19]", "v[32:47]", "#", "#", "#"});
  H = find(W.check(AB), "mfma-srcab");
  ASSERT_TRUE(H);
  EXPECT_EQ(H->Missing, 11);
}

TEST(HazardWindow, GFX90APassTable) {
  const TestTarget &T = target("gfx90a");
  Builder B{T};
  HazardWindow W(*T.Facts);
  W.issue(B.make("V_MFMA_F32_32X32X8F16_vi", {"a[0:15]", "v[16:17]", "v[18:19]",
                                              "a[0:15]", "#", "#", "#"}));
  InstrRecord Rd = B.make("V_ACCVGPR_READ_B32_vi", {"v1", "a3"});
  const HazardHit *H = find(W.check(Rd), "mfma-read");
  ASSERT_TRUE(H);
  EXPECT_EQ(H->Missing, 19); // 16 passes on gfx90a
}

TEST(HazardWindow, RulesCiteSources) {
  for (const HazardRule &R : hazardRules()) {
    EXPECT_TRUE(StringRef(R.Source).contains("[")) << R.Id;
    EXPECT_FALSE(StringRef(R.Text).empty()) << R.Id;
  }
}

} // namespace
