//===- LoadCodeObject.cpp -------------------------------------------------===//
#include "asmevo/Verify/LoadCodeObject.h"
#include "asmevo/CodeObject/InputFile.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

namespace asmevo {
namespace verify {

static bool emulatable(const CodeObject &CO) {
  return CO.target().isGFX90A() || CO.target().isGFX94X();
}

Expected<std::unique_ptr<CodeObject>> loadRunnableCodeObject(StringRef Path) {
  auto MB = MemoryBuffer::getFile(Path, /*IsText=*/false);
  if (!MB)
    return createStringError(MB.getError(), "cannot read '%s'",
                             Path.str().c_str());
  auto Objs = extractCodeObjects((*MB)->getBuffer(), Path);
  if (!Objs)
    return Objs.takeError();
  std::unique_ptr<CodeObject> Found;
  size_t Count = 0;
  std::string FirstError;
  for (InputCodeObject &O : *Objs) {
    auto CO = CodeObject::create(ArrayRef<uint8_t>(O.Bytes), O.Name);
    if (!CO) {
      // Objects of other targets in a bundle are not ours to judge; when
      // nothing else is runnable, the reason is what the user needs.
      std::string Msg = toString(CO.takeError());
      if (FirstError.empty())
        FirstError = Msg;
      continue;
    }
    if (!emulatable(**CO))
      continue;
    ++Count;
    Found = std::move(*CO);
  }
  if (Count == 0 && !FirstError.empty())
    return createStringError(FirstError);
  if (Count != 1)
    return createStringError("'%s' holds %zu gfx90a/gfx942 code objects; "
                             "extract the one to run",
                             Path.str().c_str(), Count);
  return std::move(Found);
}

} // namespace verify
} // namespace asmevo
