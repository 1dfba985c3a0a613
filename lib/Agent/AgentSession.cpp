//===- AgentSession.cpp - An external agent over JSON lines ---------------===//
#include "asmevo/Agent/AgentSession.h"
#include "llvm/Support/FormatVariadic.h"
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char **environ;

using namespace llvm;
using namespace asmevo;

Expected<AgentAnswer> asmevo::parseAgentAnswer(StringRef Line) {
  auto V = json::parse(Line);
  if (!V)
    return createStringError("the agent's answer is not JSON (%s): '%s'",
                             toString(V.takeError()).c_str(),
                             Line.take_front(80).str().c_str());
  const json::Object *O = V->getAsObject();
  auto Type = O ? O->getString("type") : std::nullopt;
  if (!Type)
    return createStringError("the agent's answer has no \"type\"");
  AgentAnswer A;
  if (*Type == "stop") {
    A.Stop = true;
    if (auto R = O->getString("reason"))
      A.Note = R->str();
    return A;
  }
  if (*Type != "proposals")
    return createStringError("the agent answered '%s', expected proposals "
                             "or stop",
                             Type->str().c_str());
  if (auto N = O->getString("note"))
    A.Note = N->str();
  const json::Array *Ps = O->getArray("proposals");
  if (!Ps)
    return createStringError("proposals: \"proposals\" must be an array");
  if (Ps->size() > MaxProposalsPerAnswer)
    return createStringError("proposals: %zu proposals, at most %u per "
                             "answer",
                             Ps->size(), MaxProposalsPerAnswer);
  for (size_t I = 0; I < Ps->size(); ++I) {
    const json::Object *P = (*Ps)[I].getAsObject();
    if (!P)
      return createStringError("proposal %zu is not an object", I);
    auto H = P->getString("hypothesis");
    const json::Value *S = P->get("script");
    if (!H || !S || !S->getAsObject())
      return createStringError("proposal %zu needs \"hypothesis\" (a string) "
                               "and \"script\" (an edit script)",
                               I);
    AgentProposal AP;
    // One line: a hypothesis is kept in the lineage and printed.
    for (char C : H->take_front(400))
      AP.Hypothesis += (C == '\n' || C == '\r') ? ' ' : C;
    AP.Script = *S;
    A.Proposals.push_back(std::move(AP));
  }
  return A;
}

static Error sysError(const Twine &What) {
  return createStringError(std::error_code(errno, std::generic_category()),
                           "%s: %s", What.str().c_str(), strerror(errno));
}

Expected<std::unique_ptr<AgentSession>>
AgentSession::start(StringRef Command) {
  // A dead agent must not kill us when we write to it.
  std::signal(SIGPIPE, SIG_IGN);
  int In[2], Out[2];
  if (pipe2(In, O_CLOEXEC) || pipe2(Out, O_CLOEXEC))
    return sysError("agent: pipe");
  posix_spawn_file_actions_t FA;
  posix_spawn_file_actions_init(&FA);
  posix_spawn_file_actions_adddup2(&FA, In[0], 0);
  posix_spawn_file_actions_adddup2(&FA, Out[1], 1);
  std::string Cmd = Command.str();
  const char *Argv[] = {"sh", "-c", Cmd.c_str(), nullptr};
  pid_t Pid;
  int RC = posix_spawn(&Pid, "/bin/sh", &FA, nullptr,
                       const_cast<char **>(Argv), environ);
  posix_spawn_file_actions_destroy(&FA);
  close(In[0]);
  close(Out[1]);
  if (RC) {
    close(In[1]);
    close(Out[0]);
    errno = RC;
    return sysError("agent '" + Command + "': cannot start");
  }
  auto S = std::unique_ptr<AgentSession>(new AgentSession());
  S->Command = Cmd;
  S->Pid = Pid;
  S->ToAgent = In[1];
  S->FromAgent = Out[0];
  return std::move(S);
}

AgentSession::~AgentSession() { finish(); }

Error AgentSession::send(const json::Value &Message) {
  std::string Line = formatv("{0}", Message).str() + "\n";
  StringRef Rest = Line;
  while (!Rest.empty()) {
    ssize_t N = ::write(ToAgent, Rest.data(), Rest.size());
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return createStringError("agent '%s' stopped reading its input",
                               Command.c_str());
    Rest = Rest.drop_front(N);
  }
  return Error::success();
}

Expected<std::string> AgentSession::receiveLine(double TimeoutSeconds) {
  auto Deadline = std::chrono::steady_clock::now() +
                  std::chrono::duration<double>(TimeoutSeconds);
  for (;;) {
    size_t NL = Pending.find('\n');
    if (NL != std::string::npos) {
      std::string Line = Pending.substr(0, NL);
      Pending.erase(0, NL + 1);
      if (StringRef(Line).trim().empty())
        continue;
      return Line;
    }
    if (Pending.size() > MaxAgentLine)
      return createStringError("agent '%s': a line longer than %zu bytes",
                               Command.c_str(), MaxAgentLine);
    auto Left = std::chrono::duration_cast<std::chrono::milliseconds>(
        Deadline - std::chrono::steady_clock::now());
    if (Left.count() <= 0)
      return createStringError("agent '%s' did not answer within %g s",
                               Command.c_str(), TimeoutSeconds);
    pollfd P{FromAgent, POLLIN, 0};
    int R = poll(&P, 1, int(std::min<int64_t>(Left.count(), INT32_MAX)));
    if (R < 0 && errno == EINTR)
      continue;
    if (R < 0)
      return sysError("agent: poll");
    if (R == 0)
      continue;
    char Buf[65536];
    ssize_t N = ::read(FromAgent, Buf, sizeof(Buf));
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return createStringError("agent '%s' closed its output (exited?)",
                               Command.c_str());
    Pending.append(Buf, N);
  }
}

Expected<AgentAnswer> AgentSession::ask(const json::Value &State,
                                        double TimeoutSeconds) {
  if (Error E = send(State))
    return std::move(E);
  auto Line = receiveLine(TimeoutSeconds);
  if (!Line)
    return Line.takeError();
  return parseAgentAnswer(*Line);
}

int AgentSession::finish() {
  if (Finished)
    return Status;
  Finished = true;
  if (ToAgent >= 0)
    close(ToAgent);
  ToAgent = -1;
  auto Deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  int WS = 0;
  pid_t R = 0;
  while ((R = waitpid(Pid, &WS, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() < Deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (R == 0) {
    kill(Pid, SIGKILL);
    waitpid(Pid, &WS, 0);
    Status = -1;
  } else {
    Status = WIFEXITED(WS) ? WEXITSTATUS(WS) : -1;
  }
  if (FromAgent >= 0)
    close(FromAgent);
  FromAgent = -1;
  return Status;
}
