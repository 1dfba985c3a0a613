//===- asmevo-opt.cpp - The AsmEvo driver ---------------------------------===//
//
// asmevo-opt IN -o OUT        rebuild (with passes) a code object
// asmevo-opt IN --emit=mir    print the lifted MachineIR
// asmevo-opt IN --info        what was recovered, as YAML
// asmevo-opt IN --roundtrip-check
//
//===----------------------------------------------------------------------===//
#include "Analyze.h"
#include "Info.h"
#include "asmevo/CodeObject/BundleWriter.h"
#include "asmevo/CodeObject/HostBinary.h"
#include "asmevo/CodeObject/InputFile.h"
#include "asmevo/CodeObject/OffloadBundle.h"
#include "asmevo/Emit/AsmText.h"
#include "asmevo/Emit/Rebuild.h"
#include "asmevo/Emit/RoundTrip.h"
#include "asmevo/Lift/LiftedModule.h"
#include "asmevo/Transforms/Pass.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

static cl::OptionCategory Cat("asmevo-opt options");
static cl::opt<std::string> InputPath(cl::Positional, cl::desc("<input>"),
                                      cl::cat(Cat));
static cl::opt<std::string> OutputPath("o", cl::desc("Output file"),
                                       cl::value_desc("file"), cl::cat(Cat));
enum class EmitKind { Obj, Reloc, MIR, Asm };
static cl::opt<EmitKind> Emit(
    "emit", cl::desc("What to write"), cl::init(EmitKind::Obj),
    cl::values(clEnumValN(EmitKind::Obj, "obj", "a linked code object"),
               clEnumValN(EmitKind::Reloc, "reloc",
                          "the relocatable object handed to lld"),
               clEnumValN(EmitKind::MIR, "mir", "MachineIR text"),
               clEnumValN(EmitKind::Asm, "asm", "assembler text")),
    cl::cat(Cat));
static cl::opt<bool> Info("info", cl::desc("Print what was recovered (YAML)"),
                          cl::cat(Cat));
enum class AnalyzeKind { None, Text, JSON };
static cl::opt<AnalyzeKind> Analyze(
    "analyze", cl::desc("Print loops, registers, occupancy, waitcnt state "
                        "and hazards per function"),
    cl::ValueOptional, cl::init(AnalyzeKind::None),
    cl::values(clEnumValN(AnalyzeKind::Text, "", "YAML-style text"),
               clEnumValN(AnalyzeKind::JSON, "json",
                          "JSON (docs/analysis-json.md)")),
    cl::cat(Cat));
static cl::opt<bool>
    RoundTripCheck("roundtrip-check",
                   cl::desc("Rebuild without passes and report per function "
                            "whether the result is identical"),
                   cl::cat(Cat));
static cl::list<std::string>
    RoundTripPaths("roundtrip-path", cl::CommaSeparated,
                   cl::desc("Paths for --roundtrip-check: mem,mir"),
                   cl::cat(Cat));
static cl::list<std::string> Kernels("kernels", cl::CommaSeparated,
                                     cl::desc("Only lift these kernels"),
                                     cl::cat(Cat));
static cl::opt<std::string> RunPass("run-pass", cl::desc("Run one pass"),
                                    cl::cat(Cat));
static cl::opt<std::string> Passes("passes",
                                   cl::desc("Comma-separated pass pipeline"),
                                   cl::cat(Cat));
static cl::opt<bool> VerifyEach("verify-each",
                                cl::desc("Run the MachineVerifier after "
                                         "lifting and after every pass"),
                                cl::cat(Cat));
static cl::opt<std::string>
    AddressMapPath("address-map",
                   cl::desc("Write new->original instruction addresses"),
                   cl::value_desc("file"), cl::cat(Cat));
static cl::opt<bool> ListPasses("list-passes",
                                cl::desc("List the registered passes"),
                                cl::cat(Cat));

static int fail(const Twine &Msg) {
  WithColor::error(errs(), "asmevo-opt") << Msg << "\n";
  return 1;
}

/// Writes \p Bytes to \p Path atomically: nothing is left behind on error.
/// \p ModeFrom: copy that file's permission bits (a rewritten HIP
/// executable must stay executable).
static Error writeOutput(StringRef Path, StringRef Bytes,
                         StringRef ModeFrom = "") {
  if (Path == "-") {
    outs() << Bytes;
    return Error::success();
  }
  std::error_code EC;
  ToolOutputFile Out(Path, EC, sys::fs::OF_None);
  if (EC)
    return createStringError(EC, "cannot open " + Path);
  Out.os() << Bytes;
  Out.os().close();
  if (Out.os().has_error())
    return createStringError(Out.os().error(), "cannot write " + Path);
  if (!ModeFrom.empty()) {
    auto Perms = sys::fs::getPermissions(ModeFrom);
    if (Perms)
      if (std::error_code PEC = sys::fs::setPermissions(Path, *Perms))
        return createStringError(PEC, "cannot set the permissions of " + Path);
  }
  Out.keep();
  return Error::success();
}

/// Assembler text: assemble, then link with the lld arguments the text
/// names in its "asmevo-lld-args:" comment.
static Expected<std::vector<uint8_t>> assembleAndLink(StringRef Text,
                                                      StringRef Path) {
  auto Obj = assemble(Text, Path);
  if (!Obj)
    return Obj.takeError();
  std::vector<std::string> Args;
  size_t P = Text.find(lldArgsCommentTag());
  if (P != StringRef::npos) {
    StringRef Line =
        Text.drop_front(P + lldArgsCommentTag().size()).split('\n').first;
    SmallVector<StringRef, 4> Parts;
    Line.split(Parts, ' ', -1, false);
    for (StringRef A : Parts)
      if (A.starts_with("--build-id="))
        Args.push_back(A.str());
  }
  auto Linked = linkRelocatable(*Obj, Args);
  if (!Linked)
    return createStringError(Path + ": " + toString(Linked.takeError()));
  return std::move(*Linked);
}

/// A bundle file or a HIP host binary with its device code objects
/// rebuilt; LMs are the lifted device entries in file order.
static Expected<std::vector<uint8_t>>
rewriteContainer(StringRef Path, InputKind Kind,
                 std::vector<std::unique_ptr<LiftedModule>> &LMs) {
  auto BufOrErr = MemoryBuffer::getFileOrSTDIN(Path, false, false);
  if (!BufOrErr)
    return createStringError(BufOrErr.getError(), Path + ": cannot read");
  StringRef Bytes = (*BufOrErr)->getBuffer();
  auto Entries = Kind == InputKind::HostBinary ? readHostFatbin(Bytes, Path)
                                               : readOffloadBundles(Bytes, Path);
  if (!Entries)
    return Entries.takeError();
  std::vector<std::vector<uint8_t>> NewData(Entries->size());
  unsigned Next = 0;
  for (unsigned I = 0; I < Entries->size(); ++I) {
    StringRef D(reinterpret_cast<const char *>((*Entries)[I].Data.data()),
                (*Entries)[I].Data.size());
    if (!isAMDGPUCodeObject(D))
      continue;
    if (Next >= LMs.size())
      return createStringError(Path + ": bundle entries changed under us");
    auto R = rebuild(*LMs[Next++]);
    if (!R)
      return R.takeError();
    NewData[I] = std::move(R->Linked);
  }
  if (Kind == InputKind::HostBinary) {
    std::vector<std::string> Warnings;
    auto Out = rewriteHostFatbin(Bytes, Path, *Entries, NewData, Warnings);
    for (const std::string &W : Warnings)
      WithColor::warning(errs(), "asmevo-opt") << W << "\n";
    return Out;
  }
  return rewriteBundles(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Bytes.data()),
                        Bytes.size()),
      *Entries, NewData, Path, /*AllowGrowth=*/true);
}

static Expected<std::vector<std::unique_ptr<LiftedModule>>>
loadInput(StringRef Path, const LiftOptions &LO) {
  auto BufOrErr = MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/false,
                                               /*RequiresNullTerminator=*/false);
  if (!BufOrErr)
    return createStringError(BufOrErr.getError(), Path + ": cannot read");
  StringRef Bytes = (*BufOrErr)->getBuffer();
  std::vector<std::unique_ptr<LiftedModule>> Out;
  InputKind K = classifyInput(Path, Bytes);
  if (K == InputKind::MIR) {
    auto LM = LiftedModule::parseMIR(Bytes, Path);
    if (!LM)
      return LM.takeError();
    Out.push_back(std::move(*LM));
    return std::move(Out);
  }
  Expected<std::vector<InputCodeObject>> COs = std::vector<InputCodeObject>();
  if (K == InputKind::Assembly) {
    auto Linked = assembleAndLink(Bytes, Path);
    if (!Linked)
      return Linked.takeError();
    COs->push_back({Path.str(), std::move(*Linked)});
  } else {
    COs = extractCodeObjects(Bytes, Path);
  }
  if (!COs)
    return COs.takeError();
  for (InputCodeObject &ICO : *COs) {
    auto CO = CodeObject::create(ArrayRef<uint8_t>(ICO.Bytes), ICO.Name);
    if (!CO)
      return CO.takeError();
    auto LM = LiftedModule::lift(std::move(*CO), LO);
    if (!LM)
      return LM.takeError();
    Out.push_back(std::move(*LM));
  }
  return std::move(Out);
}

static void printReport(raw_ostream &OS, StringRef PathName,
                        const RoundTripReport &R) {
  OS << "  " << PathName << ":\n"
     << "    text: " << (R.TextIdentical ? "identical" : "different") << "\n"
     << "    descriptors: "
     << (R.DescriptorsIdentical ? "identical" : "different") << "\n"
     << "    metadata_note: " << (R.NoteIdentical ? "identical" : "different")
     << "\n"
     << "    section_addresses: "
     << (R.SectionAddressesIdentical ? "identical" : "different") << "\n"
     << "    symbol_values: "
     << (R.SymbolValuesIdentical ? "identical" : "different") << "\n"
     << "    file: " << (R.FileIdentical ? "identical" : "different") << "\n";
  OS << "    functions:\n";
  for (const FunctionDiff &F : R.Functions) {
    OS << "      - { name: '" << F.Name << "', instructions: "
       << F.Instructions
       << ", identical: " << (F.Identical ? "true" : "false");
    if (!F.Identical)
      OS << ", why: '" << F.Why << "'";
    OS << " }\n";
  }
  if (!R.Differences.empty()) {
    OS << "    differences:\n";
    for (const std::string &D : R.Differences)
      OS << "      - '" << D << "'\n";
  }
}

static Expected<bool> roundTrip(LiftedModule &LM, raw_ostream &OS,
                                std::vector<std::string> Paths) {
  std::vector<uint64_t> Counts;
  for (const CodeRange &CR : LM.original().codeRanges()) {
    uint64_t N = 0;
    for (const LiftedFunction &LF : LM.functions())
      if (LF.Range.Addr == CR.Addr)
        N = LF.NumInstrs;
    Counts.push_back(N);
  }
  if (Paths.empty())
    Paths = {"mem", "mir", "asm"};
  OS << "- file: '" << LM.original().name() << "'\n";
  LM.finalize(); // Report verifier-rejected functions too.
  unsigned NonSimple = 0;
  for (const LiftedFunction &LF : LM.functions())
    if (!LF.Simple) {
      if (!NonSimple++)
        OS << "  non_simple:\n";
      OS << "    - { name: '" << LF.Range.Name << "', reason: '" << LF.Reason
         << "' }\n";
    }
  bool AllOk = true;
  for (const std::string &P : Paths) {
    std::unique_ptr<LiftedModule> Reparsed;
    const LiftedModule *Src = &LM;
    if (P == "asm") {
      auto Text = emitAssembly(LM);
      if (!Text)
        return Text.takeError();
      std::string SName = (LM.original().name() + ".s").str();
      auto Linked = assembleAndLink(*Text, SName);
      if (!Linked)
        return Linked.takeError();
      auto CO = CodeObject::create(ArrayRef<uint8_t>(*Linked), SName);
      if (!CO)
        return CO.takeError();
      auto RP = LiftedModule::lift(std::move(*CO));
      if (!RP)
        return RP.takeError();
      Reparsed = std::move(*RP);
      Src = Reparsed.get();
    } else if (P == "mir") {
      std::string Text;
      raw_string_ostream TOS(Text);
      if (Error E = LM.printMIR(TOS))
        return std::move(E);
      auto RP = LiftedModule::parseMIR(Text, LM.original().name());
      if (!RP)
        return RP.takeError();
      Reparsed = std::move(*RP);
      Src = Reparsed.get();
    } else if (P != "mem") {
      return createStringError("unknown round-trip path '" + P + "'");
    }
    auto R = rebuild(*Src);
    if (!R)
      return R.takeError();
    auto New = CodeObject::create(ArrayRef<uint8_t>(R->Linked), "<rebuilt>");
    if (!New)
      return New.takeError();
    RoundTripReport Rep = compareCodeObjects(LM.original(), **New, Counts);
    bool SameLinker = linkedBySameLLD(LM.original(), **New);
    bool Ok = Rep.contentIdentical() && (Rep.FileIdentical || !SameLinker);
    AllOk &= Ok;
    printReport(OS, P, Rep);
    OS << "    same_linker: " << (SameLinker ? "true" : "false") << "\n";
  }
  return AllOk;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  // -print-after-all and -print-after=NAME are LLVM's own options (they
  // live in libLLVM); keep them visible next to ours.
  cl::HideUnrelatedOptions(Cat);
  for (StringRef Name : {"print-after-all", "print-after"})
    if (auto *O = cl::getRegisteredOptions().lookup(Name))
      O->setHiddenFlag(cl::NotHidden);
  cl::ParseCommandLineOptions(argc, argv, "AsmEvo post-link optimizer\n");
  if (ListPasses) {
    for (const PassEntry &P : registeredPasses())
      outs() << P.Name << " - " << P.Description << "\n";
    return 0;
  }
  if (InputPath.empty())
    return fail("no input file (see --help)");
  // lld resets every cl::opt when it links in-process (it re-parses its
  // own -mllvm options), so take the values now.
  const std::string OutPath = OutputPath, AddrMapPath = AddressMapPath;
  const std::string InPath = InputPath;
  const EmitKind EmitK = Emit;
  const std::vector<std::string> RTPaths(RoundTripPaths.begin(),
                                         RoundTripPaths.end());
  LiftOptions LO;
  LO.Kernels.assign(Kernels.begin(), Kernels.end());
  // A rebuild without passes emits every function from its bytes; what
  // reads or edits MachineIR finalizes (live-ins, verifier gate) itself.
  LO.Finalize = Info || VerifyEach;
  InputKind InKind = InputKind::Unknown;
  if (auto B = MemoryBuffer::getFileOrSTDIN(InPath, false, false))
    InKind = classifyInput(InPath, (*B)->getBuffer());
  auto LMs = loadInput(InPath, LO);
  if (!LMs)
    return fail(toString(LMs.takeError()));

  if (Info) {
    for (auto &LM : *LMs)
      printInfo(outs(), *LM);
    return 0;
  }
  if (Analyze != AnalyzeKind::None) {
    for (auto &LM : *LMs)
      if (Error E = printAnalysis(outs(), *LM, Analyze == AnalyzeKind::JSON))
        return fail(toString(std::move(E)));
    return 0;
  }
  if (VerifyEach)
    for (auto &LM : *LMs)
      if (Error E = LM->verify("After lifting"))
        return fail(toString(std::move(E)));
  if (RoundTripCheck) {
    bool AllOk = true;
    for (auto &LM : *LMs) {
      auto Ok = roundTrip(*LM, outs(), RTPaths);
      if (!Ok)
        return fail(toString(Ok.takeError()));
      AllOk &= *Ok;
    }
    return AllOk ? 0 : 2;
  }

  std::string Pipeline = Passes;
  if (!RunPass.empty())
    Pipeline = Pipeline.empty() ? RunPass.getValue() : Pipeline + "," + RunPass;
  PipelineOptions PO;
  PO.VerifyEach = VerifyEach;
  PO.PrintStream = &errs();
  for (auto &LM : *LMs)
    if (!Pipeline.empty())
      if (Error E = runPipeline(*LM, Pipeline, PO))
        return fail(toString(std::move(E)));

  std::string Out = OutPath.empty() ? "-" : OutPath;
  if (EmitK == EmitKind::Obj && (InKind == InputKind::OffloadBundle ||
                                 InKind == InputKind::HostBinary)) {
    auto Bytes = rewriteContainer(InPath, InKind, *LMs);
    if (!Bytes)
      return fail(toString(Bytes.takeError()));
    if (Out == "-" && outs().is_displayed())
      return fail("refusing to write a binary to a terminal; use -o");
    if (Error E = writeOutput(Out, StringRef(reinterpret_cast<const char *>(
                                                 Bytes->data()),
                                             Bytes->size()),
                              InKind == InputKind::HostBinary ? StringRef(InPath)
                                                              : StringRef()))
      return fail(toString(std::move(E)));
    return 0;
  }
  if (LMs->size() != 1)
    return fail(InPath + ": holds " + Twine(LMs->size()) +
                " code objects; --emit=mir/asm/reloc take one (select it "
                "with clang-offload-bundler --unbundle)");
  LiftedModule &LM = *LMs->front();
  std::string OutBytes;
  raw_string_ostream OS(OutBytes);
  RebuildResult R;
  switch (EmitK) {
  case EmitKind::MIR:
    if (Error E = LM.printMIR(OS))
      return fail(toString(std::move(E)));
    break;
  case EmitKind::Asm: {
    auto Text = emitAssembly(LM);
    if (!Text)
      return fail(toString(Text.takeError()));
    OS << *Text;
    break;
  }
  case EmitKind::Reloc:
    if (Error E = emitRelocatable(LM, R))
      return fail(toString(std::move(E)));
    OS.write(reinterpret_cast<const char *>(R.Relocatable.data()),
             R.Relocatable.size());
    break;
  case EmitKind::Obj: {
    auto RR = rebuild(LM);
    if (!RR)
      return fail(toString(RR.takeError()));
    R = std::move(*RR);
    for (const std::string &W : R.Warnings)
      WithColor::warning(errs(), "asmevo-opt") << LM.original().name() << ": "
                                               << W << "\n";
    OS.write(reinterpret_cast<const char *>(R.Linked.data()), R.Linked.size());
    break;
  }
  }
  if ((EmitK == EmitKind::Obj || EmitK == EmitKind::Reloc) && Out == "-" &&
      outs().is_displayed())
    return fail("refusing to write a code object to a terminal; use -o");
  if (!AddrMapPath.empty()) {
    if (EmitK != EmitKind::Obj)
      return fail("--address-map needs --emit=obj");
    std::string Map;
    raw_string_ostream MOS(Map);
    writeAddressMap(MOS, R);
    if (Error E = writeOutput(AddrMapPath, Map))
      return fail(toString(std::move(E)));
  }
  if (Error E = writeOutput(Out, OutBytes))
    return fail(toString(std::move(E)));
  return 0;
}
