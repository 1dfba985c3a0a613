//===- WorkerPool.h - Forked workers with CPU and memory limits -*- C++ -*-===//
//
// Runs jobs in forked children, each under setrlimit CPU-time and address-
// space limits, and hands back the bytes a job produced or why its worker
// failed. Workers are forked on demand and kept for the next job (a fresh
// fork per job pays for copy-on-write faults and cold caches every time);
// the CPU limit is per job (the soft limit moves up with the worker's
// usage), the memory limit is the worker's address space. A worker that runs out of CPU time or memory is a result, not an
// error of the caller: --evolve records such a candidate as rejected. Only
// process management lives here; what a job computes and how its result is
// encoded is the caller's (CandidateWire.h for --evolve).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SEARCH_WORKERPOOL_H
#define ASMEVO_SEARCH_WORKERPOOL_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <sys/types.h>

namespace asmevo {

struct WorkerLimits {
  unsigned CPUSeconds = 0; ///< RLIMIT_CPU of each worker; 0: none.
  unsigned MemoryMB = 0;   ///< RLIMIT_AS of each worker; 0: none.
  bool any() const { return CPUSeconds || MemoryMB; }
};

struct WorkerOutcome {
  bool Ok = false;
  std::string Output;  ///< What the job returned, when Ok.
  std::string Failure; ///< Why not, e.g. "exceeded the CPU-time limit of 2 s".
};

class WorkerPool {
public:
  /// What a worker does with a job's bytes, in the worker. It must not use
  /// resources the parent owns (open databases, buffered output).
  using Handler = std::function<std::string(llvm::StringRef Job)>;

  WorkerPool(unsigned Jobs, WorkerLimits Limits, Handler H)
      : Jobs(Jobs ? Jobs : 1), Limits(Limits), Run(std::move(H)) {}
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;
  /// Ends every worker.
  ~WorkerPool();

  /// Every worker has a job.
  bool full() const;
  bool running(int64_t Key) const { return Busy.count(Key); }

  /// Hands \p Job, known as \p Key, to an idle worker (forking one if
  /// fewer than Jobs exist). The pool must not be full.
  llvm::Error start(int64_t Key, llvm::StringRef Job);
  /// Waits for \p Key's worker (reading the others' output meanwhile, so
  /// that none blocks on a full pipe).
  llvm::Expected<WorkerOutcome> wait(int64_t Key);
  /// Kills \p Key's worker and forgets the job.
  void cancel(int64_t Key);
  /// Cancels every job (idle workers stay for the next ones).
  void cancelAll();

private:
  struct Worker {
    pid_t Pid = -1;
    int ToFd = -1, FromFd = -1;
    std::string Buffer; ///< The result being read.
    bool Eof = false;
    bool Idle = true;
  };
  llvm::Expected<Worker *> spawn();
  llvm::Error readSome(Worker &W);
  /// Kills and reaps \p W; its status when it was still alive is lost.
  void kill(Worker &W);
  std::string describeFailure(int Status) const;

  unsigned Jobs;
  WorkerLimits Limits;
  Handler Run;
  std::map<pid_t, Worker> Workers;
  std::map<int64_t, pid_t> Busy; ///< Job key -> its worker.
};

} // namespace asmevo
#endif
