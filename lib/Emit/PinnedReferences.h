//===- PinnedReferences.h - Non-simple code's PC-relative targets -*- C++ -*-===//
//
// A function the lifter could not lift (non-simple) is emitted as its
// original bytes, so every PC-relative address it computes (s_getpc_b64,
// then an add/addc of literals) still holds the original distance. When a
// pass changed the size of code between it and a target, that distance is
// wrong in the rebuild and a call goes astray: found on hipcc -O0 kernels
// whose bodies the MachineVerifier rejects while their callees are
// simple. The bytes are not patched; such a rebuild is refused instead.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_EMIT_PINNEDREFERENCES_H
#define ASMEVO_LIB_EMIT_PINNEDREFERENCES_H

#include "asmevo/Emit/Rebuild.h"
#include "asmevo/Lift/LiftedModule.h"
#include "llvm/Support/Error.h"

namespace asmevo {

/// An error naming the function, the reference and both addresses when a
/// non-simple function's PC-relative reference no longer reaches its
/// target in \p R (linked), or when it holds an s_getpc_b64 whose use
/// cannot be followed and any code moved.
llvm::Error checkPinnedReferences(const LiftedModule &LM,
                                  const RebuildResult &R);

} // namespace asmevo

#endif
