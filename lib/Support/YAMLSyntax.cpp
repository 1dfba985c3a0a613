//===- YAMLSyntax.cpp - Refusing malformed YAML before reading it ---------===//

#include "asmevo/Support/YAMLSyntax.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

#include <string>

using namespace llvm;

namespace asmevo {

namespace {
struct FirstDiag {
  std::string Msg;
  bool Seen = false;
};

void captureDiag(const SMDiagnostic &D, void *Ctx) {
  auto *F = static_cast<FirstDiag *>(Ctx);
  if (F->Seen)
    return;
  F->Seen = true;
  F->Msg = std::to_string(D.getLineNo()) + ":" +
           std::to_string(D.getColumnNo() + 1) + ": " + D.getMessage().str();
}

/// Walks \p N completely; a mapping key or a sequence entry the parser
/// could not build comes back null, which is refused like a syntax error.
/// Depth is bounded because the parser itself recurses per level too.
bool walk(yaml::Node *N, unsigned Depth) {
  if (!N || Depth > 512)
    return false;
  if (auto *M = dyn_cast<yaml::MappingNode>(N)) {
    for (auto &KV : *M) {
      if (!walk(KV.getKey(), Depth + 1))
        return false;
      yaml::Node *V = KV.getValue();
      if (!V || !walk(V, Depth + 1))
        return false;
    }
    return true;
  }
  if (auto *S = dyn_cast<yaml::SequenceNode>(N)) {
    for (yaml::Node &E : *S)
      if (!walk(&E, Depth + 1))
        return false;
    return true;
  }
  return true;
}
} // namespace

Error checkYAMLSyntax(StringRef Text, StringRef Path) {
  SourceMgr SM;
  FirstDiag D;
  SM.setDiagHandler(captureDiag, &D);
  auto Buf = MemoryBuffer::getMemBuffer(Text, Path, false);
  yaml::Stream S(Buf->getMemBufferRef(), SM);
  bool Walked = true;
  for (yaml::Document &Doc : S) {
    yaml::Node *Root = Doc.getRoot();
    if (Root && !walk(Root, 0)) {
      Walked = false;
      break;
    }
    if (S.failed())
      break;
  }
  if (D.Seen)
    return createStringError("%s:%s", Path.str().c_str(), D.Msg.c_str());
  if (S.failed() || !Walked)
    return createStringError("%s: malformed YAML (nested too deeply, or a "
                             "node the parser could not build)",
                             Path.str().c_str());
  return Error::success();
}

} // namespace asmevo
