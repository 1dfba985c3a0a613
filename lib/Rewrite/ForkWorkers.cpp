//===- ForkWorkers.cpp - Work in forked processes, answers over pipes -----===//
#include "asmevo/Rewrite/ForkWorkers.h"
#include "llvm/Support/raw_ostream.h"
#include <sys/wait.h>
#include <unistd.h>

using namespace llvm;

namespace asmevo {

static void writeAll(int FD, const std::string &Text) {
  for (size_t Done = 0; Done < Text.size();) {
    ssize_t R = write(FD, Text.data() + Done, Text.size() - Done);
    if (R <= 0)
      return;
    Done += R;
  }
}

Expected<std::vector<std::string>>
forkWorkers(unsigned N, function_ref<std::string(unsigned)> Child,
            function_ref<Error()> Parent) {
  struct Worker {
    pid_t Pid;
    int FD;
  };
  std::vector<Worker> Workers;
  auto Reap = [&] {
    for (Worker &W : Workers) {
      close(W.FD);
      int Status;
      waitpid(W.Pid, &Status, 0);
    }
  };
  // Flushed before forking, so that buffered output is not written twice.
  outs().flush();
  errs().flush();
  for (unsigned W = 1; W < N; ++W) {
    int P[2];
    if (pipe(P) != 0) {
      Reap();
      return createStringError("cannot create a pipe for a worker");
    }
    pid_t Pid = fork();
    if (Pid < 0) {
      close(P[0]);
      close(P[1]);
      Reap();
      return createStringError("cannot fork a worker");
    }
    if (Pid == 0) {
      close(P[0]);
      for (Worker &Other : Workers)
        close(Other.FD);
      std::string Text = Child(W);
      writeAll(P[1], Text);
      close(P[1]);
      outs().flush();
      errs().flush();
      _exit(0);
    }
    close(P[1]);
    Workers.push_back({Pid, P[0]});
  }
  // A child blocks on a full pipe until it is read here, after Parent():
  // by then it has done its work and only waits to hand it over.
  Error PE = Parent();
  std::vector<std::string> Answers;
  std::string Failure;
  for (Worker &W : Workers) {
    std::string Text;
    char Buf[65536];
    for (ssize_t R; (R = read(W.FD, Buf, sizeof(Buf))) > 0;)
      Text.append(Buf, R);
    close(W.FD);
    int Status = 0;
    waitpid(W.Pid, &Status, 0);
    bool Clean = WIFEXITED(Status) && WEXITSTATUS(Status) == 0;
    if ((!Clean || Text.empty()) && Failure.empty())
      Failure = "an optimizer worker died (" +
                (WIFSIGNALED(Status)
                     ? "signal " + std::to_string(WTERMSIG(Status))
                     : "status " + std::to_string(WEXITSTATUS(Status))) +
                ")";
    Answers.push_back(std::move(Text));
  }
  if (PE)
    return std::move(PE);
  if (!Failure.empty())
    return createStringError(Failure);
  return std::move(Answers);
}

} // namespace asmevo
