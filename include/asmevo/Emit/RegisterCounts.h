//===- RegisterCounts.h - Register counts the descriptor declares -*- C++ -*-===//
//
// Apart from Resources.h so that passes can use them: Resources.h's
// RegisterUse shares its name with the analyses' one.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_EMIT_REGISTERCOUNTS_H
#define ASMEVO_EMIT_REGISTERCOUNTS_H

namespace asmevo {

struct TargetInfo;

/// SGPRs the hardware allocates above the highest one a use names on \p T
/// (VCC, FLAT_SCRATCH, XNACK_MASK).
unsigned reservedSGPRs(const TargetInfo &T, bool VCC, bool FlatScratch);

/// Slots of the VGPR file that \p ArchVGPRs and \p AGPRs take on \p T: on
/// the unified register file of gfx90a/gfx94x/gfx950 the AGPRs start at
/// ACCUM_OFFSET, at least the VGPRs rounded up to 4 (and at least 4).
unsigned unifiedVGPRs(const TargetInfo &T, unsigned ArchVGPRs, unsigned AGPRs,
                      unsigned AccumOffset = 0);

} // namespace asmevo

#endif
