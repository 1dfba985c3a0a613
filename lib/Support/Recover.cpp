//===- Recover.cpp - Running an LLVM step that may abort ------------------===//
#include "asmevo/Support/Recover.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include <mutex>
#include <optional>
#include <string>

using namespace llvm;

static thread_local std::string LastFatal;

/// LLVM calls this instead of printing "LLVM ERROR" and exiting. Inside a
/// recovery context (ours, or lld's own around its driver) it unwinds to
/// that context; outside one it returns and LLVM exits as it would have.
static void onFatalError(void *, const char *Reason, bool) {
  LastFatal = Reason ? Reason : "";
  if (CrashRecoveryContext *CRC = CrashRecoveryContext::GetCurrent())
    CRC->HandleExit(1);
}

std::string asmevo::lastRecoveredFatalError() { return LastFatal; }

// The fatal-error handler is process-wide: one recoverable step at a time.
// A step may contain another (the emitter assembles a check object): the
// outermost one installs the handler, which always unwinds to the
// innermost recovery context.
static std::mutex RecoverMutex;
static thread_local unsigned Depth = 0;

Error asmevo::runRecoverable(StringRef What, function_ref<void()> Fn) {
  std::unique_lock<std::mutex> Lock(RecoverMutex, std::defer_lock);
  std::optional<ScopedFatalErrorHandler> Handler;
  if (Depth == 0) {
    Lock.lock();
    CrashRecoveryContext::Enable();
    Handler.emplace(onFatalError);
  }
  LastFatal.clear();
  bool Ok;
  int RetCode;
  {
    ++Depth;
    CrashRecoveryContext CRC;
    Ok = CRC.RunSafely(Fn);
    RetCode = CRC.RetCode;
    --Depth;
  }
  if (Ok)
    return Error::success();
  if (!LastFatal.empty())
    return createStringError(What + ": " + LastFatal);
  if (RetCode > 128)
    return createStringError(What + ": crashed (signal " +
                             Twine(RetCode - 128) + ")");
  return createStringError(What + ": aborted (status " + Twine(RetCode) + ")");
}
