//===- WorkerPool.h - Forked workers with CPU and memory limits -*- C++ -*-===//
//
// Runs jobs in forked children, each under setrlimit CPU-time and address-
// space limits, and hands back the bytes a job produced or why its worker
// failed. A worker that runs out of CPU time or memory is a result, not an
// error of the caller: --evolve records such a candidate as rejected. Only
// process management lives here; what a job computes and how its result is
// encoded is the caller's (CandidateWire.h for --evolve).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SEARCH_WORKERPOOL_H
#define ASMEVO_SEARCH_WORKERPOOL_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include <cstdint>
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
  WorkerPool(unsigned Jobs, WorkerLimits Limits)
      : Jobs(Jobs ? Jobs : 1), Limits(Limits) {}
  WorkerPool(const WorkerPool &) = delete;
  WorkerPool &operator=(const WorkerPool &) = delete;
  /// Kills and reaps every worker still running.
  ~WorkerPool() { cancelAll(); }

  bool full() const { return Running.size() >= Jobs; }
  bool running(int64_t Key) const { return Running.count(Key); }

  /// Forks a worker for \p Key that runs \p Job under the limits and sends
  /// its result back. \p Job runs in the child only; it must not use
  /// resources the parent owns (open databases, buffered output).
  llvm::Error start(int64_t Key, llvm::function_ref<std::string()> Job);
  /// Waits for \p Key's worker (reading the others' output meanwhile, so
  /// that none blocks on a full pipe).
  llvm::Expected<WorkerOutcome> wait(int64_t Key);
  /// Kills \p Key's worker and forgets it.
  void cancel(int64_t Key);
  void cancelAll();

private:
  struct Worker {
    pid_t Pid = -1;
    int Fd = -1;
    std::string Buffer;
    bool Eof = false;
  };
  llvm::Error readSome(Worker &W);
  std::string describeFailure(int Status) const;

  unsigned Jobs;
  WorkerLimits Limits;
  std::map<int64_t, Worker> Running;
};

} // namespace asmevo
#endif
