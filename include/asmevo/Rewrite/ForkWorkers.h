//===- ForkWorkers.h - Work in forked processes, answers over pipes -*- C++ -*-//
//
// The optimizer's parallelism: LLVM's CodeGen state (one LLVMContext, one
// MachineModuleInfo per lifted module) is not safe to share between
// threads, so workers are processes forked from the parent, each
// inheriting its memory copy-on-write, each answering with messages.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_REWRITE_FORKWORKERS_H
#define ASMEVO_REWRITE_FORKWORKERS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace asmevo {

/// Worker processes forked from this one, each sending framed messages
/// that the parent reads while it works (poll) and once it is done
/// (finish). A worker never blocks on a full pipe: a thread of its own
/// writes what it sends, so its work does not wait for the parent's.
class ForkedWorkers {
public:
  using SendFn = llvm::function_ref<void(std::string)>;
  using ReceiveFn = llvm::function_ref<llvm::Error(unsigned, llvm::StringRef)>;

  /// Forks \p N - 1 workers; worker W (1-based) runs \p Child(W, Send) and
  /// exits without running destructors or exit handlers.
  static llvm::Expected<std::unique_ptr<ForkedWorkers>>
  start(unsigned N, llvm::function_ref<void(unsigned, SendFn)> Child);
  ~ForkedWorkers();

  /// Hands every complete message that has arrived to \p Receive (with its
  /// worker's number), without waiting for more.
  llvm::Error poll(ReceiveFn Receive);
  /// Every remaining message, until each worker has exited; a worker that
  /// died is an error.
  llvm::Error finish(ReceiveFn Receive);

private:
  struct Worker {
    pid_t Pid = -1;
    int FD = -1;
    std::string Buffer;
    bool Eof = false;
  };
  ForkedWorkers() = default;
  llvm::Error deliver(unsigned W, ReceiveFn Receive);
  std::vector<Worker> Workers;
};

/// Runs \p Child(W) for each W in [1, N) in a forked worker while \p Parent
/// runs here; returns the children's answers (index W-1) once every child
/// has exited. A child that dies before answering is an error; so is
/// \p Parent's.
llvm::Expected<std::vector<std::string>>
forkWorkers(unsigned N, llvm::function_ref<std::string(unsigned)> Child,
            llvm::function_ref<llvm::Error()> Parent);

} // namespace asmevo

#endif
