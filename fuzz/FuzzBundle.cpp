//===- FuzzBundle.cpp - Offload bundles and HIP host binaries -------------===//
//
// What the tools do with any file they are given: classify it, read the
// bundles (plain, compressed, several back to back) or the host binary's
// .hip_fatbin, and extract the code objects.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "asmevo/CodeObject/HostBinary.h"
#include "asmevo/CodeObject/InputFile.h"
#include "asmevo/CodeObject/OffloadBundle.h"

using namespace llvm;
using namespace asmevo;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef B = fuzz::asStringRef(Data, Size);
  (void)classifyInput("fuzz.bin", B);
  if (looksLikeOffloadBundle(B))
    fuzz::ignore(readOffloadBundles(B, "fuzz.bundle"));
  if (looksLikeHostELF(B)) {
    fuzz::ignore(findHipFatbinSection(B, "fuzz.host"));
    fuzz::ignore(readHostFatbin(B, "fuzz.host"));
  }
  fuzz::ignore(extractCodeObjects(B, "fuzz.bin"));
  return 0;
}
