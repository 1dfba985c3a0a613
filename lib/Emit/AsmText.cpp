//===- AsmText.cpp - Printing check, target detection, assembling ---------===//
#include "asmevo/Emit/AsmText.h"
#include "asmevo/Support/Recover.h"
#include "asmevo/Support/TargetContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/MC/MCAsmBackend.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCObjectWriter.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

namespace {
/// Records instructions, keyed by the label in front of each line.
class RecordingStreamer : public MCStreamer {
public:
  explicit RecordingStreamer(MCContext &Ctx) : MCStreamer(Ctx) {}
  void emitLabel(MCSymbol *Sym, SMLoc Loc) override {
    unsigned Idx;
    if (!Sym->getName().drop_front(3).getAsInteger(10, Idx))
      Current = Idx;
  }
  void emitInstruction(const MCInst &Inst, const MCSubtargetInfo &) override {
    if (Current != ~0u)
      Parsed.emplace_back(Current, Inst);
    Current = ~0u;
  }
  bool emitSymbolAttribute(MCSymbol *, MCSymbolAttr) override { return true; }
  void emitCommonSymbol(MCSymbol *, uint64_t, Align) override {}
  std::vector<std::pair<unsigned, MCInst>> Parsed;
  unsigned Current = ~0u;
};
} // namespace

std::vector<bool> asmevo::printsLosslessly(const TargetContext &TC,
                                           ArrayRef<PrintCheckItem> Items) {
  std::vector<bool> Ok(Items.size(), false);
  if (Items.empty())
    return Ok;
  std::string Text;
  raw_string_ostream OS(Text);
  for (unsigned I = 0; I < Items.size(); ++I) {
    OS << "LBL" << I << ":\n";
    TC.printer().printInst(&Items[I].Inst, Items[I].Addr, "",
                           TC.subtargetInfo(), OS);
    OS << "\n";
  }
  SourceMgr SM;
  SM.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(Text, "<print-check>"),
                        SMLoc());
  SM.setDiagHandler([](const SMDiagnostic &, void *) {}, nullptr);
  MCContext Ctx(TC.triple(), &TC.asmInfo(), &TC.regInfo(), &TC.subtargetInfo(),
                &SM);
  MCObjectFileInfo MOFI;
  Ctx.setObjectFileInfo(&MOFI);
  MOFI.initMCObjectFileInfo(Ctx, true);
  RecordingStreamer Rec(Ctx);
  if (MCTargetStreamer *TS = TC.target().createNullTargetStreamer(Rec))
    (void)TS; // The streamer owns it.
  Rec.initSections(false, TC.subtargetInfo());
  std::unique_ptr<MCAsmParser> P(
      createMCAsmParser(SM, Ctx, Rec, TC.asmInfo()));
  std::unique_ptr<MCTargetAsmParser> TAP(TC.target().createMCAsmParser(
      TC.subtargetInfo(), *P, TC.instrInfo(), TC.mcOptions()));
  if (!TAP)
    return Ok;
  P->setTargetParser(*TAP);
  P->Run(/*NoInitialTextSection=*/true, /*NoFinalize=*/true);
  std::unique_ptr<MCCodeEmitter> CE(
      TC.target().createMCCodeEmitter(TC.instrInfo(), Ctx));
  for (auto &[Idx, Inst] : Rec.Parsed) {
    if (Idx >= Items.size())
      continue;
    SmallVector<char, 16> Buf;
    SmallVector<MCFixup, 2> Fixups;
    CE->encodeInstruction(Inst, Buf, Fixups, TC.subtargetInfo());
    ArrayRef<uint8_t> Want = Items[Idx].Bytes;
    Ok[Idx] = Fixups.empty() && Buf.size() == Want.size() &&
              memcmp(Buf.data(), Want.data(), Want.size()) == 0;
  }
  return Ok;
}

Expected<TargetInfo> asmevo::targetOfAssembly(StringRef Text,
                                              StringRef FileName) {
  size_t P = Text.find(".amdgcn_target");
  if (P == StringRef::npos)
    return createStringError(FileName + ": no .amdgcn_target directive; "
                                        "cannot tell the target");
  StringRef Rest = Text.drop_front(P).split('\n').first;
  StringRef ID = Rest.split('"').second.split('"').first;
  // amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-
  StringRef Proc = ID.rsplit("--").second;
  SmallVector<StringRef, 4> Parts;
  Proc.split(Parts, ':');
  if (Parts.empty() || Parts[0].empty())
    return createStringError(FileName + ": malformed .amdgcn_target \"" + ID +
                             "\"");
  unsigned COV = 5;
  size_t V = Text.find(".amdhsa_code_object_version");
  if (V != StringRef::npos) {
    StringRef Num = Text.drop_front(V + 27).ltrim(" \t").take_while(
        [](char C) { return isDigit(C); });
    if (Num.getAsInteger(10, COV))
      return createStringError(FileName +
                               ": malformed .amdhsa_code_object_version");
  }
  unsigned ABI = COV == 4   ? ELF::ELFABIVERSION_AMDGPU_HSA_V4
                 : COV == 5 ? ELF::ELFABIVERSION_AMDGPU_HSA_V5
                            : ELF::ELFABIVERSION_AMDGPU_HSA_V6;
  uint32_t Mach = 0;
  if (Parts[0] == "gfx90a")
    Mach = ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A;
  else if (Parts[0] == "gfx942")
    Mach = ELF::EF_AMDGPU_MACH_AMDGCN_GFX942;
  else if (Parts[0] == "gfx950")
    Mach = ELF::EF_AMDGPU_MACH_AMDGCN_GFX950;
  uint32_t Flags = Mach | ELF::EF_AMDGPU_FEATURE_XNACK_ANY_V4 |
                   ELF::EF_AMDGPU_FEATURE_SRAMECC_ANY_V4;
  for (StringRef F : ArrayRef(Parts).drop_front()) {
    if (F == "xnack+" || F == "xnack-") {
      Flags &= ~ELF::EF_AMDGPU_FEATURE_XNACK_V4;
      Flags |= F.back() == '+' ? ELF::EF_AMDGPU_FEATURE_XNACK_ON_V4
                               : ELF::EF_AMDGPU_FEATURE_XNACK_OFF_V4;
    } else if (F == "sramecc+" || F == "sramecc-") {
      Flags &= ~ELF::EF_AMDGPU_FEATURE_SRAMECC_V4;
      Flags |= F.back() == '+' ? ELF::EF_AMDGPU_FEATURE_SRAMECC_ON_V4
                               : ELF::EF_AMDGPU_FEATURE_SRAMECC_OFF_V4;
    }
  }
  auto TI = TargetInfo::fromELF(Flags, ELF::ELFOSABI_AMDGPU_HSA, ABI);
  if (!TI)
    return createStringError(FileName + ": .amdgcn_target \"" + ID +
                             "\": " + toString(TI.takeError()));
  return *TI;
}

static std::string firstLine(StringRef S) {
  return S.trim().split('\n').first.str();
}

/// Refuses a backslash outside string literals and comments, and a string
/// literal left open at the end of its line. Neither occurs in text
/// asmevo-opt writes or clang emits (no macros), and LLVM 22's assembler
/// never returns from some of them: `abc\x"` loops inside AsmLexer (found by
/// fuzz-asm), so this has to be refused before MC sees it.
static Error checkLexicalShape(StringRef Text, StringRef FileName) {
  unsigned Line = 1;
  for (size_t I = 0, N = Text.size(); I < N; ++I) {
    char C = Text[I];
    if (C == '\n') {
      ++Line;
    } else if (C == ';' || (C == '/' && I + 1 < N && Text[I + 1] == '/')) {
      while (I + 1 < N && Text[I + 1] != '\n')
        ++I;
    } else if (C == '/' && I + 1 < N && Text[I + 1] == '*') {
      size_t End = Text.find("*/", I + 2);
      if (End == StringRef::npos)
        return createStringError("%s:%u: unterminated /* comment",
                                 FileName.str().c_str(), Line);
      Line += Text.slice(I, End).count('\n');
      I = End + 1;
    } else if (C == '"') {
      size_t J = I + 1;
      for (; J < N && Text[J] != '"' && Text[J] != '\n'; ++J)
        if (Text[J] == '\\')
          ++J;
      if (J >= N || Text[J] != '"')
        return createStringError("%s:%u: string literal not closed on its line",
                                 FileName.str().c_str(), Line);
      I = J;
    } else if (C == '\\') {
      return createStringError(
          "%s:%u: backslash outside a string literal (no instruction or "
          "directive uses one; LLVM's assembler can hang on it)",
          FileName.str().c_str(), Line);
    }
  }
  return Error::success();
}

Expected<std::vector<uint8_t>> asmevo::assemble(StringRef Text,
                                                StringRef FileName) {
  if (Error E = checkLexicalShape(Text, FileName))
    return std::move(E);
  auto TI = targetOfAssembly(Text, FileName);
  if (!TI)
    return TI.takeError();
  auto TCOrErr = TargetContext::create(*TI);
  if (!TCOrErr)
    return TCOrErr.takeError();
  const TargetContext &TC = **TCOrErr;
  const Target &T = TC.target();
  SourceMgr SM;
  SM.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(Text, FileName),
                        SMLoc());
  std::string Diags;
  raw_string_ostream DOS(Diags);
  SM.setDiagHandler(
      [](const SMDiagnostic &D, void *Ctx) {
        D.print(nullptr, *static_cast<raw_string_ostream *>(Ctx), false);
      },
      &DOS);
  MCContext Ctx(TC.triple(), &TC.asmInfo(), &TC.regInfo(), &TC.subtargetInfo(),
                &SM);
  MCObjectFileInfo MOFI;
  Ctx.setObjectFileInfo(&MOFI);
  MOFI.initMCObjectFileInfo(Ctx, true);
  SmallVector<char, 0> Buf;
  raw_svector_ostream OS(Buf);
  std::unique_ptr<MCAsmBackend> MAB(
      T.createMCAsmBackend(TC.subtargetInfo(), TC.regInfo(), TC.mcOptions()));
  std::unique_ptr<MCCodeEmitter> CE(T.createMCCodeEmitter(TC.instrInfo(), Ctx));
  if (!MAB || !CE)
    return createStringError("cannot create the AMDGPU assembler");
  auto OW = MAB->createObjectWriter(OS);
  std::unique_ptr<MCStreamer> S(T.createMCObjectStreamer(
      TC.triple(), Ctx, std::move(MAB), std::move(OW), std::move(CE),
      TC.subtargetInfo()));
  std::unique_ptr<MCAsmParser> P(createMCAsmParser(SM, Ctx, *S, TC.asmInfo()));
  std::unique_ptr<MCTargetAsmParser> TAP(T.createMCAsmParser(
      TC.subtargetInfo(), *P, TC.instrInfo(), TC.mcOptions()));
  if (!TAP)
    return createStringError("cannot create the AMDGPU asm parser");
  P->setTargetParser(*TAP);
  // The MC layer still ends the process on some malformed input ("Size
  // expression must be absolute" for a .size whose end label is missing):
  // recover, so that is an error naming the file.
  bool Failed = false;
  if (Error E = runRecoverable(
          FileName, [&] { Failed = P->Run(/*NoInitialTextSection=*/false); }))
    return createStringError(toString(std::move(E)) +
                             (Diags.empty() ? "" : "; " + firstLine(Diags)));
  if (Failed)
    return createStringError(FileName + ": assembly failed:\n" + Diags);
  return std::vector<uint8_t>(Buf.begin(), Buf.end());
}
