//===- WorkerPoolTest.cpp - forked workers, their limits, the wire format -===//
#include "asmevo/Search/CandidateWire.h"
#include "asmevo/Search/WorkerPool.h"
#include "gtest/gtest.h"
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

using namespace asmevo;

namespace {

std::string runOne(WorkerPool &P, llvm::function_ref<std::string()> Job) {
  EXPECT_FALSE(bool(P.start(1, Job)));
  auto W = P.wait(1);
  EXPECT_TRUE(bool(W));
  return W->Ok ? "ok: " + W->Output : "failed: " + W->Failure;
}

TEST(WorkerPool, ReturnsWhatTheJobReturns) {
  WorkerPool P(2, {});
  EXPECT_EQ(runOne(P, [] { return std::string("42"); }), "ok: 42");
}

TEST(WorkerPool, ManyAtOnceEachToItsKey) {
  WorkerPool P(3, {});
  for (int K = 0; K < 3; ++K)
    ASSERT_FALSE(bool(P.start(K, [K] {
      // Larger than a pipe's buffer: the pool must read while it waits.
      return std::string(200000, 'a' + K);
    })));
  EXPECT_TRUE(P.full());
  for (int K = 2; K >= 0; --K) {
    auto W = P.wait(K);
    ASSERT_TRUE(bool(W));
    ASSERT_TRUE(W->Ok);
    EXPECT_EQ(W->Output, std::string(200000, 'a' + K));
  }
}

TEST(WorkerPool, MemoryLimitIsAReasonNotACrash) {
  WorkerPool P(1, {0, 1});
  EXPECT_EQ(runOne(P,
                   [] {
                     // Through a volatile pointer: the compiler may not
                     // elide the allocation.
                     void *(*volatile New)(std::size_t) =
                         static_cast<void *(*)(std::size_t)>(::operator new);
                     New(64 << 20);
                     return std::string("allocated");
                   }),
            "failed: exceeded the memory limit of 1 MB");
}

TEST(WorkerPool, CPULimitIsAReasonNotACrash) {
  WorkerPool P(1, {1, 0});
  EXPECT_EQ(runOne(P,
                   [] {
                     volatile unsigned long X = 0;
                     for (;;)
                       X = X + 1;
                     return std::string();
                   }),
            "failed: exceeded the CPU-time limit of 1 s");
}

TEST(WorkerPool, ACrashIsNamed) {
  WorkerPool P(1, {});
  EXPECT_EQ(runOne(P,
                   []() -> std::string {
                     signal(SIGABRT, SIG_DFL);
                     abort();
                   }),
            "failed: worker died of signal 6 (Aborted)");
}

TEST(WorkerPool, CancelKillsTheWorker) {
  WorkerPool P(1, {});
  ASSERT_FALSE(bool(P.start(7, [] {
    for (;;)
      pause();
    return std::string();
  })));
  EXPECT_TRUE(P.running(7));
  P.cancel(7);
  EXPECT_FALSE(P.running(7));
}

TEST(CandidateWire, RoundTripsBitForBit) {
  CandidateRecord C;
  C.RunId = "r";
  C.Id = 3;
  C.Parent = -1;
  C.Passes = "a,b";
  C.Receipt = std::string("with\0nul", 8);
  C.Speedups = {1.0 / 3.0, 1.0152564043910322, -0.0};
  C.K0Micros = 25.097000000000001;
  C.Accepted = true;
  auto D = decodeCandidate(encodeCandidate(C));
  ASSERT_TRUE(bool(D));
  EXPECT_EQ(D->Receipt, C.Receipt);
  EXPECT_EQ(D->Parent, -1);
  ASSERT_EQ(D->Speedups.size(), 3u);
  for (size_t I = 0; I < 3; ++I)
    EXPECT_EQ(std::memcmp(&D->Speedups[I], &C.Speedups[I], 8), 0);
  EXPECT_TRUE(D->Accepted);
}

TEST(CandidateWire, CarriesErrorsAndRefusesGarbage) {
  auto E = decodeCandidate(encodeCandidate(
      llvm::createStringError("the gate failed")));
  ASSERT_FALSE(bool(E));
  EXPECT_EQ(llvm::toString(E.takeError()), "the gate failed");
  auto G = decodeCandidate("\x01\x00\x00");
  ASSERT_FALSE(bool(G));
  EXPECT_NE(llvm::toString(G.takeError()).find("malformed"), std::string::npos);
}

} // namespace
