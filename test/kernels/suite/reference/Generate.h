//===- Generate.h - Initial buffer contents from a spec's init --*- C++ -*-===//
//
// Makes the initial content of a buffer as its `init` describes, for
// running the references (and the emulator, through --input files) on
// generated inputs. The values depend only on the seed, the buffer name and
// the scalar values, as the format requires; they are not bit-identical to
// what `asmevo-verify` generates from the same seed.
//
//===----------------------------------------------------------------------===//

#ifndef ASMEVO_SUITE_REFERENCE_GENERATE_H
#define ASMEVO_SUITE_REFERENCE_GENERATE_H

#include "SuiteSpec.h"

namespace asmevo {
namespace suite {

llvm::Expected<HostBuffer> generateBuffer(const SuiteSpec &Spec,
                                          const BufferSpec &B, uint64_t Count,
                                          uint64_t Seed,
                                          const ScalarValues &Scalars);

} // namespace suite
} // namespace asmevo

#endif
