//===- WorkerPool.cpp -----------------------------------------------------===//
#include "asmevo/Search/WorkerPool.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ErrorHandling.h"
#include <cerrno>
#include <csignal>
#include <cstring>
#include <new>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace llvm;

namespace asmevo {

/// A worker's exit status when an allocation failed: under RLIMIT_AS that
/// is the memory limit, told apart from a crash.
static constexpr int ExitOutOfMemory = 86;
static constexpr int ExitWriteFailed = 87;

static Error sysError(const Twine &What) {
  return createStringError(std::error_code(errno, std::generic_category()),
                           What + ": " + std::strerror(errno));
}

[[noreturn]] static void outOfMemory() { _exit(ExitOutOfMemory); }

static void setLimit(int Resource, rlim_t Soft, rlim_t Hard) {
  rlimit L{Soft, Hard};
  // A limit that cannot be set would make the worker unlimited: give up.
  if (setrlimit(Resource, &L) != 0)
    _exit(ExitWriteFailed);
}

[[noreturn]] static void runChild(int Fd, WorkerLimits Limits,
                                  function_ref<std::string()> Job) {
  // LLVM's crash handlers would print a stack trace for what is an
  // expected end; the default action lets the parent see the signal.
  signal(SIGXCPU, SIG_DFL);
  std::set_new_handler(outOfMemory);
  install_bad_alloc_error_handler(
      [](void *, const char *, bool) { outOfMemory(); });
  if (Limits.CPUSeconds)
    // SIGXCPU at the soft limit, SIGKILL one second later if it is caught.
    setLimit(RLIMIT_CPU, Limits.CPUSeconds, Limits.CPUSeconds + 1);
  if (Limits.MemoryMB) {
    rlim_t Bytes = static_cast<rlim_t>(Limits.MemoryMB) << 20;
    setLimit(RLIMIT_AS, Bytes, Bytes);
  }
  std::string Out = Job();
  const char *P = Out.data();
  size_t Left = Out.size();
  while (Left) {
    ssize_t N = ::write(Fd, P, Left);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      _exit(ExitWriteFailed);
    P += N;
    Left -= N;
  }
  // _exit: no destructors or flushes of state copied from the parent.
  _exit(0);
}

Error WorkerPool::start(int64_t Key, function_ref<std::string()> Job) {
  if (Running.count(Key))
    return createStringError("worker " + Twine(Key) + " already runs");
  int P[2];
  if (pipe(P) != 0)
    return sysError("worker pipe");
  pid_t Pid = fork();
  if (Pid < 0) {
    int E = errno;
    close(P[0]);
    close(P[1]);
    errno = E;
    return sysError("fork");
  }
  if (Pid == 0) {
    close(P[0]);
    runChild(P[1], Limits, Job);
  }
  close(P[1]);
  Worker &W = Running[Key];
  W.Pid = Pid;
  W.Fd = P[0];
  return Error::success();
}

Error WorkerPool::readSome(Worker &W) {
  char Buf[65536];
  ssize_t N = ::read(W.Fd, Buf, sizeof(Buf));
  if (N < 0) {
    if (errno == EINTR || errno == EAGAIN)
      return Error::success();
    return sysError("reading a worker's result");
  }
  if (N == 0)
    W.Eof = true;
  else
    W.Buffer.append(Buf, N);
  return Error::success();
}

std::string WorkerPool::describeFailure(int Status) const {
  if (WIFEXITED(Status)) {
    int Code = WEXITSTATUS(Status);
    if (Code == ExitOutOfMemory)
      return Limits.MemoryMB
                 ? "exceeded the memory limit of " +
                       std::to_string(Limits.MemoryMB) + " MB"
                 : std::string("out of memory");
    return "worker exited with status " + std::to_string(Code);
  }
  if (WIFSIGNALED(Status)) {
    int Sig = WTERMSIG(Status);
    if (Limits.CPUSeconds && (Sig == SIGXCPU || Sig == SIGKILL))
      return "exceeded the CPU-time limit of " +
             std::to_string(Limits.CPUSeconds) + " s";
    std::string S = "worker died of signal " + std::to_string(Sig) + " (" +
                    strsignal(Sig) + ")";
    if (Limits.MemoryMB)
      S += " under the memory limit of " + std::to_string(Limits.MemoryMB) +
           " MB";
    return S;
  }
  return "worker ended with status " + std::to_string(Status);
}

Expected<WorkerOutcome> WorkerPool::wait(int64_t Key) {
  auto It = Running.find(Key);
  if (It == Running.end())
    return createStringError("no worker " + Twine(Key));
  while (!It->second.Eof) {
    std::vector<pollfd> Fds;
    std::vector<Worker *> Ws;
    for (auto &[K, W] : Running)
      if (!W.Eof) {
        Fds.push_back({W.Fd, POLLIN, 0});
        Ws.push_back(&W);
      }
    if (::poll(Fds.data(), Fds.size(), -1) < 0) {
      if (errno == EINTR)
        continue;
      return sysError("waiting for workers");
    }
    for (size_t I = 0; I < Fds.size(); ++I)
      if (Fds[I].revents)
        if (Error E = readSome(*Ws[I]))
          return std::move(E);
  }
  Worker W = std::move(It->second);
  Running.erase(It);
  close(W.Fd);
  int Status = 0;
  while (waitpid(W.Pid, &Status, 0) < 0)
    if (errno != EINTR)
      return sysError("waitpid");
  WorkerOutcome O;
  if (WIFEXITED(Status) && WEXITSTATUS(Status) == 0 && !W.Buffer.empty()) {
    O.Ok = true;
    O.Output = std::move(W.Buffer);
  } else {
    O.Failure = describeFailure(Status);
  }
  return O;
}

void WorkerPool::cancel(int64_t Key) {
  auto It = Running.find(Key);
  if (It == Running.end())
    return;
  kill(It->second.Pid, SIGKILL);
  close(It->second.Fd);
  int Status;
  while (waitpid(It->second.Pid, &Status, 0) < 0 && errno == EINTR)
    ;
  Running.erase(It);
}

void WorkerPool::cancelAll() {
  while (!Running.empty())
    cancel(Running.begin()->first);
}

} // namespace asmevo
