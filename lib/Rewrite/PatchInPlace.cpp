//===- PatchInPlace.cpp ---------------------------------------------------===//
#include "asmevo/Rewrite/PatchInPlace.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include <cstring>

using namespace llvm;

namespace asmevo {

static const ELFSection *codeSection(const CodeObject &CO, uint64_t Addr) {
  for (const ELFSection &S : CO.sections())
    if (S.isExec() && S.containsAddr(Addr))
      return &S;
  return nullptr;
}

Expected<Patch> patchInPlace(const CodeObject &K0, const CodeObject &K1,
                             const RebuildResult &R) {
  // Whatever is not code must be what it was: a patch changes code only.
  if (K0.kernels().size() != K1.kernels().size())
    return createStringError("the kernels changed");
  for (size_t I = 0; I < K0.kernels().size(); ++I) {
    const KernelInfo &A = K0.kernels()[I];
    const KernelInfo *B = K1.findKernel(A.Name);
    if (!B || A.EntryAddr != B->EntryAddr || A.KD.bytes() != B->KD.bytes())
      return createStringError(
          "kernel '%s': its descriptor or entry changed (a register count, "
          "say); a byte patch carries code only",
          A.Name.c_str());
  }
  if (K0.metadataYAML() != K1.metadataYAML())
    return createStringError("the metadata note changed; a byte patch "
                             "carries code only");
  Patch P;
  P.Bytes.assign(K0.image().begin(), K0.image().end());
  // Instruction sizes from the map: each entry runs to the next one (an
  // instruction is at most 12 bytes: 8 and a literal).
  for (size_t I = 0; I < R.AddressMap.size(); ++I) {
    const AddressMapEntry &E = R.AddressMap[I];
    if (!E.OrigAddr)
      return createStringError(
          "function '%s': an instruction was added at 0x%llx; addresses "
          "would shift",
          E.Function.str().c_str(), (unsigned long long)E.NewAddr);
    if (*E.OrigAddr != E.NewAddr)
      return createStringError(
          "function '%s': the instruction of 0x%llx now sits at 0x%llx",
          E.Function.str().c_str(), (unsigned long long)*E.OrigAddr,
          (unsigned long long)E.NewAddr);
  }
  for (size_t I = 0; I < R.AddressMap.size(); ++I) {
    const AddressMapEntry &E = R.AddressMap[I];
    const ELFSection *S0 = codeSection(K0, E.NewAddr);
    const ELFSection *S1 = codeSection(K1, E.NewAddr);
    if (!S0 || !S1 || S0->Addr != S1->Addr)
      return createStringError("0x%llx is not in the same code section of "
                               "both objects",
                               (unsigned long long)E.NewAddr);
    uint64_t End = std::min(S1->Addr + S1->Size, E.NewAddr + 12);
    if (I + 1 < R.AddressMap.size() &&
        R.AddressMap[I + 1].NewAddr > E.NewAddr &&
        R.AddressMap[I + 1].NewAddr < End)
      End = R.AddressMap[I + 1].NewAddr;
    uint64_t Off0 = E.NewAddr - S0->Addr, Off1 = E.NewAddr - S1->Addr;
    uint64_t Len = End - E.NewAddr;
    if (Off1 + Len > S1->Bytes.size() || Off0 + Len > S0->Bytes.size())
      return createStringError("the instruction at 0x%llx runs past its "
                               "section",
                               (unsigned long long)E.NewAddr);
    const uint8_t *New = S1->Bytes.data() + Off1;
    if (std::memcmp(New, S0->Bytes.data() + Off0, Len) == 0)
      continue;
    uint64_t FileOff = S0->Offset + Off0;
    if (FileOff + Len > P.Bytes.size())
      return createStringError("section '%s' lies outside the file",
                               S0->Name.c_str());
    std::memcpy(P.Bytes.data() + FileOff, New, Len);
    ++P.PatchedInstructions;
    P.PatchedBytes += Len;
  }
  return std::move(P);
}

} // namespace asmevo
