//===- FuzzEditScript.cpp - Edit scripts, parsed and applied --------------===//
//
// An edit script comes from an agent, so it is hostile input twice over: as
// JSON, and as edits. A script that parses must serialize and parse back to
// the same text (the optimizer records its steps in this form), and, when
// ASMEVO_FUZZ_K0 names a code object (run-fuzzers.sh sets it), is applied
// to a fresh lift of it: anchors, assembler text, renames and passes on
// arbitrary values. Refusals are errors; only crashes count.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Lift/LiftedModule.h"
#include "asmevo/Search/EditScript.h"
#include "asmevo/Transforms/ApplyEdits.h"
#include "llvm/Support/MemoryBuffer.h"
#include <cstdlib>

using namespace llvm;
using namespace asmevo;

static const std::vector<uint8_t> *kernelBytes() {
  static std::optional<std::vector<uint8_t>> Bytes = [] {
    std::optional<std::vector<uint8_t>> Out;
    const char *Path = getenv("ASMEVO_FUZZ_K0");
    if (!Path)
      return Out;
    auto B = MemoryBuffer::getFile(Path);
    if (!B)
      return Out;
    Out.emplace((*B)->getBufferStart(), (*B)->getBufferEnd());
    return Out;
  }();
  return Bytes ? &*Bytes : nullptr;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text = fuzz::asStringRef(Data, Size);
  (void)normalizeInstrText(Text.take_front(512));
  (void)hexToBytes(Text.take_front(512));
  auto S = parseEditScript(Text, "fuzz.json");
  if (!S) {
    consumeError(S.takeError());
    return 0;
  }
  std::string Once = serializeEditScript(*S);
  auto Again = parseEditScript(Once, "again.json");
  if (!Again || serializeEditScript(*Again) != Once)
    abort(); // The serializer wrote what the parser cannot read back.
  const std::vector<uint8_t> *K0 = kernelBytes();
  if (!K0)
    return 0;
  auto CO = CodeObject::create(*K0, "k0.co");
  if (!CO) {
    consumeError(CO.takeError());
    return 0;
  }
  auto LM = LiftedModule::lift(std::move(*CO));
  if (!LM) {
    consumeError(LM.takeError());
    return 0;
  }
  fuzz::ignore(applyEditScript(**LM, *S, "fuzz.json"));
  return 0;
}
