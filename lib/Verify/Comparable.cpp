//===- Comparable.cpp - Can K1 be compared with K0 at all? ----------------===//
//
// Comparing objects whose kernels take their arguments differently would
// judge the launch spec, not the edit: such inputs are errors, never
// verdicts.
//
//===----------------------------------------------------------------------===//
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/KernelMetadata.h"
#include "asmevo/Verify/Verifier.h"

using namespace llvm;
using namespace asmevo::emu;

namespace asmevo {
namespace verify {

// A spec may name a kernel by its index in the code object (as
// LaunchSession accepts); both objects must resolve it the same way.
const KernelInfo *resolveLaunchedKernel(const CodeObject &CO, StringRef Name) {
  if (const KernelInfo *K = CO.findKernel(Name))
    return K;
  unsigned Idx;
  if (!Name.getAsInteger(10, Idx) && Idx < CO.kernels().size())
    return &CO.kernels()[Idx];
  return nullptr;
}

static Error compareLayouts(const CodeObject &K0, const KernelInfo &A,
                            const CodeObject &K1, const KernelInfo &B) {
  auto MA = readKernelMetadata(K0, A);
  if (!MA)
    return MA.takeError();
  auto MB = readKernelMetadata(K1, B);
  if (!MB)
    return MB.takeError();
  auto Fail = [&](const Twine &What) {
    return createStringError("kernel '" + A.Name + "': K1 '" + K1.name() +
                             "' has a kernel-argument layout different "
                             "from K0 '" + K0.name() + "': " + What);
  };
  if (MA->Args.size() != MB->Args.size())
    return Fail(Twine(MA->Args.size()) + " arguments in K0, " +
                Twine(MB->Args.size()) + " in K1");
  for (size_t I = 0; I < MA->Args.size(); ++I) {
    const KernelArg &X = MA->Args[I], &Y = MB->Args[I];
    if (X.Offset != Y.Offset || X.Size != Y.Size ||
        X.ValueKind != Y.ValueKind || X.AddressSpace != Y.AddressSpace)
      return Fail("argument " + Twine(I) + ": K0 " + X.ValueKind + " at " +
                  Twine(X.Offset) + " size " + Twine(X.Size) + ", K1 " +
                  Y.ValueKind + " at " + Twine(Y.Offset) + " size " +
                  Twine(Y.Size));
  }
  if (MA->KernargSegmentSize != MB->KernargSegmentSize)
    return Fail("metadata field .kernarg_segment_size: K0 " +
                Twine(MA->KernargSegmentSize.value_or(0)) + ", K1 " +
                Twine(MB->KernargSegmentSize.value_or(0)));
  // The argument preload count is part of how arguments reach the kernel.
  if (A.KD.preloadLength() != B.KD.preloadLength())
    return Fail("descriptor field kernarg_preload_spec_length: K0 preloads " +
                Twine(A.KD.preloadLength()) + " SGPRs of arguments, K1 " +
                Twine(B.KD.preloadLength()));
  return Error::success();
}

Error checkComparable(const CodeObject &K0, const CodeObject &K1,
                      const LaunchSpec &Spec) {
  std::string T0 = K0.target().targetID(), T1 = K1.target().targetID();
  if (T0 != T1)
    return createStringError("K1 '%s' targets %s but K0 '%s' targets %s",
                             K1.name().str().c_str(), T1.c_str(),
                             K0.name().str().c_str(), T0.c_str());
  for (size_t LI = 0; LI < Spec.Launches.size(); ++LI) {
    StringRef Name = Spec.Launches[LI].Kernel;
    const KernelInfo *A = resolveLaunchedKernel(K0, Name);
    const KernelInfo *B = resolveLaunchedKernel(K1, Name);
    for (auto [K, CO] : {std::pair(A, &K0), std::pair(B, &K1)})
      if (!K)
        return createStringError("%s: launch %zu: '%s' has no kernel '%s'",
                                 Spec.Path.c_str(), LI,
                                 CO->name().str().c_str(),
                                 Name.str().c_str());
    if (A->Name != B->Name)
      return createStringError(
          "%s: launch %zu: kernel '%s' is '%s' in K0 and '%s' in K1",
          Spec.Path.c_str(), LI, Name.str().c_str(), A->Name.c_str(),
          B->Name.c_str());
    if (Error E = compareLayouts(K0, *A, K1, *B))
      return E;
  }
  return Error::success();
}

} // namespace verify
} // namespace asmevo
