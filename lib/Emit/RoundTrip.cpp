//===- RoundTrip.cpp - What differs between input and rebuild -------------===//
#include "asmevo/Emit/RoundTrip.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/Format.h"
#include <map>

using namespace llvm;
using namespace asmevo;

static std::string hex(uint64_t V) { return "0x" + utohexstr(V); }

RoundTripReport asmevo::compareCodeObjects(const CodeObject &Old,
                                           const CodeObject &New,
                                           const std::vector<uint64_t> &Counts) {
  RoundTripReport R;
  R.FileIdentical = Old.image() == New.image();

  // Sections by name.
  for (const ELFSection &S : Old.sections()) {
    if (!S.isAlloc())
      continue;
    const ELFSection *N = New.findSection(S.Name);
    if (!N) {
      R.SectionAddressesIdentical = false;
      R.Differences.push_back("section " + S.Name + " is missing");
      continue;
    }
    if (N->Addr != S.Addr || N->Size != S.Size) {
      R.SectionAddressesIdentical = false;
      R.Differences.push_back("section " + S.Name + " moved: " + hex(S.Addr) +
                              "+" + hex(S.Size) + " -> " + hex(N->Addr) + "+" +
                              hex(N->Size));
    }
    if (S.isExec() && S.Bytes != N->Bytes) {
      R.TextIdentical = false;
      size_t I = 0;
      while (I < S.Bytes.size() && I < N->Bytes.size() &&
             S.Bytes[I] == N->Bytes[I])
        ++I;
      R.Differences.push_back("section " + S.Name + " content differs at " +
                              hex(S.Addr + I));
    }
  }
  // Symbols by name (symtab; dynsym when there is no symtab).
  std::map<std::string, const ELFSymbol *> NewSyms;
  for (const ELFSymbol &S : New.symbols())
    NewSyms.emplace(S.Name, &S);
  for (const ELFSymbol &S : New.dynamicSymbols())
    NewSyms.emplace(S.Name, &S);
  const auto &OldSyms = Old.symbols().empty() ? Old.dynamicSymbols()
                                              : Old.symbols();
  for (const ELFSymbol &S : OldSyms) {
    if (S.Name.empty() || S.Type == ELF::STT_SECTION)
      continue;
    auto It = NewSyms.find(S.Name);
    if (It == NewSyms.end()) {
      R.SymbolValuesIdentical = false;
      R.Differences.push_back("symbol " + S.Name + " is missing");
    } else if (It->second->Value != S.Value || It->second->Size != S.Size) {
      R.SymbolValuesIdentical = false;
      R.Differences.push_back("symbol " + S.Name + ": " + hex(S.Value) + "/" +
                              hex(S.Size) + " -> " + hex(It->second->Value) +
                              "/" + hex(It->second->Size));
    }
  }
  // Descriptors.
  for (const KernelInfo &K : Old.kernels()) {
    const KernelInfo *NK = New.findKernel(K.Name);
    if (!NK || NK->KD.bytes() != K.KD.bytes() ||
        NK->DescriptorAddr != K.DescriptorAddr) {
      R.DescriptorsIdentical = false;
      R.Differences.push_back("kernel descriptor of " + K.Name + " differs");
    }
  }
  // Metadata note.
  const ELFNote *ON = Old.metadataNote(), *NN = New.metadataNote();
  if ((ON == nullptr) != (NN == nullptr) || (ON && ON->Desc != NN->Desc)) {
    R.NoteIdentical = false;
    R.Differences.push_back("metadata note differs");
  }
  // Per function.
  auto Ranges = Old.codeRanges();
  for (unsigned I = 0; I < Ranges.size(); ++I) {
    const CodeRange &CR = Ranges[I];
    FunctionDiff F;
    F.Name = CR.Name;
    F.Instructions = I < Counts.size() ? Counts[I] : 0;
    auto OB = Old.bytesAt(CR.Addr, CR.Size);
    auto NB = New.bytesAt(CR.Addr, CR.Size);
    if (!OB || !NB) {
      F.Identical = false;
      F.Why = !NB ? "range missing in the rebuild: " + toString(NB.takeError())
                  : toString(OB.takeError());
      consumeError(OB.takeError());
      consumeError(NB.takeError());
    } else if (*OB != *NB) {
      F.Identical = false;
      size_t J = 0;
      while ((*OB)[J] == (*NB)[J])
        ++J;
      J &= ~size_t(3);
      F.Why = "first difference at " + hex(CR.Addr + J) + " (+" + hex(J) +
              ")";
    }
    R.Functions.push_back(std::move(F));
  }
  if (!R.FileIdentical && R.contentIdentical())
    R.Differences.push_back(
        "file bytes differ outside code, descriptors, note, section "
        "addresses and symbol values (linker-synthesized tables or "
        "non-alloc sections)");
  return R;
}
