//===- Recover.h - Running an LLVM step that may abort ----------*- C++ -*-===//
//
// Parts of LLVM we hand user input to (the MC assembler, lld) end the
// process on input they cannot handle: report_fatal_error, or a crash. We
// validate what we can before calling them; what is left runs here, so a
// bad input becomes an llvm::Error naming the file instead of an abort.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_SUPPORT_RECOVER_H
#define ASMEVO_SUPPORT_RECOVER_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace asmevo {

/// Runs \p Fn under a crash-recovery context with a fatal-error handler
/// that returns to this frame. Returns success when \p Fn returned, or an
/// error "<What>: <LLVM's message>" (or the signal) when it aborted; what
/// \p Fn allocated before aborting is leaked, and a component that aborted
/// must not be assumed reusable.
llvm::Error runRecoverable(llvm::StringRef What, llvm::function_ref<void()> Fn);

/// The message of the last fatal error caught in this thread by
/// runRecoverable (also when a nested recovery context caught it).
std::string lastRecoveredFatalError();

} // namespace asmevo

#endif
