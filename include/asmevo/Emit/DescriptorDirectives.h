//===- DescriptorDirectives.h - Descriptors as directives ---*- C++ -*-===//
//
// --emit=asm writes a kernel descriptor as an `.amdhsa_kernel` block when
// LLVM's AMDGPU assembler turns that block back into exactly the 64 bytes
// (and the symbols) the code object holds, and as raw bytes otherwise. The
// decision is made by assembling every candidate block in memory, with the
// same reader `asmevo-opt K.s` uses, and comparing the bytes: the parser's
// rules (mandatory directives, granule arithmetic, per-target restrictions)
// are then never guessed.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_EMIT_DESCRIPTORDIRECTIVES_H
#define ASMEVO_EMIT_DESCRIPTORDIRECTIVES_H

#include "asmevo/CodeObject/KernelDescriptor.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <string>
#include <vector>

namespace asmevo {

class CodeObject;
struct ELFSymbol;
struct TargetInfo;

/// How one kernel descriptor is written as assembler text.
struct DescriptorForm {
  /// The `.amdhsa_kernel` ... `.end_amdhsa_kernel` block; empty when the
  /// descriptor must be written as raw bytes.
  std::string Directives;
  /// Why raw bytes, when Directives is empty.
  std::string Reason;
  /// Set when the kernel symbol's visibility must be written only after the
  /// descriptor: the directive copies it to NAME.kd, and the original has a
  /// default-visibility NAME.kd (older assemblers did not copy it).
  const ELFSymbol *DeferredVisibility = nullptr;
  bool usesDirectives() const { return !Directives.empty(); }
};

/// The `.amdhsa_kernel` block that describes \p KD for kernel \p Kernel on
/// target \p T, or an error naming the first bits no directive can express
/// (reserved bits, granules no next_free value reaches). The block is a
/// candidate only: chooseDescriptorForms checks what it assembles to.
llvm::Expected<std::string> amdhsaKernelBlock(llvm::StringRef Kernel,
                                              const KernelDescriptor &KD,
                                              const TargetInfo &T);

/// Step one, before symbol attributes are written: for every kernel of
/// \p CO (in CO.kernels() order), whether the symbols the directive defines
/// and changes can come out as the original has them. Kernels that can't
/// get their Reason.
std::vector<DescriptorForm> planDescriptorSymbols(const CodeObject &CO);

/// Step two, with \p KDs the descriptors the output holds: for every kernel
/// step one left open, the directive block when re-assembling it gives
/// exactly these bytes, otherwise the Reason for raw bytes.
void chooseDescriptorDirectives(const CodeObject &CO,
                                llvm::ArrayRef<KernelDescriptor> KDs,
                                llvm::MutableArrayRef<DescriptorForm> Forms);

/// Both steps.
std::vector<DescriptorForm>
chooseDescriptorForms(const CodeObject &CO,
                      llvm::ArrayRef<KernelDescriptor> KDs);

} // namespace asmevo

#endif
