//===- KernelMetadata.cpp -------------------------------------------------===//
#include "asmevo/Emulator/KernelMetadata.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

std::vector<const KernelArg *> KernelMetadata::explicitArgs() const {
  std::vector<const KernelArg *> Out;
  for (const KernelArg &A : Args)
    if (!A.isHidden())
      Out.push_back(&A);
  return Out;
}

static const msgpack::DocNode *lookup(msgpack::Document &Doc,
                                      msgpack::MapDocNode &M, StringRef Key) {
  auto It = M.find(Doc.getNode(Key));
  return It == M.end() ? nullptr : &It->second;
}

static std::optional<uint64_t> asUInt(const msgpack::DocNode *N) {
  if (!N)
    return std::nullopt;
  if (N->getKind() == msgpack::Type::UInt)
    return N->getUInt();
  if (N->getKind() == msgpack::Type::Int && N->getInt() >= 0)
    return uint64_t(N->getInt());
  return std::nullopt;
}

static std::string asString(const msgpack::DocNode *N) {
  if (N && N->isString())
    return N->getString().str();
  return "";
}

Expected<KernelMetadata> emu::readKernelMetadata(const CodeObject &CO,
                                                 const KernelInfo &K) {
  KernelMetadata MD;
  MD.Name = K.Name;
  msgpack::Document *Doc = CO.metadata();
  if (!Doc || K.MetadataIndex < 0)
    return MD;
  auto Root = Doc->getRoot();
  if (!Root.isMap())
    return MD;
  auto &RM = Root.getMap();
  const msgpack::DocNode *Kernels = lookup(*Doc, RM, "amdhsa.kernels");
  if (!Kernels || !Kernels->isArray())
    return MD;
  auto &Arr = const_cast<msgpack::DocNode *>(Kernels)->getArray();
  if (unsigned(K.MetadataIndex) >= Arr.size() ||
      !Arr[K.MetadataIndex].isMap())
    return MD;
  auto &KM = Arr[K.MetadataIndex].getMap();
  auto U32 = [&](StringRef Key) -> std::optional<uint32_t> {
    if (auto V = asUInt(lookup(*Doc, KM, Key)))
      return uint32_t(*V);
    return std::nullopt;
  };
  MD.KernargSegmentSize = U32(".kernarg_segment_size");
  MD.KernargSegmentAlign = U32(".kernarg_segment_align");
  MD.GroupSegmentFixedSize = U32(".group_segment_fixed_size");
  MD.PrivateSegmentFixedSize = U32(".private_segment_fixed_size");
  MD.MaxFlatWorkgroupSize = U32(".max_flat_workgroup_size");
  if (const msgpack::DocNode *N = lookup(*Doc, KM, ".uses_dynamic_stack"))
    MD.UsesDynamicStack = N->getKind() == msgpack::Type::Boolean && N->getBool();
  const msgpack::DocNode *Args = lookup(*Doc, KM, ".args");
  if (!Args || !Args->isArray())
    return MD;
  auto &AA = const_cast<msgpack::DocNode *>(Args)->getArray();
  for (unsigned I = 0; I < AA.size(); ++I) {
    if (!AA[I].isMap())
      return createStringError("%s: kernel '%s': metadata argument %u is not "
                               "a map",
                               CO.name().str().c_str(), K.Name.c_str(), I);
    auto &AM = AA[I].getMap();
    KernelArg A;
    A.Name = asString(lookup(*Doc, AM, ".name"));
    A.ValueKind = asString(lookup(*Doc, AM, ".value_kind"));
    A.AddressSpace = asString(lookup(*Doc, AM, ".address_space"));
    auto Off = asUInt(lookup(*Doc, AM, ".offset"));
    auto Size = asUInt(lookup(*Doc, AM, ".size"));
    if (!Off || !Size || *Size == 0 || *Off + *Size > (1u << 20))
      return createStringError(
          "%s: kernel '%s': metadata argument %u ('%s') has no valid "
          ".offset/.size",
          CO.name().str().c_str(), K.Name.c_str(), I, A.Name.c_str());
    A.Offset = uint32_t(*Off);
    A.Size = uint32_t(*Size);
    MD.Args.push_back(std::move(A));
  }
  return MD;
}
