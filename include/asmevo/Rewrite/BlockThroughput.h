//===- BlockThroughput.h - Static per-block throughput -----------*- C++ -*-===//
//
// What `asmevo-opt K.co --block-throughput` prints: for every block of the
// lifted functions, the cycles per iteration of the block repeated in a
// steady state, from the cycle model's static wave (asmevo/Timing/
// StaticCost.h: one wave alone on its SIMD, in order, with the model's
// pipes, result latencies and co-issue rules). The block's terminator
// (branches, s_endpgm, s_setpc) is left out, so the figure is that of its
// straight-line body: the second opinion of test/Timing/llvm-mca.test
// compares it with llvm-mca on the same instructions. A model, not a
// measurement; memory operations are at fixed latencies, as StaticCost
// says, so a block with memory or s_waitcnt predicts no time.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_REWRITE_BLOCKTHROUGHPUT_H
#define ASMEVO_REWRITE_BLOCKTHROUGHPUT_H

#include "asmevo/Lift/LiftedModule.h"
#include "llvm/Support/Error.h"

namespace asmevo {

/// Text (one line per block) or JSON (docs/timing-model.md) of every
/// simple function's blocks of \p LM.
llvm::Error printBlockThroughput(llvm::raw_ostream &OS, LiftedModule &LM,
                                 bool JSON);

} // namespace asmevo

#endif
