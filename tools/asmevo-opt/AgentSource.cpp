//===- AgentSource.cpp ----------------------------------------------------===//
#include "AgentSource.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace asmevo {

Expected<std::unique_ptr<AgentSource>>
AgentSource::start(StringRef Command, const json::Value &Hello,
                   double TimeoutSeconds) {
  auto S = AgentSession::start(Command);
  if (!S)
    return S.takeError();
  std::unique_ptr<AgentSource> A(new AgentSource);
  A->Session = std::move(*S);
  A->Timeout = TimeoutSeconds;
  if (Error E = A->Session->send(Hello))
    return std::move(E);
  return A;
}

Expected<ExternalAnswer> AgentSource::ask(const json::Value &State) {
  auto A = Session->ask(State, Timeout);
  if (!A) {
    Failed = true;
    return A.takeError();
  }
  ExternalAnswer R;
  R.Stop = A->Stop;
  R.Note = A->Note;
  for (AgentProposal &P : A->Proposals)
    R.Proposals.push_back({P.Hypothesis, formatv("{0}", P.Script).str()});
  return R;
}

void AgentSource::finish(const EvolveResult &R) {
  if (!Failed) {
    json::Value Winner = nullptr;
    if (!R.Lineage.empty()) {
      const CandidateRecord &W = R.All[R.Lineage.back()];
      Winner = json::Object{{"id", W.Id}, {"speedup", W.Speedups.front()}};
    }
    // The agent may be gone already; its end is not ours to report.
    consumeError(
        Session->send(json::Object{{"type", "done"}, {"winner", Winner}}));
  }
  Session->finish();
}

} // namespace asmevo
