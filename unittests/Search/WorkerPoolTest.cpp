//===- WorkerPoolTest.cpp - forked workers, their limits, the wire format -===//
#include "asmevo/Search/CandidateWire.h"
#include "asmevo/Search/WorkerPool.h"
#include "gtest/gtest.h"
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <set>
#include <unistd.h>
#include <vector>

using namespace asmevo;

namespace {

std::string runOne(WorkerPool &P, llvm::StringRef Job = "job") {
  EXPECT_FALSE(bool(P.start(1, Job)));
  auto W = P.wait(1);
  EXPECT_TRUE(bool(W));
  return W->Ok ? "ok: " + W->Output : "failed: " + W->Failure;
}

TEST(WorkerPool, ReturnsWhatTheJobReturns) {
  WorkerPool P(2, {}, [](llvm::StringRef J) { return "got " + J.str(); });
  EXPECT_EQ(runOne(P, "42"), "ok: got 42");
}

TEST(WorkerPool, ManyAtOnceEachToItsKeyAndWorkersAreReused) {
  WorkerPool P(3, {}, [](llvm::StringRef J) {
    // Larger than a pipe's buffer: the pool must read while it waits.
    return std::string(200000, J[0]) + std::to_string(getpid());
  });
  std::set<std::string> Pids;
  for (int Round = 0; Round < 2; ++Round) {
    for (int K = 0; K < 3; ++K)
      ASSERT_FALSE(bool(P.start(K, std::string(1, 'a' + K))));
    EXPECT_TRUE(P.full());
    for (int K = 2; K >= 0; --K) {
      auto W = P.wait(K);
      ASSERT_TRUE(bool(W));
      ASSERT_TRUE(W->Ok);
      EXPECT_EQ(W->Output.substr(0, 200000), std::string(200000, 'a' + K));
      Pids.insert(W->Output.substr(200000));
    }
  }
  EXPECT_EQ(Pids.size(), 3u);
}

TEST(WorkerPool, MemoryLimitIsAReasonNotACrash) {
  WorkerPool P(1, {0, 1}, [](llvm::StringRef) {
                     // Through a volatile pointer: the compiler may not
                     // elide the allocation.
                     void *(*volatile New)(std::size_t) =
                         static_cast<void *(*)(std::size_t)>(::operator new);
                     New(64 << 20);
                     return std::string("allocated");
  });
  EXPECT_EQ(runOne(P), "failed: exceeded the memory limit of 1 MB");
}

TEST(WorkerPool, CPULimitIsAReasonNotACrash) {
  // Per job: the first job's second of CPU does not count against the next.
  WorkerPool P(1, {1, 0}, [](llvm::StringRef J) {
    auto Spin = [](double Seconds) {
      auto T0 = std::clock();
      while (double(std::clock() - T0) / CLOCKS_PER_SEC < Seconds)
        ;
    };
    if (J == "short") {
      Spin(0.6);
      return std::string("done");
    }
    Spin(1e9);
    return std::string();
  });
  EXPECT_EQ(runOne(P, "short"), "ok: done");
  EXPECT_EQ(runOne(P, "short"), "ok: done");
  EXPECT_EQ(runOne(P, "forever"), "failed: exceeded the CPU-time limit of 1 s");
  // A new worker takes the next job.
  EXPECT_EQ(runOne(P, "short"), "ok: done");
}

TEST(WorkerPool, ACrashIsNamed) {
  WorkerPool P(1, {}, [](llvm::StringRef) -> std::string {
    signal(SIGABRT, SIG_DFL);
    abort();
  });
  EXPECT_EQ(runOne(P), "failed: worker died of signal 6 (Aborted)");
}

TEST(WorkerPool, CancelKillsTheWorker) {
  WorkerPool P(1, {}, [](llvm::StringRef J) {
    if (J == "hang")
      for (;;)
        pause();
    return J.str();
  });
  ASSERT_FALSE(bool(P.start(7, "hang")));
  EXPECT_TRUE(P.running(7));
  EXPECT_TRUE(P.full());
  P.cancel(7);
  EXPECT_FALSE(P.running(7));
  EXPECT_EQ(runOne(P, "next"), "ok: next");
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
