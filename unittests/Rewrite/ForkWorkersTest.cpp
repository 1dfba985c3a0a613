//===- ForkWorkersTest.cpp - Messages from forked workers ------------------===//
#include "asmevo/Rewrite/ForkWorkers.h"
#include "gtest/gtest.h"
#include <cstdlib>
#include <map>

using namespace asmevo;
using namespace llvm;

namespace {

/// "" for success, else the message (Debian ships no LLVMTestingSupport).
std::string message(Error E) { return E ? toString(std::move(E)) : ""; }

TEST(ForkWorkers, MessagesArriveWholeAndInOrder) {
  // More than a pipe holds, so that the worker's writer thread and the
  // parent's reads interleave; each worker's messages in the order sent.
  const std::string Big(3 << 20, 'x');
  auto P = ForkedWorkers::start(3, [&](unsigned W, ForkedWorkers::SendFn Send) {
    for (unsigned I = 0; I < 4; ++I)
      Send(std::to_string(W) + ":" + std::to_string(I) + ":" + Big);
  });
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  std::map<unsigned, std::vector<std::string>> Got;
  auto Receive = [&](unsigned W, StringRef M) -> Error {
    Got[W].push_back(M.str());
    return Error::success();
  };
  ASSERT_EQ(message((*P)->poll(Receive)), "");
  ASSERT_EQ(message((*P)->finish(Receive)), "");
  ASSERT_EQ(Got.size(), 2u);
  for (unsigned W = 1; W <= 2; ++W) {
    ASSERT_EQ(Got[W].size(), 4u);
    for (unsigned I = 0; I < 4; ++I)
      EXPECT_EQ(Got[W][I],
                std::to_string(W) + ":" + std::to_string(I) + ":" + Big);
  }
}

TEST(ForkWorkers, AnEmptyMessageIsAMessage) {
  auto P = ForkedWorkers::start(
      2, [](unsigned, ForkedWorkers::SendFn Send) { Send(""); });
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  unsigned N = 0;
  ASSERT_EQ(message((*P)->finish([&](unsigned, StringRef M) -> Error {
              EXPECT_TRUE(M.empty());
              ++N;
              return Error::success();
            })),
            "");
  EXPECT_EQ(N, 1u);
}

TEST(ForkWorkers, AWorkerThatDiesIsAnError) {
  auto P = ForkedWorkers::start(2, [](unsigned, ForkedWorkers::SendFn Send) {
    Send("before");
    std::abort();
  });
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  Error E = (*P)->finish(
      [](unsigned, StringRef) -> Error { return Error::success(); });
  EXPECT_NE(message(std::move(E)).find("an optimizer worker died (signal"),
            std::string::npos);
}

TEST(ForkWorkers, TheReceiversErrorStopsTheRun) {
  auto P = ForkedWorkers::start(
      2, [](unsigned, ForkedWorkers::SendFn Send) { Send("garbage"); });
  ASSERT_TRUE(bool(P)) << toString(P.takeError());
  Error E = (*P)->finish([](unsigned, StringRef M) -> Error {
    return createStringError("refused: " + M);
  });
  EXPECT_EQ(message(std::move(E)), "refused: garbage");
}

TEST(ForkWorkers, AnswersInWorkerOrderAndTheParentsErrorWins) {
  auto A = forkWorkers(
      4, [](unsigned W) { return "answer " + std::to_string(W); },
      [] { return Error::success(); });
  ASSERT_TRUE(bool(A)) << toString(A.takeError());
  EXPECT_EQ(*A, (std::vector<std::string>{"answer 1", "answer 2",
                                          "answer 3"}));
  auto B = forkWorkers(
      2, [](unsigned) { return std::string("fine"); },
      [] { return createStringError("the parent failed"); });
  ASSERT_FALSE(bool(B));
  EXPECT_EQ(message(B.takeError()), "the parent failed");
}

} // namespace
