//===- DescriptorFields.h - Every named field of a kernel descriptor -*- C++ -*-===//
//
// The 512 bits of the AMDHSA kernel descriptor as named fields (byte
// offset, bit position and width, after AMDGPUUsage's "Kernel Descriptor"
// tables for GFX90A/GFX942), reserved ranges included, so that a tool can
// say which field two descriptors differ in, or which field made one
// unreadable. Together the fields cover every bit exactly once.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_CODEOBJECT_DESCRIPTORFIELDS_H
#define ASMEVO_CODEOBJECT_DESCRIPTORFIELDS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include <cstdint>

namespace asmevo {

class KernelDescriptor;

struct DescriptorField {
  const char *Name;  ///< AMDGPUUsage's name, lower case.
  unsigned Bit;      ///< First bit, counted from bit 0 of byte 0.
  unsigned Width;    ///< In bits (at most 64).

  uint64_t read(const KernelDescriptor &KD) const;
};

/// All fields in bit order, without gaps or overlaps.
llvm::ArrayRef<DescriptorField> descriptorFields();
const DescriptorField *findDescriptorField(llvm::StringRef Name);
/// The field bit \p Bit (0..511) belongs to.
const DescriptorField &descriptorFieldOfBit(unsigned Bit);

} // namespace asmevo

#endif
