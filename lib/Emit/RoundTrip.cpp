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
  // By name and occurrence: local symbols may share a name.
  std::map<std::string, std::vector<const ELFSymbol *>> NewSyms;
  for (const ELFSymbol &S : New.symbols().empty() ? New.dynamicSymbols()
                                                  : New.symbols())
    NewSyms[S.Name].push_back(&S);
  std::map<std::string, unsigned> Seen;
  const auto &OldSyms = Old.symbols().empty() ? Old.dynamicSymbols()
                                              : Old.symbols();
  for (const ELFSymbol &S : OldSyms) {
    if (S.Name.empty() || S.Type == ELF::STT_SECTION)
      continue;
    unsigned K = Seen[S.Name]++;
    auto Found = NewSyms.find(S.Name);
    const ELFSymbol *N = Found != NewSyms.end() && K < Found->second.size()
                             ? Found->second[K]
                             : nullptr;
    if (!N) {
      R.SymbolValuesIdentical = false;
      R.Differences.push_back("symbol " + S.Name + " is missing");
    } else if (N->Value != S.Value || N->Size != S.Size) {
      R.SymbolValuesIdentical = false;
      R.Differences.push_back("symbol " + S.Name + ": " + hex(S.Value) + "/" +
                              hex(S.Size) + " -> " + hex(N->Value) + "/" +
                              hex(N->Size));
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
  if (!R.FileIdentical && R.contentIdentical()) {
    // Say what differs outside what must be identical, and why.
    auto Linkers = [](const CodeObject &CO) {
      std::string L;
      for (const std::string &P : CO.producers())
        if (StringRef(P).starts_with("Linker: "))
          L += (L.empty() ? "" : ", ") + P;
      return L;
    };
    bool Explained = false;
    for (const ELFSection &S : Old.sections()) {
      const ELFSection *N = New.findSection(S.Name);
      if (S.Index == 0 || (N && N->Bytes == S.Bytes && N->Size == S.Size))
        continue;
      if (S.Name == ".comment") {
        R.Differences.push_back(
            ".comment: the input was linked by '" + Linkers(Old) +
            "', the rebuild by '" + Linkers(New) +
            "' (lld adds its own Linker string)");
        Explained = true;
      } else if (!S.isAlloc() && N) {
        R.Differences.push_back(S.Name + ": content differs (" +
                                std::to_string(S.Size) + " -> " +
                                std::to_string(N->Size) + " bytes)");
      } else if (!N) {
        R.Differences.push_back(S.Name + ": not in the rebuild");
      }
    }
    for (const ELFSection &N : New.sections())
      if (N.Index && !Old.findSection(N.Name))
        R.Differences.push_back(
            N.Name + ": written by this lld, not by the input's linker; "
                     "section indices after it shift (.symtab st_shndx, "
                     ".shstrtab)");
    if (Old.sections().size() == New.sections().size()) {
      bool Moved = false;
      for (unsigned I = 0; I < Old.sections().size(); ++I)
        Moved |= Old.sections()[I].Offset != New.sections()[I].Offset;
      if (Moved)
        R.Differences.push_back(
            "file offsets of non-alloc sections and of the section header "
            "table follow from the sizes above");
    }
    if (!Explained && R.Differences.empty())
      R.Differences.push_back("file bytes differ outside the sections "
                              "(ELF or program headers)");
  }
  return R;
}
