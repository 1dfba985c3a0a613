//===- KernelMetadata.cpp -------------------------------------------------===//
#include "asmevo/Emulator/KernelMetadata.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/CodeObject/MetadataNodes.h"
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


Expected<KernelMetadata> emu::readKernelMetadata(const CodeObject &CO,
                                                 const KernelInfo &K) {
  KernelMetadata MD;
  MD.Name = K.Name;
  msgpack::MapDocNode *KMP = md::kernelMap(CO, K.MetadataIndex);
  if (!KMP)
    return MD;
  msgpack::MapDocNode &KM = *KMP;
  auto U32 = [&](StringRef Key) -> std::optional<uint32_t> {
    if (auto V = md::asUInt(md::find(KM, Key)))
      return uint32_t(*V);
    return std::nullopt;
  };
  MD.KernargSegmentSize = U32(".kernarg_segment_size");
  MD.KernargSegmentAlign = U32(".kernarg_segment_align");
  MD.GroupSegmentFixedSize = U32(".group_segment_fixed_size");
  MD.PrivateSegmentFixedSize = U32(".private_segment_fixed_size");
  MD.MaxFlatWorkgroupSize = U32(".max_flat_workgroup_size");
  if (const msgpack::DocNode *N = md::find(KM, ".uses_dynamic_stack"))
    MD.UsesDynamicStack = N->getKind() == msgpack::Type::Boolean && N->getBool();
  msgpack::DocNode *Args = md::find(KM, ".args");
  if (!Args || !Args->isArray())
    return MD;
  auto &AA = Args->getArray();
  for (unsigned I = 0; I < AA.size(); ++I) {
    if (!AA[I].isMap())
      return createStringError("%s: kernel '%s': metadata argument %u is not "
                               "a map",
                               CO.name().str().c_str(), K.Name.c_str(), I);
    auto &AM = AA[I].getMap();
    KernelArg A;
    A.Name = md::asString(md::find(AM, ".name"));
    A.ValueKind = md::asString(md::find(AM, ".value_kind"));
    A.AddressSpace = md::asString(md::find(AM, ".address_space"));
    auto Off = md::asUInt(md::find(AM, ".offset"));
    auto Size = md::asUInt(md::find(AM, ".size"));
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
