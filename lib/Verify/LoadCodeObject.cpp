//===- LoadCodeObject.cpp -------------------------------------------------===//
#include "asmevo/Verify/LoadCodeObject.h"
#include "asmevo/CodeObject/InputFile.h"
#include "llvm/Support/MemoryBuffer.h"
#include <optional>

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
  std::optional<std::string> FirstError;
  for (InputCodeObject &O : *Objs) {
    auto CO = CodeObject::create(ArrayRef<uint8_t>(O.Bytes), O.Name);
    if (!CO) {
      // Objects of other targets in a bundle are not ours to judge, but
      // when nothing runnable is left, what made this one unreadable is
      // the answer (the field of a corrupt descriptor, usually).
      std::string Msg = toString(CO.takeError());
      if (!FirstError)
        FirstError = Msg;
      continue;
    }
    if (!emulatable(**CO))
      continue;
    ++Count;
    Found = std::move(*CO);
  }
  if (Count == 0 && FirstError)
    return createStringError("'%s': %s", Path.str().c_str(),
                             FirstError->c_str());
  if (Count != 1)
    return createStringError("'%s' holds %zu gfx90a/gfx942 code objects; "
                             "extract the one to run",
                             Path.str().c_str(), Count);
  return std::move(Found);
}

} // namespace verify
} // namespace asmevo
