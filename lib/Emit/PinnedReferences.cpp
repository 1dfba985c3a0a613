//===- PinnedReferences.cpp - Non-simple code's PC-relative targets -------===//
#include "PinnedReferences.h"
#include "../Lift/FunctionLifter.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace asmevo;

namespace {
/// Where original addresses are in the rebuild.
class NewLocations {
public:
  NewLocations(const CodeObject &K0, const CodeObject &K1,
               const RebuildResult &R)
      : K0(K0), K1(K1) {
    for (const AddressMapEntry &E : R.AddressMap)
      if (E.OrigAddr) {
        NewOf.try_emplace(*E.OrigAddr, E.NewAddr);
        Moved |= E.NewAddr != *E.OrigAddr;
      }
    for (const ELFSection &S : K0.sections())
      if (S.isAlloc())
        if (const ELFSection *N = K1.findSection(S.Name))
          Moved |= N->Addr != S.Addr;
  }

  /// Code by the address map (instruction starts); data by its section.
  std::optional<uint64_t> of(uint64_t Orig) const {
    auto It = NewOf.find(Orig);
    if (It != NewOf.end())
      return It->second;
    const ELFSection *S = K0.sectionForAddr(Orig);
    if (!S || S->isExec())
      return std::nullopt;
    const ELFSection *N = K1.findSection(S->Name);
    if (!N)
      return std::nullopt;
    return Orig - S->Addr + N->Addr;
  }
  bool anythingMoved() const { return Moved; }

private:
  const CodeObject &K0, &K1;
  DenseMap<uint64_t, uint64_t> NewOf;
  bool Moved = false;
};
} // namespace

Error asmevo::checkPinnedReferences(const LiftedModule &LM,
                                    const RebuildResult &R) {
  const CodeObject &K0 = LM.original();
  std::unique_ptr<CodeObject> K1;
  std::optional<NewLocations> Where;
  for (const LiftedFunction &LF : LM.functions()) {
    if (LF.MF)
      continue; // Simple: its references were emitted as relocations.
    auto Bytes = K0.bytesAt(LF.Range.Addr, LF.Range.Size);
    if (!Bytes) {
      consumeError(Bytes.takeError());
      continue;
    }
    std::optional<uint64_t> Bad;
    std::vector<DecodedInst> Insts =
        decodeRange(LM.target(), *Bytes, LF.Range.Addr, Bad);
    std::optional<unsigned> BadGetPC;
    const MCInstrInfo &II = LM.target().instrInfo();
    std::vector<PCRelSite> Sites = findPCRelSites(
        LM.target(), Insts, [](unsigned) { return false; },
        [&](unsigned J) {
          return opcodeTraits(II, Insts[J].Inst.getOpcode()).Flow !=
                 FlowKind::None;
        },
        BadGetPC);
    if (Sites.empty() && !BadGetPC)
      continue;
    if (!Where) {
      auto CO = CodeObject::create(ArrayRef<uint8_t>(R.Linked), "<rebuilt>");
      if (!CO)
        return CO.takeError();
      K1 = std::move(*CO);
      Where.emplace(K0, *K1, R);
    }
    std::optional<uint64_t> Self = Where->of(LF.Range.Addr);
    if (!Self)
      return createStringError("function '" + LF.Range.Name +
                               "' is not simple and is missing from the "
                               "rebuild");
    int64_t Delta = int64_t(*Self - LF.Range.Addr);
    auto Refuse = [&](uint64_t At, const Twine &What) {
      return createStringError(
          "function '" + LF.Range.Name + "' is not simple (" + LF.Reason +
          ") and keeps its original bytes, whose PC-relative reference at 0x" +
          utohexstr(At) + " " + What +
          "; nothing between them may change size");
    };
    if (BadGetPC && Where->anythingMoved())
      return Refuse(Insts[*BadGetPC].Addr,
                    "is a use of s_getpc_b64 AsmEvo cannot follow, and code "
                    "moved");
    for (const PCRelSite &S : Sites) {
      std::optional<uint64_t> T = Where->of(S.Target);
      if (!T)
        return Refuse(Insts[S.LoIdx].Addr,
                      "targets 0x" + utohexstr(S.Target) +
                          ", which is not in the rebuild");
      if (int64_t(*T - S.Target) != Delta)
        return Refuse(Insts[S.LoIdx].Addr,
                      "targets 0x" + utohexstr(S.Target) +
                          ", which moved to 0x" + utohexstr(*T) +
                          " (the reference would reach 0x" +
                          utohexstr(S.Target + Delta) + ")");
    }
  }
  return Error::success();
}
