//===- CorpusHelpers.h - Code objects the corpus tests walk -----*- C++ -*-===//
#ifndef ASMEVO_UNITTESTS_ANALYSIS_CORPUS_H
#define ASMEVO_UNITTESTS_ANALYSIS_CORPUS_H

#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Lift/LiftedModule.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace asmevo {
namespace test {

struct ObjectEntry {
  std::string Path;
  std::string Group; ///< "test-kernels", "compiled", "hand-written".
};

/// Test kernels (always) and the third-party corpus (when present), with
/// the producer class from the corpus's FEATURES.tsv.
inline std::vector<ObjectEntry> corpusObjects() {
  std::vector<ObjectEntry> Out;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(ASMEVO_KERNELS_DIR, EC), E;
       It != E && !EC; It.increment(EC))
    if (llvm::StringRef(It->path()).ends_with(".co"))
      Out.push_back({It->path(), "test-kernels"});
  std::string Corpus = ASMEVO_CORPUS_DIR;
  auto Features =
      llvm::MemoryBuffer::getFile(Corpus + "/FEATURES.tsv", /*IsText=*/true);
  if (Features) {
    llvm::SmallVector<llvm::StringRef> Lines;
    (*Features)->getBuffer().split(Lines, '\n');
    for (llvm::StringRef L : llvm::ArrayRef(Lines).drop_front()) {
      llvm::SmallVector<llvm::StringRef> Cols;
      L.split(Cols, '\t');
      if (Cols.size() < 6)
        continue;
      std::string Group =
          Cols[5].starts_with("compiled") ? "compiled" : "hand-written";
      Out.push_back({Corpus + "/" + Cols[0].str(), Group});
    }
  }
  std::sort(Out.begin(), Out.end(),
            [](auto &A, auto &B) { return A.Path < B.Path; });
  return Out;
}

inline std::unique_ptr<LiftedModule> liftFile(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!Buf)
    return nullptr;
  auto CO = CodeObject::create(std::move(*Buf), Path);
  if (!CO) {
    llvm::consumeError(CO.takeError());
    return nullptr;
  }
  auto LM = LiftedModule::lift(std::move(*CO));
  if (!LM) {
    llvm::consumeError(LM.takeError());
    return nullptr;
  }
  return std::move(*LM);
}

} // namespace test
} // namespace asmevo

#endif
