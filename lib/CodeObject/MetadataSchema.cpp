//===- MetadataSchema.cpp - Checking NT_AMDGPU_METADATA -------------------===//
#include "asmevo/CodeObject/MetadataSchema.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/Twine.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/BinaryFormat/MsgPackReader.h"

using namespace llvm;
using namespace asmevo;

static const char *kindName(msgpack::Type T) {
  switch (T) {
  case msgpack::Type::Int:
  case msgpack::Type::UInt:
    return "an integer";
  case msgpack::Type::Nil:
    return "nil";
  case msgpack::Type::Boolean:
    return "a boolean";
  case msgpack::Type::Float:
    return "a float";
  case msgpack::Type::String:
    return "a string";
  case msgpack::Type::Binary:
    return "binary data";
  case msgpack::Type::Array:
    return "a list";
  case msgpack::Type::Map:
    return "a map";
  default:
    return "an extension value";
  }
}

Error asmevo::checkMetadataEncoding(StringRef Blob) {
  msgpack::Reader R(Blob);
  // One frame per open map or array: elements still to read, and whether
  // the next one is a map key.
  struct Frame {
    uint64_t Left;
    bool IsMap;
    bool KeyNext;
  };
  SmallVector<Frame, 8> Stack;
  bool Top = true;
  while (Top || !Stack.empty()) {
    msgpack::Object O;
    Expected<bool> Got = R.read(O);
    if (!Got)
      return createStringError("corrupt msgpack metadata: " +
                               toString(Got.takeError()));
    if (!*Got)
      return createStringError("msgpack ends inside a %s",
                               Stack.empty() || !Stack.back().IsMap ? "list"
                                                                    : "map");
    bool IsKey = false;
    if (!Stack.empty()) {
      Frame &F = Stack.back();
      IsKey = F.IsMap && F.KeyNext;
      if (F.IsMap)
        F.KeyNext = !F.KeyNext;
      if (!F.IsMap || F.KeyNext)
        --F.Left; // a list element, or a map value (key and value read)
    }
    Top = false;
    if (IsKey && O.Kind != msgpack::Type::String)
      return createStringError("a map key is %s, not a string",
                               kindName(O.Kind));
    if (O.Kind == msgpack::Type::Array || O.Kind == msgpack::Type::Map) {
      if (Stack.size() >= MaxMetadataDepth)
        return createStringError("maps and lists nested more than %u deep",
                                 MaxMetadataDepth);
      // Each element takes at least one byte.
      uint64_t Items = O.Kind == msgpack::Type::Map ? 2 * uint64_t(O.Length)
                                                    : uint64_t(O.Length);
      if (Items > Blob.size())
        return createStringError("a %s of %zu entries in %zu bytes",
                                 O.Kind == msgpack::Type::Map ? "map" : "list",
                                 O.Length, Blob.size());
      Stack.push_back({uint64_t(O.Length), O.Kind == msgpack::Type::Map, true});
    }
    while (!Stack.empty() && Stack.back().Left == 0 &&
           (!Stack.back().IsMap || Stack.back().KeyNext))
      Stack.pop_back();
  }
  return Error::success();
}

namespace {
/// Checks one map against the types of the keys it may hold.
class SchemaChecker {
public:
  Error kernels(msgpack::DocNode &Root) {
    if (!Root.isMap())
      return fail("", "the metadata is not a map");
    msgpack::MapDocNode &M = Root.getMap();
    if (auto It = M.find("amdhsa.version"); It != M.end())
      if (Error E = uintList("amdhsa.version", It->second))
        return E;
    if (auto It = M.find("amdhsa.target"); It != M.end())
      if (!It->second.isString())
        return fail("amdhsa.target", "is not a string");
    auto It = M.find("amdhsa.kernels");
    if (It == M.end())
      return Error::success();
    if (!It->second.isArray())
      return fail("amdhsa.kernels", "is not a list");
    msgpack::ArrayDocNode &Ks = It->second.getArray();
    for (size_t I = 0; I < Ks.size(); ++I)
      if (Error E = kernel("amdhsa.kernels[" + Twine(I) + "]", Ks[I]))
        return E;
    return Error::success();
  }

private:
  static Error fail(const Twine &Field, const Twine &Why) {
    return createStringError(
        "NT_AMDGPU_METADATA note: " +
        (Field.isTriviallyEmpty() ? Twine("") : Field + " ") + Why);
  }
  static bool isUInt(const msgpack::DocNode &N) {
    return N.getKind() == msgpack::Type::UInt ||
           (N.getKind() == msgpack::Type::Int && N.getInt() >= 0);
  }
  static Error uintList(const Twine &Field, msgpack::DocNode &N) {
    if (!N.isArray())
      return fail(Field, "is not a list");
    for (msgpack::DocNode &E : N.getArray())
      if (!isUInt(E))
        return fail(Field, "holds something other than unsigned integers");
    return Error::success();
  }
  /// Keys of \p M that must have the given types when present.
  static Error fields(const Twine &Where, msgpack::MapDocNode &M,
                      ArrayRef<StringRef> Strings, ArrayRef<StringRef> UInts,
                      ArrayRef<StringRef> UIntLists,
                      ArrayRef<StringRef> Bools) {
    for (StringRef K : Strings)
      if (auto It = M.find(K); It != M.end() && !It->second.isString())
        return fail(Where + "." + K.drop_front(), "is not a string");
    for (StringRef K : UInts)
      if (auto It = M.find(K); It != M.end() && !isUInt(It->second))
        return fail(Where + "." + K.drop_front(), "is not an unsigned integer");
    for (StringRef K : UIntLists)
      if (auto It = M.find(K); It != M.end())
        if (Error E = uintList(Where + "." + K.drop_front(), It->second))
          return E;
    for (StringRef K : Bools)
      if (auto It = M.find(K);
          It != M.end() && It->second.getKind() != msgpack::Type::Boolean)
        return fail(Where + "." + K.drop_front(), "is not a boolean");
    return Error::success();
  }
  Error kernel(const Twine &Where, msgpack::DocNode &N) {
    if (!N.isMap())
      return fail(Where, "is not a map");
    msgpack::MapDocNode &K = N.getMap();
    if (Error E =
            fields(Where, K, {".name", ".symbol", ".language"},
                   {".kernarg_segment_size", ".kernarg_segment_align",
                    ".group_segment_fixed_size", ".private_segment_fixed_size",
                    ".max_flat_workgroup_size", ".sgpr_count", ".vgpr_count",
                    ".agpr_count", ".wavefront_size", ".sgpr_spill_count",
                    ".vgpr_spill_count"},
                   {".reqd_workgroup_size", ".workgroup_size_hint"},
                   {".uses_dynamic_stack"}))
      return E;
    auto It = K.find(".args");
    if (It == K.end())
      return Error::success();
    if (!It->second.isArray())
      return fail(Where + ".args", "is not a list");
    msgpack::ArrayDocNode &Args = It->second.getArray();
    for (size_t I = 0; I < Args.size(); ++I) {
      std::string ArgWhere = (Where + ".args[" + Twine(I) + "]").str();
      if (!Args[I].isMap())
        return fail(ArgWhere, "is not a map");
      if (Error E = fields(ArgWhere, Args[I].getMap(),
                           {".name", ".type_name", ".value_kind", ".value_type",
                            ".address_space", ".access", ".actual_access"},
                           {".size", ".offset", ".pointee_align"}, {}, {}))
        return E;
    }
    return Error::success();
  }
};
} // namespace

Error asmevo::checkMetadataSchema(msgpack::Document &Doc) {
  return SchemaChecker().kernels(Doc.getRoot());
}
