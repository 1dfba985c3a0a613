//===- FuzzCodeObject.cpp - The code-object reader ------------------------===//
//
// ELF, notes, msgpack metadata, descriptors: CodeObject::create, then what
// every tool reads next (the metadata as YAML, each kernel's metadata
// record, the emulator's decoding of the code).
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/Emulator.h"
#include "asmevo/Emulator/KernelMetadata.h"

using namespace llvm;
using namespace asmevo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto CO = CodeObject::create(ArrayRef<uint8_t>(Data, Size), "fuzz.co");
  if (!CO) {
    consumeError(CO.takeError());
    return 0;
  }
  (void)(*CO)->metadataYAML();
  (void)(*CO)->producers();
  for (const KernelInfo &K : (*CO)->kernels())
    fuzz::ignore(emu::readKernelMetadata(**CO, K));
  fuzz::ignore(emu::Emulator::create(**CO));
  return 0;
}
