//===- FuzzMIR.cpp - The MIR reader ---------------------------------------===//
//
// `.mir` text as asmevo-opt reads it back: the embedded IR module with the
// original image and descriptors, then every MachineFunction.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "asmevo/Lift/LiftedModule.h"

using namespace llvm;
using namespace asmevo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  fuzz::ignore(
      LiftedModule::parseMIR(fuzz::asStringRef(Data, Size), "fuzz.mir"));
  return 0;
}
