//===- MetadataNodes.cpp --------------------------------------------------===//
#include "asmevo/CodeObject/MetadataNodes.h"
#include "asmevo/CodeObject/CodeObject.h"

using namespace llvm;
using namespace asmevo;

msgpack::MapDocNode *md::kernelMap(const CodeObject &CO, int Index) {
  msgpack::Document *Doc = CO.metadata();
  if (!Doc || Index < 0 || !Doc->getRoot().isMap())
    return nullptr;
  msgpack::DocNode *Ks = find(Doc->getRoot().getMap(), "amdhsa.kernels");
  if (!Ks || !Ks->isArray() || unsigned(Index) >= Ks->getArray().size())
    return nullptr;
  msgpack::DocNode &K = Ks->getArray()[Index];
  return K.isMap() ? &K.getMap() : nullptr;
}

msgpack::DocNode *md::find(msgpack::MapDocNode &M, StringRef Key) {
  auto It = M.find(Key);
  return It == M.end() ? nullptr : &It->second;
}

std::optional<uint64_t> md::asUInt(const msgpack::DocNode *N) {
  if (!N)
    return std::nullopt;
  if (N->getKind() == msgpack::Type::UInt)
    return N->getUInt();
  if (N->getKind() == msgpack::Type::Int && N->getInt() >= 0)
    return uint64_t(N->getInt());
  return std::nullopt;
}

std::string md::asString(const msgpack::DocNode *N) {
  return N && N->isString() ? N->getString().str() : "";
}
