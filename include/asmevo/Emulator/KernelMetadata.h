//===- KernelMetadata.h - Kernel arguments from the metadata note -*- C++ -*-===//
//
// The subset of the code-object v4/v5/v6 msgpack metadata (AMDGPUUsage.rst,
// "Code Object V3 Metadata" and later) that launching a kernel needs: the
// argument list with offsets, sizes and value kinds, and the segment sizes.
// Hand-written kernels often carry sparse metadata; every field is optional.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_EMULATOR_KERNELMETADATA_H
#define ASMEVO_EMULATOR_KERNELMETADATA_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {
class CodeObject;
struct KernelInfo;

namespace emu {

struct KernelArg {
  std::string Name;      ///< .name (may be empty)
  std::string ValueKind; ///< .value_kind: by_value, global_buffer, hidden_*
  std::string AddressSpace;
  uint32_t Offset = 0;
  uint32_t Size = 0;
  bool isHidden() const { return llvm::StringRef(ValueKind).starts_with("hidden_"); }
  bool isPointer() const {
    return ValueKind == "global_buffer" || ValueKind == "dynamic_shared_pointer";
  }
};

struct KernelMetadata {
  std::string Name;
  std::vector<KernelArg> Args;
  std::optional<uint32_t> KernargSegmentSize;
  std::optional<uint32_t> KernargSegmentAlign;
  std::optional<uint32_t> GroupSegmentFixedSize;
  std::optional<uint32_t> PrivateSegmentFixedSize;
  std::optional<uint32_t> MaxFlatWorkgroupSize;
  bool UsesDynamicStack = false;

  /// Explicit (non-hidden) arguments in metadata order.
  std::vector<const KernelArg *> explicitArgs() const;
};

/// Metadata of kernel \p K of \p CO; an empty record when the note has none.
llvm::Expected<KernelMetadata> readKernelMetadata(const CodeObject &CO,
                                                  const KernelInfo &K);

} // namespace emu
} // namespace asmevo

#endif
