//===- Info.cpp - What asmevo-opt --info prints ---------------------------===//
#include "asmevo/Rewrite/Info.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

static void printFeature(raw_ostream &OS, TargetFeature F) {
  switch (F) {
  case TargetFeature::Unsupported: OS << "unsupported"; break;
  case TargetFeature::Any: OS << "any"; break;
  case TargetFeature::Off: OS << "off"; break;
  case TargetFeature::On: OS << "on"; break;
  }
}

void asmevo::printInfo(raw_ostream &OS, const LiftedModule &LM) {
  const CodeObject &CO = LM.original();
  const TargetInfo &T = CO.target();
  OS << "---\nfile: '" << CO.name() << "'\n";
  OS << "target:\n  id: " << T.targetID() << "\n  processor: " << T.Processor
     << "\n  xnack: ";
  printFeature(OS, T.Xnack);
  OS << "\n  sramecc: ";
  printFeature(OS, T.Sramecc);
  OS << "\n  code_object_version: " << T.CodeObjectVersion
     << "\n  e_flags: " << format_hex(T.EFlags, 6) << "\n";
  OS << "producers:\n";
  for (const std::string &P : CO.producers())
    OS << "  - '" << P << "'\n";
  OS << "sections:\n";
  for (const ELFSection &S : CO.sections()) {
    if (S.Index == 0)
      continue;
    OS << "  - { name: '" << S.Name << "', type: " << S.Type
       << ", flags: " << format_hex(S.Flags, 4)
       << ", address: " << format_hex(S.Addr, 8)
       << ", size: " << format_hex(S.Size, 8) << ", align: " << S.Align
       << " }\n";
  }
  OS << "functions:\n";
  for (const LiftedFunction &LF : LM.functions()) {
    OS << "  - name: '" << LF.Range.Name << "'\n"
       << "    address: " << format_hex(LF.Range.Addr, 8) << "\n"
       << "    size: " << LF.Range.Size << "\n"
       << "    kernel: " << (LF.Range.IsKernel ? "true" : "false") << "\n"
       << "    instructions: " << LF.NumInstrs << "\n"
       << "    simple: " << (LF.Simple ? "true" : "false") << "\n";
    if (!LF.Simple)
      OS << "    reason: '" << LF.Reason << "'\n";
    // Its MIR is kept: -O can still write address-keeping edits into it.
    if (LF.PatchMF)
      OS << "    patch_only: true\n";
    if (LF.MF)
      OS << "    blocks: " << LF.MF->size() << "\n";
    if (LF.PreloadEntry)
      OS << "    preload_entry: " << format_hex(LF.Range.Addr + 256, 8)
         << "\n";
  }
  OS << "kernels:\n";
  for (const KernelInfo &K : CO.kernels()) {
    OS << "  - name: '" << K.Name << "'\n"
       << "    descriptor_symbol: '" << K.DescriptorSymbol << "'\n"
       << "    descriptor_address: " << format_hex(K.DescriptorAddr, 8) << "\n"
       << "    entry: " << format_hex(K.EntryAddr, 8) << "\n"
       << "    descriptor:\n";
    K.KD.printYAML(OS, 6);
  }
  if (CO.metadata()) {
    OS << "metadata: |\n";
    std::string Y = CO.metadataYAML();
    SmallVector<StringRef, 64> Lines;
    StringRef(Y).split(Lines, '\n');
    for (StringRef L : Lines)
      if (!L.empty())
        OS << "  " << L << "\n";
  }
  OS << "...\n";
}
