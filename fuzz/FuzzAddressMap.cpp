//===- FuzzAddressMap.cpp - The address-map reader ------------------------===//
//
// An address map as `asmevo-verify check --address-map` reads it, then
// used to pair the instructions of two code objects (findEdits), where a
// map describing the wrong object must be an error. The objects are the
// ones named by $ASMEVO_FUZZ_K0 and $ASMEVO_FUZZ_K1 (utils/fuzz sets them
// to a test kernel and its rebuild); without them only the reader runs.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/Emulator.h"
#include "asmevo/Verify/EditSet.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cstdlib>

using namespace llvm;
using namespace asmevo;

namespace {
struct Objects {
  std::unique_ptr<CodeObject> CO0, CO1;
  std::unique_ptr<emu::Emulator> E0, E1;
};

std::unique_ptr<CodeObject> loadFrom(const char *Var) {
  const char *Path = std::getenv(Var);
  if (!Path)
    return nullptr;
  auto MB = MemoryBuffer::getFile(Path, /*IsText=*/false);
  if (!MB)
    report_fatal_error(Twine("fuzz: cannot read ") + Path);
  auto CO = CodeObject::create(std::move(*MB), Path);
  if (!CO)
    report_fatal_error(Twine("fuzz: ") + toString(CO.takeError()));
  return std::move(*CO);
}

Objects *objects() {
  static Objects *O = [] {
    auto *O = new Objects;
    O->CO0 = loadFrom("ASMEVO_FUZZ_K0");
    O->CO1 = loadFrom("ASMEVO_FUZZ_K1");
    if (O->CO0 && O->CO1) {
      auto E0 = emu::Emulator::create(*O->CO0);
      auto E1 = emu::Emulator::create(*O->CO1);
      if (!E0 || !E1)
        report_fatal_error("fuzz: the objects do not load in the emulator");
      O->E0 = std::move(*E0);
      O->E1 = std::move(*E1);
    }
    return O;
  }();
  return O;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  Objects *O = objects();
  std::string Path =
      fuzz::writeScratchFile(fuzz::asStringRef(Data, Size), ".map");
  auto M = verify::AddressMap::load(Path);
  if (!M) {
    consumeError(M.takeError());
    return 0;
  }
  if (O->E0)
    fuzz::ignore(verify::findEdits(*O->E0, *O->E1, &*M));
  return 0;
}
