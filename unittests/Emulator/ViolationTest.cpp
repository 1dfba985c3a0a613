//===- ViolationTest.cpp - What a synchronous interpreter would hide ------===//
//
// Each test runs a snippet that is wrong in one way and checks that the
// emulator reports it with the right kind, PC and lane - and that the same
// snippet with the fix is clean (both directions).
//
//===----------------------------------------------------------------------===//
#include "AsmHarness.h"
#include "gtest/gtest.h"
#include "llvm/Support/raw_ostream.h"
#include <set>

using namespace asmevo::emu;
using namespace asmevo::emu::test;

/// Mnemonics whose semantics these tests check (for --print-tested).
const char *ViolationTestMnemonics = "s_trap";

namespace {

std::string describe(const RunResult &R) {
  std::string S;
  llvm::raw_string_ostream OS(S);
  for (const Violation &V : R.Violations)
    V.print(OS);
  return OS.str();
}

const Violation *find(const RunResult &R, Violation::Kind K) {
  for (const Violation &V : R.Violations)
    if (V.K == K)
      return &V;
  return nullptr;
}

SnippetResult run(const char *Body, unsigned Block = 64,
                  RunOptions RO = RunOptions()) {
  SnippetOptions O;
  O.BlockSize = Block;
  O.Run = RO;
  return runSnippet(Body, {"v1"}, O);
}

TEST(Violations, InFlightVectorLoadRead) {
  // 4.4: a load's data arrives at s_waitcnt; reading it before is a bug.
  auto Bad = run(R"(v_lshlrev_b32 v2, 2, v0
    global_load_dword v3, v2, s[22:23]
    v_add_u32 v1, 1, v3
    s_waitcnt vmcnt(0))");
  ASSERT_TRUE(Bad.Error.empty()) << Bad.Error;
  const Violation *V = find(Bad.Run, Violation::InFlightRead);
  ASSERT_NE(V, nullptr) << describe(Bad.Run);
  EXPECT_EQ(V->Lane, 0);
  EXPECT_NE(V->Inst.find("v_add_u32"), std::string::npos);
  EXPECT_NE(V->Message.find("v3"), std::string::npos);
  auto Good = run(R"(v_lshlrev_b32 v2, 2, v0
    global_load_dword v3, v2, s[22:23]
    s_waitcnt vmcnt(0)
    v_add_u32 v1, 1, v3)");
  EXPECT_TRUE(Good.Run.Violations.empty()) << describe(Good.Run);
  EXPECT_EQ(Good.Regs[0][5], 0x1000u + 5 + 1);
}

TEST(Violations, WeakWaitcntKeepsOldestLoadInFlight) {
  // vmcnt returns in order: vmcnt(1) after two loads completes the first.
  auto Good = run(R"(v_lshlrev_b32 v2, 2, v0
    global_load_dword v3, v2, s[22:23]
    global_load_dword v4, v2, s[22:23] offset:4
    s_waitcnt vmcnt(1)
    v_add_u32 v1, 1, v3
    s_waitcnt vmcnt(0))");
  EXPECT_TRUE(Good.Run.Violations.empty()) << describe(Good.Run);
  auto Bad = run(R"(v_lshlrev_b32 v2, 2, v0
    global_load_dword v3, v2, s[22:23]
    global_load_dword v4, v2, s[22:23] offset:4
    s_waitcnt vmcnt(1)
    v_add_u32 v1, 1, v4
    s_waitcnt vmcnt(0))");
  EXPECT_NE(find(Bad.Run, Violation::InFlightRead), nullptr)
      << describe(Bad.Run);
}

TEST(Violations, ScalarLoadsReturnOutOfOrder) {
  // lgkmcnt with SMEM pending is out of order: lgkmcnt(1) after two
  // s_loads guarantees neither; the emulator keeps the oldest in flight.
  auto Bad = run(R"(s_load_dword s30, s[22:23], 0x0
    s_load_dword s31, s[22:23], 0x4
    s_waitcnt lgkmcnt(1)
    v_mov_b32 v1, s30
    s_waitcnt lgkmcnt(0))");
  EXPECT_NE(find(Bad.Run, Violation::InFlightRead), nullptr)
      << describe(Bad.Run);
  // LDS operations alone return in order.
  auto Good = run(R"(v_lshlrev_b32 v2, 2, v0
    ds_write_b32 v2, v0
    s_waitcnt lgkmcnt(0)
    ds_read_b32 v3, v2
    ds_read_b32 v4, v2 offset:256
    s_waitcnt lgkmcnt(1)
    v_mov_b32 v1, v3
    s_waitcnt lgkmcnt(0))");
  EXPECT_TRUE(Good.Run.Violations.empty()) << describe(Good.Run);
}

TEST(Violations, MissingBarrierIsAnLdsRace) {
  // Two waves: wave 1 reads what wave 0 wrote. Without s_barrier the order
  // is undefined (11.x: LDS ordering between waves only via barriers).
  const char *Bad = R"(v_lshlrev_b32 v2, 2, v0
    ds_write_b32 v2, v0
    s_waitcnt lgkmcnt(0)
    v_xor_b32 v3, 0x100, v2
    ds_read_b32 v1, v3
    s_waitcnt lgkmcnt(0))";
  RunOptions RO;
  RO.Seed = 3;
  RO.MaxQuantum = 2;
  auto B = run(Bad, 128, RO);
  EXPECT_NE(find(B.Run, Violation::LdsRace), nullptr) << describe(B.Run);
  const char *Good = R"(v_lshlrev_b32 v2, 2, v0
    ds_write_b32 v2, v0
    s_waitcnt lgkmcnt(0)
    s_barrier
    v_xor_b32 v3, 0x100, v2
    ds_read_b32 v1, v3
    s_waitcnt lgkmcnt(0))";
  auto G = run(Good, 128, RO);
  EXPECT_TRUE(G.Run.Violations.empty()) << describe(G.Run);
  EXPECT_EQ(G.Regs[0][0], 64u);
}

TEST(Violations, UnwaitedStoreBeforeBarrier) {
  // gfx90a+ barriers do not wait for memory: without the waitcnt the LDS
  // write of wave 0 is not visible to wave 1 after the barrier.
  const char *Bad = R"(v_lshlrev_b32 v2, 2, v0
    ds_write_b32 v2, v0
    s_barrier
    v_xor_b32 v3, 0x100, v2
    ds_read_b32 v1, v3
    s_waitcnt lgkmcnt(0))";
  auto B = run(Bad, 128);
  EXPECT_NE(find(B.Run, Violation::LdsRace), nullptr) << describe(B.Run);
}

TEST(Violations, MissingWaitStates) {
  // [CDNA3-ISA] 4.5: a VALU write of VCC read by v_cndmask needs wait
  // states on gfx940 (the hazard table of lib/Analysis).
  auto Bad = run(R"(v_cmp_gt_u32 vcc, 8, v0
    v_cndmask_b32 v1, 0, 1, vcc)");
  const Violation *V = find(Bad.Run, Violation::Hazard);
  ASSERT_NE(V, nullptr) << describe(Bad.Run);
  EXPECT_NE(V->Inst.find("v_cndmask"), std::string::npos);
  auto Good = run(R"(v_cmp_gt_u32 vcc, 8, v0
    s_nop 1
    v_cndmask_b32 v1, 0, 1, vcc)");
  EXPECT_TRUE(Good.Run.Violations.empty()) << describe(Good.Run);
}

TEST(Violations, GuardBandAndUnmapped) {
  // The input buffer is 64 KiB: one dword past its end is a guard band.
  auto B = run(R"(v_mov_b32 v2, 0x10000
    global_load_dword v1, v2, s[22:23]
    s_waitcnt vmcnt(0))");
  const Violation *V = find(B.Run, Violation::GuardBand);
  ASSERT_NE(V, nullptr) << describe(B.Run);
  EXPECT_NE(V->Message.find("offset 65536"), std::string::npos) << V->Message;
  auto U = run(R"(v_mov_b32 v2, 0
    v_mov_b32 v3, 0x100
    global_load_dword v1, v[2:3], off
    s_waitcnt vmcnt(0))");
  EXPECT_NE(find(U.Run, Violation::OutOfBounds), nullptr) << describe(U.Run);
}

TEST(Violations, LdsOutOfRange) {
  SnippetOptions O;
  O.Directives = "";
  auto B = run(R"(v_mov_b32 v2, 0x10000
    ds_read_b32 v1, v2
    s_waitcnt lgkmcnt(0))");
  EXPECT_NE(find(B.Run, Violation::LdsOutOfRange), nullptr)
      << describe(B.Run);
}

TEST(Violations, TrapStopsTheRun) {
  // 12.6 SOPP: S_TRAP enters the trap handler; a kernel that traps failed.
  auto B = run(R"(s_trap 2
    v_mov_b32 v1, 1)");
  const Violation *V = find(B.Run, Violation::Trap);
  ASSERT_NE(V, nullptr) << describe(B.Run);
  EXPECT_TRUE(B.Run.Aborted);
}

TEST(Violations, RefusedByDesignStopsTheRun) {
  // Global wave sync needs GWS resources no verifier launch has: the run
  // stops, naming the instruction and the reason (lib/Emulator/Refused.cpp).
  auto B = run(R"(v_mov_b32 v2, 0
    ds_gws_init v2 gds
    v_mov_b32 v1, 1)");
  ASSERT_TRUE(B.Error.empty()) << B.Error;
  const Violation *V = find(B.Run, Violation::Unimplemented);
  ASSERT_NE(V, nullptr) << describe(B.Run);
  EXPECT_NE(describe(B.Run).find("DS_GWS_INIT"), std::string::npos)
      << describe(B.Run);
  EXPECT_NE(describe(B.Run).find("refused by design: global wave sync"),
            std::string::npos)
      << describe(B.Run);
  EXPECT_TRUE(B.Run.Aborted);
}

TEST(Violations, RunawayKernelHitsTheBudget) {
  RunOptions RO;
  RO.InstructionBudget = 100000;
  auto B = run(R"(Loop:
    s_branch Loop)", 64, RO);
  EXPECT_NE(find(B.Run, Violation::Budget), nullptr) << describe(B.Run);
  EXPECT_TRUE(B.Run.Aborted);
}

TEST(Violations, UnimplementedInstructionNamesItself) {
  auto B = run(R"(s_sendmsg sendmsg(MSG_INTERRUPT)
    v_mov_b32 v1, 1)");
  const Violation *V = find(B.Run, Violation::Unimplemented);
  ASSERT_NE(V, nullptr) << describe(B.Run);
  EXPECT_NE(V->Message.find("S_SENDMSG"), std::string::npos) << V->Message;
  EXPECT_NE(V->PC, 0u);
}

TEST(Violations, RefusedByDesignAtRunTime) {
  // s_setkill 0 clears a bit nothing sets; s_setkill 1 asks for the host's
  // kill-wave behaviour and stops; s_sendmsg has no receiver.
  auto Good = run(R"(s_setkill 0
    v_mov_b32 v1, 1)");
  EXPECT_TRUE(Good.Run.Violations.empty()) << describe(Good.Run);
  for (const char *Body :
       {"s_setkill 1\n v_mov_b32 v1, 1",
        "s_sendmsg sendmsg(MSG_INTERRUPT)\n v_mov_b32 v1, 1"}) {
    auto B = run(Body);
    const Violation *V = find(B.Run, Violation::Unimplemented);
    ASSERT_NE(V, nullptr) << describe(B.Run);
    EXPECT_NE(V->Message.find("refused by design"), std::string::npos)
        << V->Message;
  }
}

TEST(Violations, ScalarScratchOutsideThePrivateSegment) {
  // The SGPR offset counts 64-byte units: 63 is dword 63 of lane 0 (the
  // snippet kernel has at least 256 bytes per lane), 0x80000000 lies far
  // past any private segment.
  auto Good = run(R"(s_movk_i32 s3, 63
    s_scratch_load_dword s2, flat_scratch, s3
    s_waitcnt lgkmcnt(0)
    v_mov_b32 v1, s2)");
  EXPECT_TRUE(Good.Run.Violations.empty()) << describe(Good.Run);
  auto B = run(R"(s_brev_b32 s3, 1
    s_scratch_load_dword s2, flat_scratch, s3
    s_waitcnt lgkmcnt(0)
    v_mov_b32 v1, s2)");
  EXPECT_NE(find(B.Run, Violation::ScratchOutOfRange), nullptr)
      << describe(B.Run);
}

TEST(Violations, BadJump) {
  auto B = run(R"(s_mov_b64 s[30:31], 0x100
    s_setpc_b64 s[30:31])");
  EXPECT_NE(find(B.Run, Violation::BadJump), nullptr) << describe(B.Run);
}

TEST(Interleavings, FloatAtomicsDifferAcrossSeeds) {
  // Order-dependent float sums: different interleavings of the waves give
  // different results (what a verifier must detect as nondeterminism).
  const char *Body = R"(v_mov_b32 v2, 0x8000
    v_cvt_f32_u32 v3, v0
    v_mul_f32 v3, 0x3dcccccd, v3
    v_add_f32 v3, 0x4b000000, v3
    global_atomic_add_f32 v2, v3, s[22:23]
    s_waitcnt vmcnt(0)
    s_barrier
    global_load_dword v1, v2, s[22:23]
    s_waitcnt vmcnt(0))";
  std::set<uint32_t> Seen;
  for (uint64_t Seed : {1, 2, 3, 4, 5, 6}) {
    RunOptions RO;
    RO.Seed = Seed;
    RO.MaxQuantum = 3;
    auto R = run(Body, 256, RO);
    ASSERT_TRUE(R.Error.empty()) << R.Error;
    Seen.insert(R.Regs[0][0]);
  }
  EXPECT_GT(Seen.size(), 1u);
}

TEST(Interleavings, PreloadEntriesAgree) {
  // Both entry points of a kernel with preloaded arguments (the
  // compatibility prologue and entry + 256) are exercised by the suite
  // tests; here: the dispatch starts at the requested one.
  RunOptions A, B;
  B.UsePreloadEntry = false;
  auto RA = run("v_mov_b32 v1, 5", 64, A);
  auto RB = run("v_mov_b32 v1, 5", 64, B);
  EXPECT_EQ(RA.Regs, RB.Regs);
}

} // namespace
