//===- ISAFactsTest.cpp - Pins the classification of known opcodes --------===//
//
// The classification reads SIInstrFlags bits of TSFlags whose positions come
// from a private LLVM header, and MFMA pass counts from the scheduling
// model. If an LLVM upgrade moves a bit or changes a model, these fail.
//
//===----------------------------------------------------------------------===//
#include "AnalysisTestUtil.h"
#include "asmevo/Analysis/RegSlots.h"

using namespace asmevo;
using namespace asmevo::test;

namespace {

void expectCounters(const OpcodeFacts &F, uint8_t Counters) {
  EXPECT_EQ(F.Counters, Counters) << F.Name.str();
  // Our counters are a subset of what the TSFlags "may increment" bits say.
  if (F.Counters & cnt::VM)
    EXPECT_TRUE((F.TSFlags >> tsflag::VM_CNT) & 1) << F.Name.str();
  if (F.Counters & cnt::LGKM)
    EXPECT_TRUE((F.TSFlags >> tsflag::LGKM_CNT) & 1) << F.Name.str();
}

TEST(ISAFacts, MFMA) {
  const TestTarget &T = target("gfx942");
  const OpcodeFacts &F = T.facts("V_MFMA_F32_32X32X8F16_vi");
  EXPECT_TRUE(F.is(ic::MFMA));
  EXPECT_TRUE(F.is(ic::XDL));
  EXPECT_TRUE(F.is(ic::VALU));
  EXPECT_FALSE(F.is(ic::DGEMM));
  EXPECT_EQ(F.Passes, 8u); // gfx940 scheduling model
  EXPECT_EQ(target("gfx90a").facts("V_MFMA_F32_32X32X8F16_vi").Passes, 16u);
  EXPECT_EQ(T.facts("V_MFMA_F32_4X4X1F32_vi").Passes, 2u);
  EXPECT_EQ(T.facts("V_MFMA_F32_16X16X32_FP8_FP8_gfx940_acd").Passes, 4u);
  // f32-source MFMAs are not XDL on gfx940+ (getMAIIsGFX940XDL), but are on
  // gfx90a; the xf32 forms are XDL.
  for (const char *N : {"V_MFMA_F32_32X32X2F32_gfx940_vcd",
                        "V_MFMA_F32_16X16X4F32_gfx940_vcd",
                        "V_MFMA_F32_4X4X1F32_gfx940_vcd"})
    EXPECT_FALSE(T.facts(N).is(ic::XDL)) << N;
  EXPECT_TRUE(target("gfx90a").facts("V_MFMA_F32_32X32X2F32_vi").is(ic::XDL));
  EXPECT_TRUE(T.facts("V_MFMA_F32_32X32X4XF32_gfx940_vcd").is(ic::XDL));

  const OpcodeFacts &D = T.facts("V_MFMA_F64_16X16X4F64_gfx90a_acd");
  EXPECT_TRUE(D.is(ic::MFMA));
  EXPECT_TRUE(D.is(ic::DGEMM));
  EXPECT_FALSE(D.is(ic::XDL));
  EXPECT_EQ(D.Passes, 8u);
  EXPECT_EQ(target("gfx950").facts("V_MFMA_F64_16X16X4F64_gfx90a_acd").Passes,
            16u);

  const OpcodeFacts &A = T.facts("V_ACCVGPR_READ_B32_vi");
  EXPECT_TRUE(A.is(ic::AccMove));
  EXPECT_FALSE(A.is(ic::MFMA));
  EXPECT_TRUE(A.isLegacyVALU());
  EXPECT_TRUE(T.facts("V_DOT2_F32_F16_vi").is(ic::DOT));
}

TEST(ISAFacts, Memory) {
  const TestTarget &T = target("gfx942");
  const OpcodeFacts &G = T.facts("GLOBAL_LOAD_DWORD_vi");
  EXPECT_TRUE(G.is(ic::VMEM) && G.is(ic::Global) && G.is(ic::MemLoad));
  EXPECT_FALSE(G.is(ic::FLAT));
  expectCounters(G, cnt::VM);

  const OpcodeFacts &GS = T.facts("GLOBAL_STORE_DWORD_vi");
  EXPECT_TRUE(GS.is(ic::MemStore));
  EXPECT_FALSE(GS.is(ic::MemLoad));
  expectCounters(GS, cnt::VM);

  const OpcodeFacts &S = T.facts("S_LOAD_DWORD_IMM_vi");
  EXPECT_TRUE(S.is(ic::SMEM) && S.is(ic::MemLoad));
  expectCounters(S, cnt::LGKM);

  const OpcodeFacts &DR = T.facts("DS_READ_B32_vi");
  EXPECT_TRUE(DR.is(ic::DS) && DR.readsLDS() && DR.is(ic::MemLoad));
  expectCounters(DR, cnt::LGKM);
  const OpcodeFacts &DW = T.facts("DS_WRITE_B32_vi");
  EXPECT_TRUE(DW.writesLDS() && DW.is(ic::MemStore));
  expectCounters(DW, cnt::LGKM);

  const OpcodeFacts &L = T.facts("BUFFER_LOAD_DWORD_LDS_OFFSET_vi");
  EXPECT_TRUE(L.is(ic::LDSDMA) && L.is(ic::VMEM) && L.is(ic::Buffer));
  EXPECT_TRUE(L.writesLDS());
  EXPECT_FALSE(L.is(ic::MemLoad)); // no VGPR result
  expectCounters(L, cnt::VM);

  const OpcodeFacts &Fl = T.facts("FLAT_LOAD_DWORD_vi");
  EXPECT_TRUE(Fl.is(ic::FLAT) && Fl.is(ic::VMEM));
  expectCounters(Fl, cnt::VM | cnt::LGKM);

  const OpcodeFacts &At = T.facts("GLOBAL_ATOMIC_ADD_RTN_vi");
  EXPECT_TRUE(At.is(ic::Atomic) && At.is(ic::MemLoad) && At.is(ic::MemStore));
}

TEST(ISAFacts, ScalarAndControl) {
  const TestTarget &T = target("gfx942");
  EXPECT_TRUE(T.facts("V_EXP_F32_e32_vi").is(ic::Trans));
  EXPECT_TRUE(T.facts("V_EXP_F32_e32_vi").isVALU());
  EXPECT_FALSE(T.facts("V_ADD_F32_e32_vi").is(ic::Trans));
  EXPECT_TRUE(T.facts("S_BARRIER_vi").is(ic::Barrier));
  EXPECT_TRUE(T.facts("S_BARRIER_vi").is(ic::SALU));
  EXPECT_TRUE(T.facts("S_WAITCNT_vi").is(ic::Waitcnt));
  EXPECT_TRUE(T.facts("S_NOP_vi").is(ic::Nop));
  EXPECT_TRUE(T.facts("S_SENDMSG_vi").is(ic::Message));
  // s_sendmsg counts on lgkmcnt (CDNA3 ISA 4.4: "LGKM_CNT ... message")
  // although its TSFlags carry no LGKM_CNT bit.
  EXPECT_EQ(T.facts("S_SENDMSG_vi").Counters, cnt::LGKM);
  EXPECT_TRUE(T.facts("S_SETREG_B32_vi").is(ic::SetReg));
  EXPECT_TRUE(T.facts("V_READLANE_B32_vi").is(ic::ReadLane));
  EXPECT_TRUE(T.facts("V_WRITELANE_B32_vi").is(ic::WriteLane));
  EXPECT_EQ(T.facts("S_CBRANCH_SCC0_vi").Flow, FlowKind::CondBranch);
  EXPECT_TRUE(T.facts("S_CBRANCH_SCC0_vi").is(ic::Branch));
  EXPECT_TRUE(T.facts("V_MOV_B32_dpp_vi").is(ic::DPP));
  EXPECT_TRUE(T.facts("S_ENDPGM_vi").is(ic::EndPgm));
}

TEST(ISAFacts, Waitcnt) {
  // Encodings as llvm-objdump prints them for gfx942.
  WaitcntValue VM0 = WaitcntValue::decode(0x0F70);
  EXPECT_EQ(VM0.VM, 0u);
  EXPECT_EQ(VM0.Lgkm, 15u);
  EXPECT_EQ(VM0.Exp, 7u);
  EXPECT_EQ(VM0.str(), "vmcnt(0)");
  WaitcntValue L0 = WaitcntValue::decode(0xC07F);
  EXPECT_EQ(L0.VM, 63u);
  EXPECT_EQ(L0.Lgkm, 0u);
  EXPECT_EQ(L0.str(), "lgkmcnt(0)");
  WaitcntValue V40 = WaitcntValue::decode(0x8F78); // vmcnt(40): 0b10_1000
  EXPECT_EQ(V40.VM, 40u);
  for (unsigned VM : {0u, 5u, 15u, 16u, 40u, 63u})
    for (unsigned L : {0u, 3u, 15u}) {
      WaitcntValue W;
      W.VM = VM;
      W.Lgkm = L;
      W.Exp = 7;
      WaitcntValue R = WaitcntValue::decode(W.encode());
      EXPECT_EQ(R.VM, VM);
      EXPECT_EQ(R.Lgkm, L);
      EXPECT_EQ(R.Exp, 7u);
    }
  EXPECT_EQ(WaitcntValue::none().encode(), 0xCF7F);
}

TEST(ISAFacts, RegSlots) {
  const TestTarget &T = target("gfx942");
  const RegSlotMap &M = T.Facts->slots();
  auto S = [&](llvm::StringRef N) { return M.slots(T.reg(N)); };
  EXPECT_EQ(S("v[4:7]"), (SlotRange{slot::VGPRBase + 4, 4}));
  EXPECT_EQ(S("s[0:1]"), (SlotRange{0, 2}));
  EXPECT_EQ(S("s101"), (SlotRange{101, 1}));
  EXPECT_EQ(S("vcc"), (SlotRange{slot::VCCLo, 2}));
  EXPECT_EQ(S("exec"), (SlotRange{slot::ExecLo, 2}));
  EXPECT_EQ(S("m0"), (SlotRange{slot::M0, 1}));
  EXPECT_EQ(S("a[0:3]"), (SlotRange{slot::AGPRBase, 4}));
  EXPECT_EQ(S("scc"), (SlotRange{slot::SCC, 1}));
  EXPECT_EQ(RegSlotMap::name(S("v[4:7]")), "v[4:7]");
  EXPECT_EQ(RegSlotMap::name(S("vcc")), "vcc");
}

} // namespace
