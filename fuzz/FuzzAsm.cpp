//===- FuzzAsm.cpp - The assembler-text reader ----------------------------===//
//
// `.s` text as asmevo-link reads it: the target it declares, then the MC
// assembler into a relocatable object.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "asmevo/Emit/AsmText.h"

using namespace llvm;
using namespace asmevo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text = fuzz::asStringRef(Data, Size);
  auto T = targetOfAssembly(Text, "fuzz.s");
  if (!T) {
    consumeError(T.takeError());
    return 0;
  }
  fuzz::ignore(assemble(Text, "fuzz.s"));
  return 0;
}
