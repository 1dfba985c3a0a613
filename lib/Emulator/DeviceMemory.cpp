//===- DeviceMemory.cpp ---------------------------------------------------===//
#include "asmevo/Emulator/DeviceMemory.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace llvm;
using namespace asmevo::emu;

DeviceMemory::DeviceMemory() = default;

uint64_t DeviceMemory::allocate(StringRef Name, uint64_t Size, uint64_t Align,
                                uint64_t Guard, bool ReadOnly) {
  auto A = std::make_unique<Allocation>();
  A->Name = Name.str();
  A->Size = Size;
  A->Guard = Guard;
  A->ReadOnly = ReadOnly;
  // A per-allocation guard byte makes a copy between two guard bands visible.
  A->GuardByte = uint8_t(0xA5 ^ (Allocs.size() * 0x3B));
  if (A->GuardByte == 0)
    A->GuardByte = 0x5A;
  Align = std::max<uint64_t>(Align, 256);
  uint64_t Base = alignTo(Next + Guard, Align);
  A->Base = Base;
  A->Bytes.assign(Guard + Size + Guard, 0);
  std::fill(A->Bytes.begin(), A->Bytes.begin() + Guard, A->GuardByte);
  std::fill(A->Bytes.end() - Guard, A->Bytes.end(), A->GuardByte);
  // An unmapped hole of 64 KiB after every allocation.
  Next = alignTo(Base + Size + Guard + 0x10000, 0x10000);
  Allocs.push_back(std::move(A));
  return Base;
}

Allocation *DeviceMemory::find(uint64_t Addr) {
  if (Last && Addr - Last->spanBegin() < Last->spanEnd() - Last->spanBegin())
    return Last;
  auto It = std::upper_bound(
      Allocs.begin(), Allocs.end(), Addr,
      [](uint64_t A, const std::unique_ptr<Allocation> &P) {
        return A < P->spanBegin();
      });
  if (It == Allocs.begin())
    return nullptr;
  Allocation *A = std::prev(It)->get();
  if (Addr >= A->spanEnd())
    return nullptr;
  Last = A;
  return A;
}

const Allocation *DeviceMemory::find(uint64_t Addr) const {
  return const_cast<DeviceMemory *>(this)->find(Addr);
}

Allocation *DeviceMemory::byName(StringRef Name) {
  for (auto &A : Allocs)
    if (A->Name == Name)
      return A.get();
  return nullptr;
}

uint8_t *DeviceMemory::translate(uint64_t Addr, uint64_t Len, AccessStatus &S,
                                 bool Write) {
  Allocation *A = find(Addr);
  if (!A) {
    S = AccessStatus::Unmapped;
    return nullptr;
  }
  if (Addr < A->Base || Addr + Len > A->Base + A->Size || Addr + Len < Addr) {
    S = AccessStatus::Guard;
    return nullptr;
  }
  if (Write && A->ReadOnly) {
    S = AccessStatus::ReadOnly;
    return nullptr;
  }
  S = AccessStatus::Ok;
  return A->data() + (Addr - A->Base);
}

std::vector<std::string> DeviceMemory::checkGuards() const {
  std::vector<std::string> Out;
  for (const auto &A : Allocs) {
    auto Check = [&](uint64_t Begin, uint64_t End, const char *Side) {
      for (uint64_t I = Begin; I < End; ++I)
        if (A->Bytes[I] != A->GuardByte) {
          std::string S;
          raw_string_ostream OS(S);
          int64_t Off = int64_t(I) - int64_t(A->Guard);
          OS << "guard band " << Side << " '" << A->Name
             << "' overwritten at byte offset " << Off << " (address "
             << format_hex(A->Base + Off, 14) << ")";
          Out.push_back(OS.str());
          return;
        }
    };
    Check(0, A->Guard, "before");
    Check(A->Guard + A->Size, A->Bytes.size(), "after");
  }
  return Out;
}
