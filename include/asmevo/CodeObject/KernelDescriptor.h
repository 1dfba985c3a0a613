//===- KernelDescriptor.h - AMDHSA kernel descriptor view -------*- C++ -*-===//
//
// The 64-byte kernel descriptor, kept as raw bytes so that re-emission is
// exact, with decoded fields for printing, analysis and the emulator. Field
// offsets and bit positions come from llvm/Support/AMDHSAKernelDescriptor.h.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_CODEOBJECT_KERNELDESCRIPTOR_H
#define ASMEVO_CODEOBJECT_KERNELDESCRIPTOR_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <array>
#include <cstdint>

namespace llvm {
class raw_ostream;
}

namespace asmevo {

struct TargetInfo;

class KernelDescriptor {
public:
  static constexpr unsigned Size = 64;

  KernelDescriptor() { Bytes.fill(0); }
  explicit KernelDescriptor(llvm::ArrayRef<uint8_t> Raw);

  llvm::ArrayRef<uint8_t> bytes() const { return Bytes; }
  std::array<uint8_t, Size> &mutableBytes() { return Bytes; }

  uint32_t groupSegmentFixedSize() const { return read32(0); }
  uint32_t privateSegmentFixedSize() const { return read32(4); }
  uint32_t kernargSize() const { return read32(8); }
  int64_t entryByteOffset() const { return (int64_t)read64(16); }
  uint32_t pgmRsrc3() const { return read32(44); }
  uint32_t pgmRsrc1() const { return read32(48); }
  uint32_t pgmRsrc2() const { return read32(52); }
  uint16_t kernelCodeProperties() const { return read16(56); }
  uint16_t kernargPreload() const { return read16(58); }

  void setGroupSegmentFixedSize(uint32_t V) { write32(0, V); }
  void setPrivateSegmentFixedSize(uint32_t V) { write32(4, V); }
  void setPgmRsrc1(uint32_t V) { write32(48, V); }
  void setPgmRsrc3(uint32_t V) { write32(44, V); }

  // Decoded fields that the lifter and the emulator need.
  unsigned vgprGranule() const { return pgmRsrc1() & 0x3f; }
  unsigned sgprGranule() const { return (pgmRsrc1() >> 6) & 0xf; }
  unsigned userSGPRCount() const { return (pgmRsrc2() >> 1) & 0x1f; }
  bool enablesPrivateSegment() const { return pgmRsrc2() & 1; }
  bool enablesWorkgroupID(unsigned Dim) const {
    return (pgmRsrc2() >> (7 + Dim)) & 1;
  }
  bool enablesWorkgroupInfo() const { return (pgmRsrc2() >> 10) & 1; }
  unsigned workItemIDDims() const { return (pgmRsrc2() >> 11) & 3; }
  /// SGPRs the dispatch writes (AMDGPUUsage, "Initial Kernel Execution
  /// State"): the user SGPRs (preloaded kernel arguments among them), then
  /// the enabled system SGPRs: workgroup IDs X, Y, Z, workgroup info and
  /// the private segment wave offset.
  unsigned dispatchSGPRs() const {
    return userSGPRCount() + enablesWorkgroupID(0) + enablesWorkgroupID(1) +
           enablesWorkgroupID(2) + enablesWorkgroupInfo() +
           enablesPrivateSegment();
  }
  unsigned accumOffsetField() const { return pgmRsrc3() & 0x3f; }
  /// First AGPR-backed register index in the unified VGPR file (gfx90a+).
  unsigned accumOffset() const { return (accumOffsetField() + 1) * 4; }
  bool tgSplit() const { return (pgmRsrc3() >> 16) & 1; }
  unsigned preloadLength() const { return kernargPreload() & 0x7f; }
  unsigned preloadOffset() const { return kernargPreload() >> 7; }
  bool hasProperty(unsigned Bit) const {
    return (kernelCodeProperties() >> Bit) & 1;
  }

  /// Number of architected VGPRs + AGPRs the granule allows (gfx90a/gfx94x
  /// unified register file, granule of 8).
  unsigned allocatedVGPRs() const { return (vgprGranule() + 1) * 8; }

  /// Checks fields a hostile input can corrupt. Names \p Kernel in errors.
  llvm::Error validate(llvm::StringRef Kernel, const TargetInfo &T) const;

  /// YAML mapping (one field per line, indented by \p Indent).
  void printYAML(llvm::raw_ostream &OS, unsigned Indent) const;

private:
  uint16_t read16(unsigned Off) const;
  uint32_t read32(unsigned Off) const;
  uint64_t read64(unsigned Off) const;
  void write32(unsigned Off, uint32_t V);
  std::array<uint8_t, Size> Bytes;
};

} // namespace asmevo

#endif
