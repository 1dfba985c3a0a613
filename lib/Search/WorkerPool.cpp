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
static constexpr int ExitWorkerError = 87;

static Error sysError(const Twine &What) {
  return createStringError(std::error_code(errno, std::generic_category()),
                           What + ": " + std::strerror(errno));
}

[[noreturn]] static void outOfMemory() { _exit(ExitOutOfMemory); }

static bool writeAll(int Fd, StringRef Data) {
  while (!Data.empty()) {
    ssize_t N = ::write(Fd, Data.data(), Data.size());
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      return false;
    Data = Data.drop_front(N);
  }
  return true;
}

/// Frames are a 64-bit length, then the bytes, both ways.
static bool writeFrame(int Fd, StringRef Data) {
  uint64_t N = Data.size();
  return writeAll(Fd, StringRef(reinterpret_cast<char *>(&N), 8)) &&
         writeAll(Fd, Data);
}

static bool readAll(int Fd, char *P, size_t N) {
  while (N) {
    ssize_t R = ::read(Fd, P, N);
    if (R < 0 && errno == EINTR)
      continue;
    if (R <= 0)
      return false;
    P += R;
    N -= R;
  }
  return true;
}

/// The CPU-time soft limit for the next job: what the worker used so far
/// plus the job's allowance (whole seconds: the limit's unit).
static void limitNextJob(unsigned Seconds) {
  rusage U;
  getrusage(RUSAGE_SELF, &U);
  rlim_t Used = U.ru_utime.tv_sec + U.ru_stime.tv_sec + 1;
  rlimit L;
  getrlimit(RLIMIT_CPU, &L);
  L.rlim_cur = Used + Seconds;
  if (L.rlim_max != RLIM_INFINITY && L.rlim_cur > L.rlim_max)
    L.rlim_cur = L.rlim_max;
  // A limit that cannot be set would make the job unlimited: give up.
  if (setrlimit(RLIMIT_CPU, &L) != 0)
    _exit(ExitWorkerError);
}

[[noreturn]] static void workerMain(int In, int Out, WorkerLimits Limits,
                                    const WorkerPool::Handler &Run) {
  // LLVM's crash handlers would print a stack trace for what is an
  // expected end; the default action lets the parent see the signal.
  signal(SIGXCPU, SIG_DFL);
  std::set_new_handler(outOfMemory);
  install_bad_alloc_error_handler(
      [](void *, const char *, bool) { outOfMemory(); });
  if (Limits.MemoryMB) {
    rlim_t Bytes = static_cast<rlim_t>(Limits.MemoryMB) << 20;
    rlimit L{Bytes, Bytes};
    if (setrlimit(RLIMIT_AS, &L) != 0)
      _exit(ExitWorkerError);
  }
  for (;;) {
    uint64_t N;
    if (!readAll(In, reinterpret_cast<char *>(&N), 8))
      _exit(0); // The pool closed our input: done.
    std::string Job(N, '\0');
    if (!readAll(In, Job.data(), N))
      _exit(ExitWorkerError);
    if (Limits.CPUSeconds)
      limitNextJob(Limits.CPUSeconds);
    if (!writeFrame(Out, Run(Job)))
      _exit(ExitWorkerError);
  }
}

WorkerPool::~WorkerPool() {
  while (!Workers.empty())
    kill(Workers.begin()->second);
}

bool WorkerPool::full() const { return Busy.size() >= Jobs; }

Expected<WorkerPool::Worker *> WorkerPool::spawn() {
  // A worker dying while we write to it must be an error, not our end.
  std::signal(SIGPIPE, SIG_IGN);
  int ToW[2], FromW[2];
  if (pipe(ToW) != 0)
    return sysError("worker pipe");
  if (pipe(FromW) != 0) {
    close(ToW[0]);
    close(ToW[1]);
    return sysError("worker pipe");
  }
  pid_t Pid = fork();
  if (Pid < 0) {
    int E = errno;
    for (int Fd : {ToW[0], ToW[1], FromW[0], FromW[1]})
      close(Fd);
    errno = E;
    return sysError("fork");
  }
  if (Pid == 0) {
    close(ToW[1]);
    close(FromW[0]);
    // The other workers' pipes are not ours to hold open.
    for (auto &[P, W] : Workers) {
      close(W.ToFd);
      close(W.FromFd);
    }
    workerMain(ToW[0], FromW[1], Limits, Run);
  }
  close(ToW[0]);
  close(FromW[1]);
  Worker &W = Workers[Pid];
  W.Pid = Pid;
  W.ToFd = ToW[1];
  W.FromFd = FromW[0];
  return &W;
}

Error WorkerPool::start(int64_t Key, StringRef Job) {
  if (Busy.count(Key))
    return createStringError("job " + Twine(Key) + " already runs");
  if (full())
    return createStringError("every worker is busy");
  for (int Attempt = 0; Attempt < 2; ++Attempt) {
    Worker *W = nullptr;
    for (auto &[P, Cand] : Workers)
      if (Cand.Idle) {
        W = &Cand;
        break;
      }
    if (!W) {
      auto S = spawn();
      if (!S)
        return S.takeError();
      W = *S;
    }
    if (writeFrame(W->ToFd, Job)) {
      W->Idle = false;
      W->Buffer.clear();
      W->Eof = false;
      Busy[Key] = W->Pid;
      return Error::success();
    }
    // An idle worker that died (the limits apply to it too): another.
    kill(*W);
  }
  return createStringError("no worker would take job " + Twine(Key));
}

Error WorkerPool::readSome(Worker &W) {
  char Buf[65536];
  ssize_t N = ::read(W.FromFd, Buf, sizeof(Buf));
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

/// Whether \p B holds a whole frame.
static bool frameComplete(const std::string &B) {
  if (B.size() < 8)
    return false;
  uint64_t N;
  std::memcpy(&N, B.data(), 8);
  return B.size() - 8 >= N;
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
  auto It = Busy.find(Key);
  if (It == Busy.end())
    return createStringError("no job " + Twine(Key));
  Worker &Mine = Workers.at(It->second);
  while (!Mine.Eof && !frameComplete(Mine.Buffer)) {
    std::vector<pollfd> Fds;
    std::vector<Worker *> Ws;
    for (auto &[P, W] : Workers)
      if (!W.Idle && !W.Eof && !frameComplete(W.Buffer)) {
        Fds.push_back({W.FromFd, POLLIN, 0});
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
  Busy.erase(It);
  WorkerOutcome O;
  if (frameComplete(Mine.Buffer)) {
    O.Ok = true;
    O.Output = Mine.Buffer.substr(8);
    Mine.Buffer.clear();
    Mine.Idle = true;
    return O;
  }
  // The worker ended before it answered: why is in its status.
  pid_t Pid = Mine.Pid;
  close(Mine.ToFd);
  close(Mine.FromFd);
  int Status = 0;
  while (waitpid(Pid, &Status, 0) < 0)
    if (errno != EINTR) {
      Workers.erase(Pid);
      return sysError("waitpid");
    }
  Workers.erase(Pid);
  O.Failure = describeFailure(Status);
  return O;
}

void WorkerPool::kill(Worker &W) {
  ::kill(W.Pid, SIGKILL);
  close(W.ToFd);
  close(W.FromFd);
  int Status;
  while (waitpid(W.Pid, &Status, 0) < 0 && errno == EINTR)
    ;
  pid_t Pid = W.Pid;
  for (auto It = Busy.begin(); It != Busy.end();)
    It = It->second == Pid ? Busy.erase(It) : std::next(It);
  Workers.erase(Pid);
}

void WorkerPool::cancel(int64_t Key) {
  auto It = Busy.find(Key);
  if (It != Busy.end())
    kill(Workers.at(It->second));
}

void WorkerPool::cancelAll() {
  while (!Busy.empty())
    cancel(Busy.begin()->first);
}

} // namespace asmevo
