//===- Resources.h - Descriptor resource fields after edits -----*- C++ -*-===//
#ifndef ASMEVO_EMIT_RESOURCES_H
#define ASMEVO_EMIT_RESOURCES_H

#include "asmevo/Emit/RegisterCounts.h"
#include "asmevo/Lift/LiftedModule.h"
#include <set>

namespace asmevo {

struct RegisterUse {
  unsigned ArchVGPRs = 0; ///< Highest v register + 1.
  unsigned AGPRs = 0;     ///< Highest a register + 1.
  unsigned SGPRs = 0;     ///< Highest s register + 1.
  bool VCC = false;
  bool FlatScratch = false;
};

/// Registers named by the machine code of \p LF.
RegisterUse registerUse(const LiftedFunction &LF);

/// What an edited kernel uses, and the descriptor that follows from it.
struct KernelResources {
  KernelDescriptor KD;   ///< To emit: max(declared, computed) granules.
  bool Computed = false; ///< The kernel (or a callee) was edited.
  /// When Computed, as the metadata note counts them: VGPRs is the unified
  /// total (ArchVGPRs rounded to 4 plus AGPRs when AGPRs are used on
  /// gfx90a+), SGPRs include VCC etc.
  unsigned VGPRs = 0, AGPRs = 0, SGPRs = 0;
  /// The same counts for the original, unedited code: what an edit is
  /// compared with (the note's declared counts may be lower).
  unsigned OrigVGPRs = 0, OrigAGPRs = 0, OrigSGPRs = 0;
  /// The kernel's VGPRs and AGPRs were renumbered (LiftedFunction::
  /// RegistersRenumbered): KD's VGPR granule and ACCUM_OFFSET and the
  /// note's .vgpr_count and .agpr_count are what the code uses, lower than
  /// declared included.
  bool VGPRsAsUsed = false;
  /// The same for SGPRs (LiftedFunction::SGPRsRenumbered): the SGPR
  /// granule and .sgpr_count.
  bool SGPRsAsUsed = false;
};
KernelResources
kernelResources(const LiftedModule &LM, unsigned KernelIndex,
                const std::set<const LiftedFunction *> *Changed = nullptr);

/// The descriptor to emit for kernel \p KernelIndex: as declared, unless an
/// edit made the kernel (or a function it calls) use more registers, then
/// the register granules become max(declared, computed). LDS and scratch
/// sizes cannot be inferred from code and always stay as declared.
/// \p Changed, when given, is the set of functions an edit touched (the
/// emitter knows it from emitting them); otherwise it is computed.
KernelDescriptor
effectiveDescriptor(const LiftedModule &LM, unsigned KernelIndex,
                    const std::set<const LiftedFunction *> *Changed = nullptr);

} // namespace asmevo

#endif
