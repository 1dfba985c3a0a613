//===- AgentSession.h - An external agent over JSON lines -------*- C++ -*-===//
//
// The tool's side of docs/agent-protocol.md: the agent is a child process
// (`/bin/sh -c CMD`) reading our messages on its stdin and answering on its
// stdout, one JSON object per line. Nothing it says is trusted: an answer
// that is late, malformed or too large ends the session with an error that
// says which, and proposals are only checked for shape here (the edit-
// script reader and the gate do the rest).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_AGENT_AGENTSESSION_H
#define ASMEVO_AGENT_AGENTSESSION_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace asmevo {

struct AgentProposal {
  std::string Hypothesis;
  /// An edit script (docs/edit-script.md), not yet read.
  llvm::json::Value Script = nullptr;
};

/// What one answer to a `state` held.
struct AgentAnswer {
  bool Stop = false;
  std::string Note; ///< The agent's `note` or stop `reason`.
  std::vector<AgentProposal> Proposals;
};

/// Most proposals one answer may carry (docs/agent-protocol.md).
constexpr unsigned MaxProposalsPerAnswer = 8;
/// Longest line an agent may send: a full edit script fits many times.
constexpr size_t MaxAgentLine = 8u << 20;

/// Reads one agent line as an answer to a state.
llvm::Expected<AgentAnswer> parseAgentAnswer(llvm::StringRef Line);

class AgentSession {
public:
  static llvm::Expected<std::unique_ptr<AgentSession>>
  start(llvm::StringRef Command);
  ~AgentSession();

  llvm::Error send(const llvm::json::Value &Message);
  /// The next line, within \p TimeoutSeconds.
  llvm::Expected<std::string> receiveLine(double TimeoutSeconds);
  /// send(State), then the answer.
  llvm::Expected<AgentAnswer> ask(const llvm::json::Value &State,
                                  double TimeoutSeconds);
  /// Closes the agent's stdin, waits up to 5 s for it to exit, then kills
  /// it. Returns its exit status (-1 if killed).
  int finish();

  const std::string &command() const { return Command; }

private:
  AgentSession() = default;
  std::string Command;
  pid_t Pid = -1;
  int ToAgent = -1, FromAgent = -1;
  std::string Pending; ///< Read but not yet returned.
  bool Finished = false;
  int Status = 0;
};

} // namespace asmevo

#endif
