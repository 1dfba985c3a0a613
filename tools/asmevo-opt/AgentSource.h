//===- AgentSource.h - --agent=CMD as --evolve's proposal source -*- C++ -*-===//
//
// Adapts an AgentSession (docs/agent-protocol.md) to the search's
// ProposalSource: hello when started, each state and its answer, done at
// the end. The search decides what becomes of each proposal.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_TOOLS_OPT_AGENTSOURCE_H
#define ASMEVO_TOOLS_OPT_AGENTSOURCE_H

#include "asmevo/Agent/AgentSession.h"
#include "asmevo/Search/Evolve.h"

namespace asmevo {

class AgentSource : public ProposalSource {
public:
  /// Starts \p Command and sends it \p Hello.
  static llvm::Expected<std::unique_ptr<AgentSource>>
  start(llvm::StringRef Command, const llvm::json::Value &Hello,
        double TimeoutSeconds);
  llvm::Expected<ExternalAnswer> ask(const llvm::json::Value &State) override;
  /// Sends done (unless the agent failed) and ends the agent process.
  void finish(const EvolveResult &R);

private:
  std::unique_ptr<AgentSession> Session;
  double Timeout = 120;
  bool Failed = false;
};

} // namespace asmevo
#endif
