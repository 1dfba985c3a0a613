//===- FuzzPCProfile.cpp - rocprofv3 PC-sampling files --------------------===//
//
// A profile is a user's file: JSON of any shape (samples are found wherever
// they nest) or CSV with quoted fields.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "asmevo/Search/PCProfile.h"

using namespace llvm;
using namespace asmevo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  fuzz::ignore(parsePCProfile(fuzz::asStringRef(Data, Size), "fuzz.csv"));
  return 0;
}
