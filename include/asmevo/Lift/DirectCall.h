//===- DirectCall.h - The lifted function a call goes to --------*- C++ -*-===//
//
// Register renumbering and the emitter's declared counts both need to know
// every function a kernel can call; a call whose target they cannot name
// keeps both conservative.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIFT_DIRECTCALL_H
#define ASMEVO_LIFT_DIRECTCALL_H

namespace llvm {
class MachineInstr;
} // namespace llvm

namespace asmevo {

class LiftedModule;
struct LiftedFunction;

/// The function \p Call (an s_swappc_b64) jumps to when its block computes
/// the target as compiled code does: s_getpc_b64 into the pair, then
/// s_add_u32 and s_addc_u32 of the same function's PC-relative address
/// into its halves; null for any other source (a loaded or computed
/// pointer, an unlifted symbol).
const LiftedFunction *directCallee(const LiftedModule &LM,
                                   const llvm::MachineInstr &Call);

} // namespace asmevo

#endif
