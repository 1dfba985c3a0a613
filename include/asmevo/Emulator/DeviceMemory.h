//===- DeviceMemory.h - The emulated device address space -------*- C++ -*-===//
//
// Every byte a kernel can reach lives in one Allocation: the loaded code
// object, the kernarg segment, the dispatch packet, and each buffer of a
// launch. Each allocation is surrounded by guard bands that hold a known
// pattern; the emulator traps accesses that touch them and checkGuards()
// finds writes that got through other paths. Addresses between allocations
// are unmapped, so a wild pointer is reported instead of hitting a neighbour.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_EMULATOR_DEVICEMEMORY_H
#define ASMEVO_EMULATOR_DEVICEMEMORY_H

#include "llvm/ADT/StringRef.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace asmevo {
namespace emu {

struct Allocation {
  std::string Name;
  uint64_t Base = 0;  ///< Device address of the first user byte.
  uint64_t Size = 0;  ///< User bytes.
  uint64_t Guard = 0; ///< Guard bytes on each side.
  bool ReadOnly = false;
  uint8_t GuardByte = 0;
  /// Guard + Size + Guard bytes; data() + Guard is the user region.
  std::vector<uint8_t> Bytes;

  uint8_t *data() { return Bytes.data() + Guard; }
  const uint8_t *data() const { return Bytes.data() + Guard; }
  uint64_t spanBegin() const { return Base - Guard; }
  uint64_t spanEnd() const { return Base + Size + Guard; }
};

/// Result of translating one access.
enum class AccessStatus : uint8_t { Ok, Guard, Unmapped, ReadOnly };

class DeviceMemory {
public:
  DeviceMemory();

  /// Reserves \p Size bytes aligned to \p Align with \p Guard guard bytes on
  /// each side; returns the device address. Contents are zero.
  uint64_t allocate(llvm::StringRef Name, uint64_t Size, uint64_t Align = 256,
                    uint64_t Guard = 256, bool ReadOnly = false);

  /// The allocation whose span (guards included) contains \p Addr.
  Allocation *find(uint64_t Addr);
  const Allocation *find(uint64_t Addr) const;
  Allocation *byName(llvm::StringRef Name);

  /// Host pointer for [Addr, Addr+Len) if it lies in one user region.
  uint8_t *translate(uint64_t Addr, uint64_t Len, AccessStatus &S,
                     bool Write);

  /// Guard bands whose pattern changed: one message per allocation.
  std::vector<std::string> checkGuards() const;

  std::vector<std::unique_ptr<Allocation>> &allocations() { return Allocs; }

  /// Base of the first allocation: everything the emulator maps lies above
  /// 4 GiB, so 32-bit pointer truncation never aliases a valid address.
  static constexpr uint64_t FirstAddress = 0x100000000ull;

private:
  std::vector<std::unique_ptr<Allocation>> Allocs; ///< Sorted by address.
  uint64_t Next = FirstAddress;
  Allocation *Last = nullptr;
};

} // namespace emu
} // namespace asmevo

#endif
