//===- FuzzLift.cpp - The lifter ------------------------------------------===//
//
// A code object that reads is lifted (disassembly, CFG, MachineFunctions,
// live-ins, the MachineVerifier gate) and printed as MIR, as
// `asmevo-opt --emit=mir` does.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Lift/LiftedModule.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  auto CO = CodeObject::create(ArrayRef<uint8_t>(Data, Size), "fuzz.co");
  if (!CO) {
    consumeError(CO.takeError());
    return 0;
  }
  auto LM = LiftedModule::lift(std::move(*CO));
  if (!LM) {
    consumeError(LM.takeError());
    return 0;
  }
  fuzz::ignore((*LM)->printMIR(nulls()));
  return 0;
}
