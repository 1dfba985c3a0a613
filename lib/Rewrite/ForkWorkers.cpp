//===- ForkWorkers.cpp - Work in forked processes, answers over pipes -----===//
#include "asmevo/Rewrite/ForkWorkers.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"
#include <condition_variable>
#include <deque>
#include <fcntl.h>
#include <mutex>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace asmevo {

static bool writeAll(int FD, const char *Data, size_t Size) {
  for (size_t Done = 0; Done < Size;) {
    ssize_t R = write(FD, Data + Done, Size - Done);
    if (R < 0 && errno == EINTR)
      continue;
    if (R <= 0)
      return false;
    Done += R;
  }
  return true;
}

/// The worker side: what Child sends goes into a queue that a thread
/// writes to the pipe, each message after its 8-byte length.
[[noreturn]] static void runWorker(
    unsigned W, int FD,
    function_ref<void(unsigned, ForkedWorkers::SendFn)> Child) {
  std::mutex M;
  std::condition_variable CV;
  std::deque<std::string> Queue;
  bool Closed = false;
  std::thread Writer([&] {
    while (true) {
      std::string Msg;
      {
        std::unique_lock<std::mutex> L(M);
        CV.wait(L, [&] { return Closed || !Queue.empty(); });
        if (Queue.empty())
          return;
        Msg = std::move(Queue.front());
        Queue.pop_front();
      }
      char Len[8];
      support::endian::write64le(Len, Msg.size());
      if (!writeAll(FD, Len, 8) || !writeAll(FD, Msg.data(), Msg.size()))
        return;
    }
  });
  Child(W, [&](std::string Msg) {
    std::lock_guard<std::mutex> L(M);
    Queue.push_back(std::move(Msg));
    CV.notify_one();
  });
  {
    std::lock_guard<std::mutex> L(M);
    Closed = true;
    CV.notify_one();
  }
  Writer.join();
  close(FD);
  outs().flush();
  errs().flush();
  _exit(0);
}

Expected<std::unique_ptr<ForkedWorkers>>
ForkedWorkers::start(unsigned N,
                     function_ref<void(unsigned, SendFn)> Child) {
  std::unique_ptr<ForkedWorkers> P(new ForkedWorkers());
  // Flushed before forking, so that buffered output is not written twice.
  outs().flush();
  errs().flush();
  for (unsigned W = 1; W < N; ++W) {
    int Fds[2];
    if (pipe(Fds) != 0)
      return createStringError("cannot create a pipe for a worker");
    pid_t Pid = fork();
    if (Pid < 0) {
      close(Fds[0]);
      close(Fds[1]);
      return createStringError("cannot fork a worker");
    }
    if (Pid == 0) {
      close(Fds[0]);
      for (Worker &Other : P->Workers)
        close(Other.FD);
      runWorker(W, Fds[1], Child);
    }
    close(Fds[1]);
    fcntl(Fds[0], F_SETFL, fcntl(Fds[0], F_GETFL) | O_NONBLOCK);
    Worker Wk;
    Wk.Pid = Pid;
    Wk.FD = Fds[0];
    P->Workers.push_back(std::move(Wk));
  }
  return std::move(P);
}

ForkedWorkers::~ForkedWorkers() {
  // Workers still running when the parent gives up (an error) are not
  // waited for to finish their work.
  for (Worker &W : Workers) {
    if (W.FD >= 0)
      close(W.FD);
    if (W.Pid > 0) {
      kill(W.Pid, SIGKILL);
      int Status;
      waitpid(W.Pid, &Status, 0);
    }
  }
}

Error ForkedWorkers::deliver(unsigned W, ReceiveFn Receive) {
  std::string &B = Workers[W].Buffer;
  size_t At = 0;
  Error E = Error::success();
  while (B.size() - At >= 8) {
    uint64_t Len = support::endian::read64le(B.data() + At);
    if (B.size() - At - 8 < Len)
      break;
    if ((E = Receive(W + 1, StringRef(B).substr(At + 8, Len))))
      break;
    At += 8 + Len;
  }
  B.erase(0, At);
  return E;
}

Error ForkedWorkers::poll(ReceiveFn Receive) {
  char Buf[1 << 16];
  for (unsigned W = 0; W < Workers.size(); ++W) {
    Worker &Wk = Workers[W];
    while (!Wk.Eof) {
      ssize_t R = read(Wk.FD, Buf, sizeof(Buf));
      if (R > 0) {
        Wk.Buffer.append(Buf, R);
        continue;
      }
      if (R == 0)
        Wk.Eof = true;
      else if (errno == EINTR)
        continue;
      break; // EAGAIN: nothing more for now
    }
    if (Error E = deliver(W, Receive))
      return E;
  }
  return Error::success();
}

Error ForkedWorkers::finish(ReceiveFn Receive) {
  std::string Failure;
  for (unsigned W = 0; W < Workers.size(); ++W) {
    Worker &Wk = Workers[W];
    // Blocking from here: the parent has nothing else to do.
    fcntl(Wk.FD, F_SETFL, fcntl(Wk.FD, F_GETFL) & ~O_NONBLOCK);
    char Buf[1 << 16];
    while (!Wk.Eof) {
      ssize_t R = read(Wk.FD, Buf, sizeof(Buf));
      if (R > 0)
        Wk.Buffer.append(Buf, R);
      else if (R == 0 || errno != EINTR)
        Wk.Eof = true;
    }
    close(Wk.FD);
    Wk.FD = -1;
    int Status = 0;
    waitpid(Wk.Pid, &Status, 0);
    Wk.Pid = -1;
    if (Error E = deliver(W, Receive))
      return E;
    bool Clean = WIFEXITED(Status) && WEXITSTATUS(Status) == 0;
    if ((!Clean || !Wk.Buffer.empty()) && Failure.empty())
      Failure = "an optimizer worker died (" +
                (WIFSIGNALED(Status)
                     ? "signal " + std::to_string(WTERMSIG(Status))
                     : "status " + std::to_string(WEXITSTATUS(Status))) +
                ")";
  }
  if (!Failure.empty())
    return createStringError(Failure);
  return Error::success();
}

Expected<std::vector<std::string>>
forkWorkers(unsigned N, function_ref<std::string(unsigned)> Child,
            function_ref<Error()> Parent) {
  auto P = ForkedWorkers::start(
      N, [&](unsigned W, ForkedWorkers::SendFn Send) { Send(Child(W)); });
  if (!P)
    return P.takeError();
  if (Error E = Parent())
    return std::move(E);
  std::vector<std::string> Answers(N ? N - 1 : 0);
  std::vector<bool> Got(Answers.size(), false);
  if (Error E = (*P)->finish([&](unsigned W, StringRef Msg) -> Error {
        Answers[W - 1] = Msg.str();
        Got[W - 1] = true;
        return Error::success();
      }))
    return std::move(E);
  for (bool G : Got)
    if (!G)
      return createStringError("an optimizer worker died without answering");
  return std::move(Answers);
}

} // namespace asmevo
