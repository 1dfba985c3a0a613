//===- AgentSessionTest.cpp - The agent process is not trusted ------------===//
#include "asmevo/Agent/AgentSession.h"
#include "gtest/gtest.h"
#include <chrono>

using namespace llvm;
using namespace asmevo;

namespace {

std::string errorOf(Error E) { return toString(std::move(E)); }

TEST(AgentSessionTest, ReadsAnAnswer) {
  auto S = AgentSession::start(
      "read line; printf '%s\\n' '{\"type\":\"proposals\",\"proposals\":[{\"hypothesis\":"
      "\"a\\nb\",\"script\":{\"format\":\"asmevo-edit-script\"}}]}'");
  ASSERT_TRUE(bool(S)) << errorOf(S.takeError());
  auto A = (*S)->ask(json::Object{{"type", "state"}}, 10);
  ASSERT_TRUE(bool(A)) << errorOf(A.takeError());
  ASSERT_EQ(A->Proposals.size(), 1u);
  EXPECT_EQ(A->Proposals[0].Hypothesis, "a b");
  EXPECT_EQ((*S)->finish(), 0);
}

TEST(AgentSessionTest, ALateAnswerIsAnError) {
  auto S = AgentSession::start("sleep 30");
  ASSERT_TRUE(bool(S));
  auto T0 = std::chrono::steady_clock::now();
  auto A = (*S)->ask(json::Object{{"type", "state"}}, 0.3);
  ASSERT_FALSE(bool(A));
  EXPECT_NE(errorOf(A.takeError()).find("did not answer within 0.3 s"),
            std::string::npos);
  // finish() kills an agent that does not exit when its input closes.
  (*S)->finish();
  EXPECT_LT(std::chrono::steady_clock::now() - T0, std::chrono::seconds(10));
}

TEST(AgentSessionTest, AnAgentThatExitsIsAnError) {
  auto S = AgentSession::start("exit 3");
  ASSERT_TRUE(bool(S));
  auto A = (*S)->ask(json::Object{{"type", "state"}}, 10);
  ASSERT_FALSE(bool(A));
  std::string M = errorOf(A.takeError());
  EXPECT_TRUE(M.find("closed its output") != std::string::npos ||
              M.find("stopped reading") != std::string::npos)
      << M;
  EXPECT_EQ((*S)->finish(), 3);
}

TEST(AgentSessionTest, MalformedAnswers) {
  for (StringRef Line :
       {"not json", "{\"proposals\":[]}", "{\"type\":\"hello\"}",
        "{\"type\":\"proposals\",\"proposals\":{}}",
        "{\"type\":\"proposals\",\"proposals\":[{\"hypothesis\":\"x\"}]}",
        "{\"type\":\"proposals\",\"proposals\":[{\"hypothesis\":1,"
        "\"script\":{}}]}"}) {
    auto A = parseAgentAnswer(Line);
    EXPECT_FALSE(bool(A)) << Line.str();
    if (!A)
      consumeError(A.takeError());
  }
  std::string Many = "{\"type\":\"proposals\",\"proposals\":[";
  for (int I = 0; I < 9; ++I)
    Many += std::string(I ? "," : "") + "{\"hypothesis\":\"h\",\"script\":{}}";
  Many += "]}";
  auto A = parseAgentAnswer(Many);
  ASSERT_FALSE(bool(A));
  EXPECT_NE(errorOf(A.takeError()).find("at most 8"), std::string::npos);
  auto Stop = parseAgentAnswer("{\"type\":\"stop\",\"reason\":\"no ideas\"}");
  ASSERT_TRUE(bool(Stop));
  EXPECT_TRUE(Stop->Stop);
  EXPECT_EQ(Stop->Note, "no ideas");
}

} // namespace
