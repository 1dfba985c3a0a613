//===- FuzzNpy.cpp - The .npy (and raw) buffer-file reader ----------------===//
//
// `init: {file: ...}` in a launch spec: the first byte picks the element
// type and the next four the element count the buffer expects, the rest is
// the file (read as .npy, or as raw bytes when byte 0 is odd).
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "asmevo/Emulator/LaunchSession.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include <cstring>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  if (Size < 5)
    return 0;
  static const ElemType Types[] = {ElemType::F32, ElemType::F16,
                                   ElemType::BF16, ElemType::F64,
                                   ElemType::I32, ElemType::U8,
                                   ElemType::I64, ElemType::FP8};
  ElemType T = Types[(Data[0] >> 1) % std::size(Types)];
  uint32_t Count;
  std::memcpy(&Count, Data + 1, 4);
  // A buffer the size a spec may ask for, not one the fuzzer's count would
  // make the reader allocate: counts stay below 2^20.
  Count &= (1u << 20) - 1;
  std::string Path = fuzz::writeScratchFile(
      fuzz::asStringRef(Data + 5, Size - 5), (Data[0] & 1) ? ".bin" : ".npy");
  fuzz::ignore(readArrayFile(Path, T, Count));
  return 0;
}
