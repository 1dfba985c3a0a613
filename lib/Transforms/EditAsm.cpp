//===- EditAsm.cpp - Assembler text of an edit, instructions only ---------===//
#include "EditAsm.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCExpr.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

namespace {
/// Keeps the instructions and notes anything else the parser emits: a
/// label, an assignment, data or alignment means the line was not only an
/// instruction, whatever the pre-screen missed.
class InstrOnlyStreamer : public MCStreamer {
public:
  explicit InstrOnlyStreamer(MCContext &Ctx) : MCStreamer(Ctx) {}
  void emitInstruction(const MCInst &Inst, const MCSubtargetInfo &) override {
    Insts.push_back(Inst);
  }
  void emitLabel(MCSymbol *, SMLoc) override { other("a label"); }
  void emitAssignment(MCSymbol *, const MCExpr *) override {
    other("a symbol assignment");
  }
  bool emitSymbolAttribute(MCSymbol *, MCSymbolAttr) override {
    other("a symbol attribute");
    return true;
  }
  void emitCommonSymbol(MCSymbol *, uint64_t, Align) override {
    other("a common symbol");
  }
  void emitZerofill(MCSection *, MCSymbol *, uint64_t, Align, SMLoc) override {
    other("data");
  }
  void emitBytes(StringRef) override { other("data"); }
  void emitValueImpl(const MCExpr *, unsigned, SMLoc) override {
    other("data");
  }
  void emitFill(const MCExpr &, uint64_t, SMLoc) override { other("data"); }
  void emitFill(const MCExpr &, int64_t, int64_t, SMLoc) override {
    other("data");
  }
  void emitValueToAlignment(Align, int64_t, uint8_t, unsigned) override {
    other("alignment");
  }
  void emitCodeAlignment(Align, const MCSubtargetInfo *, unsigned) override {
    other("alignment");
  }
  void changeSection(MCSection *S, uint32_t Sub) override {
    if (Armed)
      other("a section change");
    MCStreamer::changeSection(S, Sub);
  }

  std::vector<MCInst> Insts;
  std::string Other;
  bool Armed = false;

private:
  void other(StringRef What) {
    if (Other.empty())
      Other = What.str();
  }
};
} // namespace

/// Opcode-name prefixes (TableGen spelling) an edit may never create: they
/// leave the function, change control flow or the mode/trap state, end the
/// program, or talk to the rest of the system.
static constexpr StringLiteral NeverCreated[] = {
    "S_SETPC",  "S_SWAPPC", "S_CALL",      "S_GETPC",     "S_BRANCH",
    "S_CBRANCH", "S_TRAP",  "S_RFE",       "S_SENDMSG",   "S_ENDPGM",
    "S_SETHALT", "S_SETREG", "S_TTRACEDATA", "S_SETKILL", "S_SUBVECTOR_LOOP",
    "SI_",
};

static bool hasPrefix(StringRef Name, ArrayRef<StringLiteral> Prefixes) {
  for (StringRef P : Prefixes)
    if (Name.starts_with(P))
      return true;
  return false;
}

/// "S_SETPC_B64_vi" -> "s_setpc_b64", "TTMP0_gfx9plus" -> "ttmp0": what the
/// user wrote, not the encoding's TableGen name.
static std::string lowerName(StringRef Name) {
  std::string N = Name.lower();
  for (;;) {
    StringRef S(N);
    size_t P = S.rfind('_');
    if (P == StringRef::npos)
      break;
    StringRef Tail = S.drop_front(P + 1);
    if (Tail != "vi" && Tail != "si" && !Tail.starts_with("gfx"))
      break;
    N.resize(P);
  }
  return N;
}

/// LLVM's register file is larger than any gfx9 target's (it holds later
/// targets' VGPRs too): an index the target does not have is refused here,
/// whatever the assembler or the encoder would make of it.
static bool inTargetFile(StringRef TableGenName) {
  SmallVector<StringRef, 8> Parts;
  TableGenName.split(Parts, '_');
  for (StringRef P : Parts) {
    unsigned Max;
    if (P.consume_front("VGPR") || P.consume_front("AGPR"))
      Max = 255;
    else if (P.consume_front("SGPR"))
      Max = 101;
    else
      continue;
    unsigned N;
    if (!P.getAsInteger(10, N) && N > Max)
      return false;
  }
  return true;
}

std::string asmevo::asmRegName(const TargetContext &TC, MCRegister Reg) {
  StringRef R = TC.regInfo().getName(Reg);
  SmallVector<StringRef, 8> Parts;
  R.split(Parts, '_');
  StringRef Kind;
  unsigned Lo = 0, Hi = 0;
  for (size_t I = 0; I < Parts.size(); ++I) {
    StringRef P = Parts[I];
    StringRef K = P.take_front(4);
    unsigned N;
    if ((K != "VGPR" && K != "AGPR" && K != "SGPR") ||
        P.drop_front(4).getAsInteger(10, N) || (I && K != Kind))
      return lowerName(R);
    Kind = K;
    Lo = I ? Lo : N;
    Hi = N;
  }
  std::string Letter(1, toLower(Kind.front()));
  if (Lo == Hi)
    return Letter + std::to_string(Lo);
  return Letter + "[" + std::to_string(Lo) + ":" + std::to_string(Hi) + "]";
}

Error asmevo::checkRegister(const TargetContext &TC, MCRegister Reg) {
  StringRef R = TC.regInfo().getName(Reg);
  if (R.starts_with("TTMP") || R.starts_with("FLAT_SCR"))
    return createStringError(
        "register %s is refused: trap and flat-scratch registers belong to "
        "the trap handler and the descriptor's ABI",
        lowerName(R).c_str());
  if (!inTargetFile(R))
    return createStringError("register %s is out of range for %s",
                             asmRegName(TC, Reg).c_str(),
                             TC.info().Processor.c_str());
  return Error::success();
}

Error asmevo::checkCreatable(const TargetContext &TC, const MCInst &Inst) {
  StringRef Name = TC.opcodeName(Inst.getOpcode());
  const MCInstrDesc &D = TC.instrInfo().get(Inst.getOpcode());
  if (hasPrefix(Name, NeverCreated) || D.isCall() || D.isReturn() ||
      D.isBranch() || D.isIndirectBranch() || D.isTerminator() ||
      D.isBarrier())
    return createStringError(
        "'%s' is refused: edits may not create control flow, program end, "
        "messages, traps or mode changes",
        lowerName(Name).c_str());
  if (Name.starts_with("SCRATCH_"))
    return createStringError(
        "'%s' is refused: scratch needs the descriptor's private segment, "
        "which an edit may not change",
        lowerName(Name).c_str());
  for (const MCOperand &Op : Inst) {
    if (Op.isExpr()) {
      int64_t V;
      if (!Op.getExpr()->evaluateAsAbsolute(V))
        return createStringError("an operand names a symbol; edits take "
                                 "constant operands only");
    }
    if (!Op.isReg() || !Op.getReg())
      continue;
    if (Error E = checkRegister(TC, Op.getReg()))
      return E;
  }
  return Error::success();
}

Error asmevo::checkRemovable(const TargetContext &TC, unsigned Opc) {
  StringRef Name = TC.opcodeName(Opc);
  const MCInstrDesc &D = TC.instrInfo().get(Opc);
  if (hasPrefix(Name, NeverCreated) || D.isCall() || D.isReturn() ||
      D.isBranch() || D.isIndirectBranch() || D.isTerminator() ||
      D.isBarrier())
    return createStringError(
        "'%s' is control flow, program end, a message, a trap or a mode "
        "change: edits may not delete, replace, move or change it",
        lowerName(Name).c_str());
  return Error::success();
}

Expected<MCInst> asmevo::parseEditInstruction(const TargetContext &TC,
                                              StringRef Line) {
  StringRef T = Line.trim();
  if (T.empty())
    return createStringError("empty line; one instruction per line");
  if (T.find_first_of("\n\r") != StringRef::npos)
    return createStringError("a line break inside a line; one instruction "
                             "per line");
  if (T.starts_with("."))
    return createStringError("'%s' is a directive; edits hold instructions "
                             "only",
                             T.split(' ').first.str().c_str());
  SourceMgr SM;
  std::string Diag;
  SM.setDiagHandler(
      [](const SMDiagnostic &D, void *Ctx) {
        auto &S = *static_cast<std::string *>(Ctx);
        if (S.empty() && D.getKind() == SourceMgr::DK_Error)
          S = D.getMessage().str();
      },
      &Diag);
  SM.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(T.str() + "\n",
                                                       "<edit>"),
                        SMLoc());
  MCContext Ctx(TC.triple(), &TC.asmInfo(), &TC.regInfo(), &TC.subtargetInfo(),
                &SM);
  MCObjectFileInfo MOFI;
  Ctx.setObjectFileInfo(&MOFI);
  MOFI.initMCObjectFileInfo(Ctx, /*PIC=*/true);
  InstrOnlyStreamer S(Ctx);
  (void)TC.target().createNullTargetStreamer(S); // Owned by the streamer.
  S.initSections(false, TC.subtargetInfo());
  S.Armed = true;
  std::unique_ptr<MCAsmParser> P(createMCAsmParser(SM, Ctx, S, TC.asmInfo()));
  std::unique_ptr<MCTargetAsmParser> TAP(TC.target().createMCAsmParser(
      TC.subtargetInfo(), *P, TC.instrInfo(), TC.mcOptions()));
  if (!TAP)
    return createStringError("no AMDGPU assembler in this LLVM");
  P->setTargetParser(*TAP);
  bool Failed = P->Run(/*NoInitialTextSection=*/true, /*NoFinalize=*/true);
  if (Failed || !Diag.empty())
    return createStringError("'%s': the assembler refuses it: %s",
                             T.str().c_str(),
                             Diag.empty() ? "error" : Diag.c_str());
  if (!S.Other.empty())
    return createStringError("'%s' is %s, not an instruction; edits hold "
                             "instructions only",
                             T.str().c_str(), S.Other.c_str());
  if (S.Insts.size() != 1)
    return createStringError("'%s' holds %zu instructions; one per line",
                             T.str().c_str(), S.Insts.size());
  if (Error E = checkCreatable(TC, S.Insts.front()))
    return createStringError("'" + T + "': " + toString(std::move(E)));
  return S.Insts.front();
}
