//===- ObjectEmitter.cpp - Relocatable object from a lifted module --------===//
//
// Reproduces the input's relocatable form: every section lld would not
// synthesize, every symbol with its binding, type, visibility and size, in
// the original order, so that an identity rebuild linked by LLD 22 gives
// the input back byte for byte. Code is streamed instruction by instruction;
// an instruction keeps its original bytes unless an edit changed it, and
// branch targets, PC-relative literals and descriptor entry offsets become
// fixups so that code can move.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Emit/Rebuild.h"
#include "asmevo/Support/Recover.h"
#include "asmevo/Emit/AsmText.h"
#include "asmevo/Emit/DescriptorDirectives.h"
#include "asmevo/Emit/Resources.h"
#include "../Lift/FunctionLifter.h"
#include "asmevo/Lift/SymbolRefs.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include "llvm/MC/MCAsmBackend.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCELFStreamer.h"
#include "llvm/MC/MCObjectFileInfo.h"
#include "llvm/MC/MCObjectWriter.h"
#include "llvm/MC/MCParser/MCAsmParser.h"
#include "llvm/MC/MCParser/MCTargetAsmParser.h"
#include "llvm/MC/MCSectionELF.h"
#include "llvm/MC/MCStreamer.h"
#include "llvm/MC/MCSymbolELF.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/FormattedStream.h"
#include "llvm/MC/MCInstPrinter.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <set>

using namespace llvm;
using namespace asmevo;

namespace {

constexpr uint32_t SNop0 = 0xbf800000;

bool isLinkerSynthesized(const ELFSection &S) {
  switch (S.Type) {
  case ELF::SHT_NULL:
  case ELF::SHT_SYMTAB:
  case ELF::SHT_DYNSYM:
  case ELF::SHT_STRTAB:
  case ELF::SHT_HASH:
  case ELF::SHT_GNU_HASH:
  case ELF::SHT_DYNAMIC:
  case ELF::SHT_RELA:
  case ELF::SHT_REL:
    return true;
  default:
    // lld re-creates the GOT from gotpcrel references and the build ID
    // from --build-id.
    return S.Name == ".relro_padding" || S.Name == ".got" ||
           S.Name == ".note.gnu.build-id";
  }
}

class ObjectEmitter {
public:
  ObjectEmitter(const LiftedModule &LM, RebuildResult &R,
                std::string *AsmOut = nullptr)
      : LM(LM), CO(LM.original()), TC(LM.target()), R(R), AsmOut(AsmOut) {}
  Error run();

private:
  Error setUp(raw_pwrite_stream &OS);
  Error emitSection(const ELFSection &S);
  Error emitCodeSection(const ELFSection &S);
  Error emitFunction(const LiftedFunction &LF, uint64_t SecNewBase);
  Error emitInstruction(const MachineInstr &MI, const LiftedModule::Origin &O,
                        const LiftedFunction &LF);
  void emitRaw(ArrayRef<uint8_t> B) {
    if (AsmOut && InCode && B.size() % 4 == 0) {
      // Code words read best as .long.
      for (size_t I = 0; I < B.size(); I += 4)
        Streamer->emitIntValue(support::endian::read32le(B.data() + I), 4);
    } else {
      Streamer->emitBytes(StringRef(reinterpret_cast<const char *>(B.data()),
                                    B.size()));
    }
    Cur += B.size();
  }
  /// Assembler text only: original instruction bytes, spelled as text when
  /// that text assembles back to them, else as words with a comment.
  void emitOriginalInstruction(const MCInst &Inst, ArrayRef<uint8_t> Bytes,
                               uint64_t Addr);
  void checkPrintable(const LiftedFunction &LF);
  void emitNops(uint64_t Bytes) {
    for (uint64_t I = 0; I < Bytes / 4; ++I)
      Streamer->emitIntValue(SNop0, 4);
    Cur += Bytes / 4 * 4;
  }
  void defineSymbolsAt(uint64_t OrigAddr, const ELFSection &S);
  void declareSymbols();
  void emitVisibility(MCSymbol *Sym, uint8_t Other);
  MCSymbol *symbolFor(const GlobalValue *GV);
  MCSymbol *sectionStart(StringRef SecName);
  const MCExpr *gaExpr(const MachineOperand &MO);
  Expected<MCInst> lower(const MachineInstr &MI);

  const LiftedModule &LM;
  const CodeObject &CO;
  const TargetContext &TC;
  RebuildResult &R;

  std::unique_ptr<MCContext> Ctx;
  std::unique_ptr<MCObjectFileInfo> MOFI;
  std::unique_ptr<MCStreamer> Streamer;
  std::unique_ptr<MCCodeEmitter> SizeEmitter;
  SourceMgr SrcMgr;
  std::map<std::string, MCSymbol *> SecStart;
  std::map<const MachineBasicBlock *, MCSymbol *> BlockLabel;
  std::map<unsigned, MCSymbol *> KernelEntry; // kernel index -> entry label
  // Original-address symbols of the section being emitted.
  std::multimap<uint64_t, const ELFSymbol *> PendingSyms;
  std::vector<std::pair<const ELFSymbol *, MCSymbol *>> SymOrder;
  /// The MC symbol of each ELF symbol: by name, except for local symbols
  /// whose name another symbol also has (two static functions of one name
  /// in different files), which get symbols of their own.
  std::map<const ELFSymbol *, MCSymbol *> SymFor;
  MCSymbol *mcSymbol(const ELFSymbol &S) {
    auto It = SymFor.find(&S);
    return It != SymFor.end() ? It->second : Ctx->getOrCreateSymbol(S.Name);
  }
  std::string MCErrors;
  uint32_t SpecRel64 = 0;
  /// Machine operand target flag -> MC relocation specifier.
  std::map<unsigned, uint32_t> SpecForFlag;
  uint64_t Cur = 0; // offset in the section being emitted
  std::string *AsmOut = nullptr;
  std::unique_ptr<raw_string_ostream> AsmStream;
  bool InCode = false;
  bool CodeMoved = false;
  /// The address map's name of the function being emitted.
  StringRef CurFunction;
  /// Functions with an instruction that is not as lifted.
  std::set<const LiftedFunction *> ChangedFunctions;
  /// Per kernel, after the code is emitted.
  std::vector<KernelResources> Resources;
  /// The note section's new bytes when an edit raised a kernel's register
  /// counts (the metadata's .vgpr_count / .agpr_count / .sgpr_count).
  std::vector<uint8_t> NewNotes;
  unsigned NewNotesSection = ~0u;
  void updateMetadata();
  std::map<uint64_t, bool> Printable; // original address -> text is exact
  /// Assembler text only: per kernel, directives or raw bytes.
  std::vector<DescriptorForm> DescForms;
};

} // namespace

Error ObjectEmitter::setUp(raw_pwrite_stream &OS) {
  const Target &T = TC.target();
  Ctx = std::make_unique<MCContext>(TC.triple(), &TC.asmInfo(), &TC.regInfo(),
                                    &TC.subtargetInfo(), &SrcMgr);
  // MC reports problems (a symbol defined twice, a fixup out of range) and
  // carries on; collect them so that they fail the rebuild.
  Ctx->setDiagnosticHandler([this](const SMDiagnostic &D, bool, const SourceMgr &,
                                   std::vector<const MDNode *> &) {
    if (D.getKind() != SourceMgr::DK_Error)
      return;
    if (!MCErrors.empty())
      MCErrors += "; ";
    MCErrors += D.getMessage().str();
  });
  MOFI = std::make_unique<MCObjectFileInfo>();
  Ctx->setObjectFileInfo(MOFI.get());
  MOFI->initMCObjectFileInfo(*Ctx, /*PIC=*/true);
  std::unique_ptr<MCAsmBackend> MAB(T.createMCAsmBackend(
      TC.subtargetInfo(), TC.regInfo(), TC.mcOptions()));
  std::unique_ptr<MCCodeEmitter> CE(
      T.createMCCodeEmitter(TC.instrInfo(), *Ctx));
  SizeEmitter.reset(T.createMCCodeEmitter(TC.instrInfo(), *Ctx));
  if (!MAB || !CE || !SizeEmitter)
    return createStringError("cannot create the AMDGPU object emitter");
  if (AsmOut) {
    AsmStream = std::make_unique<raw_string_ostream>(*AsmOut);
    std::unique_ptr<MCInstPrinter> IP(TC.target().createMCInstPrinter(
        TC.triple(), 0, TC.asmInfo(), TC.instrInfo(), TC.regInfo()));
    Streamer.reset(T.createAsmStreamer(
        *Ctx, std::make_unique<formatted_raw_ostream>(*AsmStream),
        std::move(IP), std::move(CE), std::move(MAB)));
  } else {
    auto OW = MAB->createObjectWriter(OS);
    Streamer.reset(T.createMCObjectStreamer(TC.triple(), *Ctx, std::move(MAB),
                                            std::move(OW), std::move(CE),
                                            TC.subtargetInfo()));
  }
  if (!Streamer)
    return createStringError("cannot create the object streamer");
  Streamer->initSections(false, TC.subtargetInfo());

  // e_flags and the ABI version have no public setter: the AMDGPU asm
  // parser's directives reach the target streamer that owns them.
  std::string Dir = "\t.amdgcn_target \"" + CO.target().targetID() +
                    "\"\n\t.amdhsa_code_object_version " +
                    std::to_string(CO.target().CodeObjectVersion) + "\n";
  SrcMgr.AddNewSourceBuffer(MemoryBuffer::getMemBufferCopy(Dir, "<target>"),
                            SMLoc());
  std::unique_ptr<MCAsmParser> P(
      createMCAsmParser(SrcMgr, *Ctx, *Streamer, TC.asmInfo()));
  std::unique_ptr<MCTargetAsmParser> TAP(T.createMCAsmParser(
      TC.subtargetInfo(), *P, TC.instrInfo(), TC.mcOptions()));
  if (!TAP)
    return createStringError("cannot create the AMDGPU asm parser");
  P->setTargetParser(*TAP);
  if (P->Run(/*NoInitialTextSection=*/true, /*NoFinalize=*/true))
    return createStringError("cannot set target " + CO.target().targetID());
  if (AsmOut) {
    std::string Args;
    for (const std::string &A : lldArgsFor(CO))
      Args += " " + A;
    Streamer->emitRawComment(" " + lldArgsCommentTag() + Args);
    Streamer->emitRawComment(" rebuilt by asmevo-opt from " + CO.name());
  }

  auto Spec = [&](StringRef N) -> Expected<uint32_t> {
    if (auto S = TC.asmInfo().getSpecifierForName(N))
      return *S;
    return createStringError("AMDGPU relocation specifier '" + N +
                             "' unknown to this LLVM");
  };
  auto S64 = Spec("rel64");
  if (!S64)
    return S64.takeError();
  SpecRel64 = *S64;
  // Operand flags are private enums; both sides have names.
  static const std::pair<StringRef, StringRef> FlagNames[] = {
      {"amdgpu-rel32-lo", "rel32@lo"},
      {"amdgpu-rel32-hi", "rel32@hi"},
      {"amdgpu-gotprel32-lo", "gotpcrel32@lo"},
      {"amdgpu-gotprel32-hi", "gotpcrel32@hi"}};
  for (const LiftedFunction &LF : LM.functions()) {
    if (!LF.MF)
      continue;
    for (auto &P : LF.MF->getSubtarget()
                       .getInstrInfo()
                       ->getSerializableDirectMachineOperandTargetFlags())
      for (auto &[Flag, SpecName] : FlagNames)
        if (Flag == P.second) {
          auto S = Spec(SpecName);
          if (!S)
            return S.takeError();
          SpecForFlag[P.first] = *S;
        }
    break;
  }
  return Error::success();
}

MCSymbol *ObjectEmitter::sectionStart(StringRef SecName) {
  MCSymbol *&S = SecStart[SecName.str()];
  if (!S)
    S = Ctx->createTempSymbol("asmevo_sec", true);
  return S;
}

MCSymbol *ObjectEmitter::symbolFor(const GlobalValue *GV) {
  StringRef N = GV->getName();
  if (N.starts_with(SectionStartPrefix))
    return sectionStart(N.drop_front(StringRef(SectionStartPrefix).size()));
  return Ctx->getOrCreateSymbol(N);
}

const MCExpr *ObjectEmitter::gaExpr(const MachineOperand &MO) {
  auto It = SpecForFlag.find(MO.getTargetFlags());
  uint32_t Spec = It == SpecForFlag.end() ? 0 : It->second;
  const MCExpr *E =
      MCSymbolRefExpr::create(symbolFor(MO.getGlobal()), Spec, *Ctx);
  if (MO.getOffset())
    E = MCBinaryExpr::createAdd(
        E, MCConstantExpr::create(MO.getOffset(), *Ctx), *Ctx);
  return E;
}

Expected<MCInst> ObjectEmitter::lower(const MachineInstr &MI) {
  MCInst Inst;
  Inst.setOpcode(MI.getOpcode());
  unsigned N = MI.getDesc().getNumOperands();
  for (unsigned I = 0; I < N && I < MI.getNumOperands(); ++I) {
    const MachineOperand &MO = MI.getOperand(I);
    switch (MO.getType()) {
    case MachineOperand::MO_Register:
      Inst.addOperand(MCOperand::createReg(MO.getReg()));
      break;
    case MachineOperand::MO_Immediate:
      Inst.addOperand(MCOperand::createImm(MO.getImm()));
      break;
    case MachineOperand::MO_MachineBasicBlock: {
      MCSymbol *&L = BlockLabel[MO.getMBB()];
      if (!L)
        L = Ctx->createTempSymbol("asmevo_bb", true);
      Inst.addOperand(MCOperand::createExpr(MCSymbolRefExpr::create(L, *Ctx)));
      break;
    }
    case MachineOperand::MO_GlobalAddress:
      Inst.addOperand(MCOperand::createExpr(gaExpr(MO)));
      break;
    default: {
      std::string S;
      raw_string_ostream OS(S);
      MI.print(OS);
      return createStringError("cannot encode operand %u of: %s", I,
                               S.c_str());
    }
    }
  }
  return Inst;
}

/// True when every operand is what the original bytes encode, so the
/// original bytes (with forced literals and bits LLVM's printer drops) are
/// still the right encoding.
/// The bytes an instruction at original address \p A can occupy: up to 32
/// (longer than any encoding; gfx950 scaled MFMA is 16), within its section.
static Expected<ArrayRef<uint8_t>> instructionWindow(const CodeObject &CO,
                                                     uint64_t A) {
  const ELFSection *Sec = CO.sectionForAddr(A);
  if (!Sec)
    return createStringError("original address 0x%llx is in no section",
                             (unsigned long long)A);
  return CO.bytesAt(A, std::min<uint64_t>(32, Sec->Addr + Sec->Size - A));
}

/// True when every explicit operand is what the original bytes encode, so
/// the original bytes (with forced literals and bits LLVM's printer drops)
/// are still the right encoding. Implicit operands do not reach the
/// encoding.
static bool sameAsOriginal(const LiftedModule &LM, const MachineInstr &MI,
                           const MCInst &Orig, uint64_t Addr) {
  MachineFunction &MF = *const_cast<MachineFunction *>(MI.getMF());
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  if (Orig.getOpcode() != MI.getOpcode())
    return false;
  MachineInstr *Tmp = MF.CreateMachineInstr(TII.get(Orig.getOpcode()),
                                            DebugLoc());
  addOperandsFromMCInst(MF, *Tmp, Orig);
  unsigned N = MI.getDesc().getNumOperands();
  bool Same = Tmp->getNumOperands() >= N && MI.getNumOperands() >= N;
  for (unsigned I = 0; Same && I < N; ++I) {
    const MachineOperand &A = MI.getOperand(I), &B = Tmp->getOperand(I);
    if (A.isMBB() && B.isImm()) {
      // A branch: same when its block starts where the original jumped.
      uint64_t Target = Addr + 4 + (int64_t)(int16_t)B.getImm() * 4;
      std::optional<uint64_t> First;
      for (const MachineInstr &T : *A.getMBB())
        if ((First = LM.addressOf(T)))
          break;
      Same = First && *First == Target;
      continue;
    }
    if (A.isGlobal() && B.isImm())
      continue; // A PC-relative literal made symbolic at lift time.
    if (A.getType() != B.getType()) {
      Same = false;
      break;
    }
    if (A.isReg())
      Same = A.getReg() == B.getReg() && A.isDef() == B.isDef();
    else if (A.isImm())
      Same = A.getImm() == B.getImm();
    else
      Same = A.isIdenticalTo(B);
  }
  MF.deleteMachineInstr(Tmp);
  return Same;
}

bool asmevo::unchangedSinceLift(const LiftedModule &LM,
                                const MachineInstr &MI) {
  LiftedModule::Origin O = LM.origin(MI);
  std::optional<uint64_t> A = O.Addr;
  if (!A)
    return false;
  if (O.UnchangedSize)
    return true;
  // No lift-time fingerprint (read from MIR): decode the original.
  auto B = instructionWindow(LM.original(), *A);
  if (!B) {
    consumeError(B.takeError());
    return false;
  }
  MCInst Inst;
  uint64_t Size;
  return LM.target().disassembler().getInstruction(Inst, Size, *B, *A,
                                                   nulls()) ==
             MCDisassembler::Success &&
         sameAsOriginal(LM, MI, Inst, *A);
}

Error ObjectEmitter::emitInstruction(const MachineInstr &MI,
                                     const LiftedModule::Origin &O,
                                     const LiftedFunction &LF) {
  std::optional<uint64_t> Orig = O.Addr;
  uint64_t NewOff = Cur;
  bool Symbolic = false;
  for (const MachineOperand &MO : MI.explicit_operands())
    if (MO.isMBB() || MO.isGlobal())
      Symbolic = true;

  if (Orig && !Symbolic && !AsmOut) {
    if (uint32_t Size = O.UnchangedSize) {
      auto B = CO.bytesAt(*Orig, Size);
      if (!B)
        return B.takeError();
      emitRaw(*B);
      R.AddressMap.push_back({NewOff, Orig, CurFunction});
      return Error::success();
    }
  }
  if (Orig && !Symbolic) {
    // Re-decode the original to find out whether an edit touched it.
    auto BytesOrErr = instructionWindow(CO, *Orig);
    if (!BytesOrErr)
      return BytesOrErr.takeError();
    MCInst OrigInst;
    uint64_t Size = 0;
    bool Decoded = TC.disassembler().getInstruction(OrigInst, Size, *BytesOrErr,
                                                    *Orig, nulls()) ==
                   MCDisassembler::Success;
    if (Decoded && sameAsOriginal(LM, MI, OrigInst, *Orig)) {
      if (AsmOut)
        emitOriginalInstruction(OrigInst, BytesOrErr->take_front(Size), *Orig);
      else
        emitRaw(BytesOrErr->take_front(Size));
      R.AddressMap.push_back({NewOff, Orig, CurFunction});
      return Error::success();
    }
    // An edited instruction is re-encoded from its operands. Refuse when the
    // original itself does not survive that (bits MachineIR cannot hold, as
    // op_sel on gfx950 scaled MFMA): the edit would silently drop them.
    if (Decoded) {
      SmallVector<char, 16> Again;
      SmallVector<MCFixup, 2> Fixups;
      MCInst Norm = OrigInst;
      SizeEmitter->encodeInstruction(Norm, Again, Fixups, TC.subtargetInfo());
      if (Again.size() != Size ||
          memcmp(Again.data(), BytesOrErr->data(), Size) != 0)
        return createStringError(
            "function '%s': the instruction at 0x%llx was edited, but LLVM "
            "cannot re-encode it without losing bits (%s); edit refused",
            LF.Range.Name.c_str(), (unsigned long long)*Orig,
            TC.opcodeName(OrigInst.getOpcode()).str().c_str());
    }
  }
  auto InstOrErr = lower(MI);
  if (!InstOrErr)
    return InstOrErr.takeError();
  if (!Orig || (!O.UnchangedSize && !unchangedSinceLift(LM, MI)))
    ChangedFunctions.insert(&LF);
  SmallVector<char, 16> Buf;
  SmallVector<MCFixup, 2> Fixups;
  SizeEmitter->encodeInstruction(*InstOrErr, Buf, Fixups, TC.subtargetInfo());
  Streamer->emitInstruction(*InstOrErr, TC.subtargetInfo());
  Cur += Buf.size();
  R.AddressMap.push_back({NewOff, Orig, CurFunction});
  return Error::success();
}

void ObjectEmitter::defineSymbolsAt(uint64_t OrigAddr, const ELFSection &S) {
  auto Range = PendingSyms.equal_range(OrigAddr);
  for (auto It = Range.first; It != Range.second; ++It) {
    MCSymbol *Sym = mcSymbol(*It->second);
    if (!Sym->isDefined())
      Streamer->emitLabel(Sym);
  }
  PendingSyms.erase(Range.first, Range.second);
}

Error ObjectEmitter::emitFunction(const LiftedFunction &LF,
                                  uint64_t SecNewBase) {
  const ELFSection &Sec = *CO.sectionForAddr(LF.Range.Addr);
  uint64_t FuncNew = Cur;
  CurFunction = R.keepName(LF.Range.Name);
  // The function's symbols mark its start, even when an edit put new
  // instructions before its first original one.
  defineSymbolsAt(LF.Range.Addr, Sec);
  if (LF.Range.IsKernel) {
    MCSymbol *E = Ctx->createTempSymbol("asmevo_entry", true);
    Streamer->emitLabel(E);
    KernelEntry[LF.Range.KernelIndex] = E;
  }
  if (!LF.MF) {
    // Non-simple: original bytes at the original address, or nothing.
    if (Cur != LF.Range.Addr - Sec.Addr)
      return createStringError(
          "function '%s' is not simple (%s) and cannot move from 0x%llx",
          LF.Range.Name.c_str(), LF.Reason.c_str(),
          (unsigned long long)LF.Range.Addr);
    auto B = CO.bytesAt(LF.Range.Addr, LF.Range.Size);
    if (!B)
      return B.takeError();
    // The address map covers these too: at instruction granularity as far
    // as they decode, then word by word.
    std::optional<uint64_t> Bad;
    uint64_t End = LF.Range.Addr;
    std::vector<DecodedInst> Decoded = decodeRange(TC, *B, LF.Range.Addr, Bad);
    for (const DecodedInst &D : Decoded) {
      R.AddressMap.push_back({Cur + (D.Addr - LF.Range.Addr), D.Addr,
                              CurFunction});
      End = D.Addr + D.Size;
    }
    if (AsmOut) {
      Streamer->emitRawComment(" non-simple: " + LF.Reason +
                               "; original bytes at the original address");
      for (const DecodedInst &D : Decoded) {
        defineSymbolsAt(D.Addr, Sec);
        std::string Text;
        raw_string_ostream TOS(Text);
        TC.printer().printInst(&D.Inst, D.Addr, "", TC.subtargetInfo(), TOS);
        Streamer->AddComment(StringRef(Text).trim());
        emitRaw(B->slice(D.Addr - LF.Range.Addr, D.Size));
      }
      emitRaw(B->drop_front(End - LF.Range.Addr));
      return Error::success();
    }
    for (uint64_t A = End; A + 4 <= LF.Range.Addr + LF.Range.Size; A += 4)
      R.AddressMap.push_back({Cur + (A - LF.Range.Addr), A, CurFunction});
    for (uint64_t A = LF.Range.Addr; A < LF.Range.Addr + LF.Range.Size; ++A)
      if (PendingSyms.count(A)) {
        emitRaw(B->slice(Cur - (LF.Range.Addr - Sec.Addr),
                         A - Sec.Addr - Cur));
        defineSymbolsAt(A, Sec);
      }
    emitRaw(B->drop_front(Cur - (LF.Range.Addr - Sec.Addr)));
    return Error::success();
  }
  if (AsmOut)
    checkPrintable(LF);
  ArrayRef<LiftedModule::LiftPrint> Prints = LM.liftPrints(*LF.MF);
  size_t NextPrint = 0;
  for (const MachineBasicBlock &MBB : *LF.MF) {
    if (&MBB == LF.PreloadEntry && Cur - FuncNew != 256)
      return createStringError(
          "kernel '%s': the preload prologue is now %llu bytes; the second "
          "entry must stay at +256",
          LF.Range.Name.c_str(), (unsigned long long)(Cur - FuncNew));
    MCSymbol *&L = BlockLabel[&MBB];
    if (!L)
      L = Ctx->createTempSymbol("asmevo_bb", true);
    Streamer->emitLabel(L);
    for (const MachineInstr &MI : MBB) {
      // Unedited functions match their lift prints one for one.
      const LiftedModule::LiftPrint *P = nullptr;
      if (NextPrint < Prints.size() && Prints[NextPrint].MI == &MI)
        P = &Prints[NextPrint++];
      LiftedModule::Origin O = LM.origin(MI, P);
      if (O.Addr)
        defineSymbolsAt(*O.Addr, Sec);
      if (Error E = emitInstruction(MI, O, LF))
        return E;
    }
  }
  (void)SecNewBase;
  // Function symbols that covered the whole function now cover what it
  // became (an edit may have grown it).
  MCSymbol *End = Ctx->createTempSymbol("asmevo_end", true);
  Streamer->emitLabel(End);
  const auto &Syms = CO.symbols().empty() ? CO.dynamicSymbols() : CO.symbols();
  for (const ELFSymbol &S : Syms)
    if (S.Value == LF.Range.Addr && S.Size == LF.Range.Size &&
        S.Type == ELF::STT_FUNC && S.SectionIndex == Sec.Index) {
      MCSymbol *Sym = mcSymbol(S);
      Streamer->emitELFSize(
          Sym, MCBinaryExpr::createSub(MCSymbolRefExpr::create(End, *Ctx),
                                       MCSymbolRefExpr::create(Sym, *Ctx),
                                       *Ctx));
    }
  return Error::success();
}

Error ObjectEmitter::emitCodeSection(const ELFSection &S) {
  std::vector<const LiftedFunction *> Funcs;
  for (const LiftedFunction &LF : LM.functions())
    if (S.containsAddr(LF.Range.Addr))
      Funcs.push_back(&LF);
  llvm::sort(Funcs, [](auto *A, auto *B) { return A->Range.Addr < B->Range.Addr; });
  uint64_t OrigCur = S.Addr;
  for (const LiftedFunction *LF : Funcs) {
    if (LF->Range.Addr < OrigCur)
      continue; // Overlapping symbols: the first one covers it.
    bool Moved = Cur != OrigCur - S.Addr;
    CodeMoved |= Moved;
    if (!Moved) {
      // Padding between functions, verbatim, with any symbols in it.
      for (uint64_t A = OrigCur; A < LF->Range.Addr; A += 4) {
        defineSymbolsAt(A, S);
        emitRaw(S.Bytes.slice(A - S.Addr, std::min<uint64_t>(4, LF->Range.Addr - A)));
      }
    } else {
      uint64_t A = LF->Range.Addr;
      uint64_t Alignment = std::min<uint64_t>(256, A & -A);
      emitNops(alignTo(Cur, Alignment) - Cur);
    }
    // The function's alignment as a directive too: assembler text that is
    // edited and reassembled must keep later kernels' entries 256-byte
    // aligned (the padding above is a byte count). At an offset already
    // aligned it adds nothing, so an unedited rebuild stays byte-identical.
    uint64_t FA = LF->Range.Addr;
    uint64_t FAlign = FA ? std::min<uint64_t>(256, FA & -FA) : 256;
    if (FAlign > 4)
      Streamer->emitCodeAlignment(Align(FAlign), &TC.subtargetInfo());
    if (Error E = emitFunction(*LF, 0))
      return E;
    OrigCur = LF->Range.Addr + LF->Range.Size;
  }
  CodeMoved |= Cur != OrigCur - S.Addr;
  // The tail (gfx94x pads code ends with s_nop 0).
  for (uint64_t A = OrigCur; A < S.Addr + S.Size; A += 4) {
    defineSymbolsAt(A, S);
    emitRaw(S.Bytes.slice(A - S.Addr, std::min<uint64_t>(4, S.Addr + S.Size - A)));
  }
  return Error::success();
}

Error ObjectEmitter::emitSection(const ELFSection &S) {
  unsigned Flags = S.Flags & ~(unsigned)ELF::SHF_INFO_LINK;
  MCSectionELF *Sec =
      Ctx->getELFSection(S.Name, S.Type, Flags, S.EntSize, "", false);
  Streamer->switchSection(Sec);
  // An explicit alignment (not only the section's minimum) so that
  // assembler text carries it too; at offset 0 it emits no padding.
  Align SecAlign(PowerOf2Ceil(std::max<uint64_t>(1, S.Align)));
  Sec->ensureMinAlignment(SecAlign);
  if (SecAlign > Align(1))
    Streamer->emitValueToAlignment(SecAlign);
  Cur = 0;
  Streamer->emitLabel(sectionStart(S.Name));
  PendingSyms.clear();
  const auto &Syms = CO.symbols().empty() ? CO.dynamicSymbols() : CO.symbols();
  for (const ELFSymbol &Sym : Syms)
    if (Sym.SectionIndex == S.Index && Sym.Type != ELF::STT_SECTION &&
        !Sym.Name.empty() && Sym.Name != "_DYNAMIC")
      PendingSyms.emplace(Sym.Value, &Sym);

  InCode = S.isExec();
  if (S.isExec()) {
    if (Error E = emitCodeSection(S))
      return E;
  } else if (S.Type == ELF::SHT_NOBITS) {
    for (auto &[Addr, Sym] : PendingSyms) {
      if (Addr - S.Addr > Cur) {
        Streamer->emitZeros(Addr - S.Addr - Cur);
        Cur = Addr - S.Addr;
      }
      MCSymbol *MS = mcSymbol(*Sym);
      if (!MS->isDefined())
        Streamer->emitLabel(MS);
    }
    PendingSyms.clear();
    if (S.Size > Cur)
      Streamer->emitZeros(S.Size - Cur);
    Cur = S.Size;
  } else {
    // Data: bytes verbatim; descriptors get their entry offset as a fixup.
    ArrayRef<uint8_t> Content =
        S.Index == NewNotesSection ? ArrayRef<uint8_t>(NewNotes) : S.Bytes;
    std::map<uint64_t, unsigned> KDAt;
    for (unsigned I = 0; I < CO.kernels().size(); ++I)
      if (S.containsAddr(CO.kernels()[I].DescriptorAddr))
        KDAt[CO.kernels()[I].DescriptorAddr - S.Addr] = I;
    uint64_t Off = 0;
    auto Flush = [&](uint64_t To) {
      while (Off < To) {
        uint64_t A = S.Addr + Off;
        auto Next = PendingSyms.lower_bound(A);
        if (Next != PendingSyms.end() && Next->first == A) {
          defineSymbolsAt(A, S);
          continue;
        }
        uint64_t End = To;
        if (Next != PendingSyms.end() && Next->first - S.Addr < End)
          End = Next->first - S.Addr;
        emitRaw(Content.slice(Off, End - Off));
        Off = End;
      }
    };
    for (auto &[KOff, KIdx] : KDAt) {
      if (KOff + KernelDescriptor::Size > Content.size())
        return createStringError("kernel descriptor beyond section end");
      Flush(KOff);
      const KernelDescriptor &Effective = Resources[KIdx].KD;
      if (AsmOut && DescForms[KIdx].usesDirectives()) {
        // The directive block defines NAME.kd itself.
        auto [Lo, Hi] = PendingSyms.equal_range(S.Addr + KOff);
        for (auto It = Lo; It != Hi;)
          It = It->second->Name == CO.kernels()[KIdx].DescriptorSymbol
                   ? PendingSyms.erase(It)
                   : std::next(It);
        defineSymbolsAt(S.Addr + KOff, S);
        Streamer->emitRawComment(
            " kernel descriptor of " + CO.kernels()[KIdx].Name +
            " (these directives re-assemble to its exact bytes)");
        Streamer->emitRawText(DescForms[KIdx].Directives);
        if (const ELFSymbol *K = DescForms[KIdx].DeferredVisibility)
          emitVisibility(mcSymbol(*K), K->Other);
        Cur += KernelDescriptor::Size;
        Off = KOff + KernelDescriptor::Size;
        continue;
      }
      defineSymbolsAt(S.Addr + KOff, S);
      ArrayRef<uint8_t> KD = Effective.bytes();
      if (AsmOut) {
        // Raw bytes are exact where .amdhsa_kernel directives are not (see
        // notes/lifting.md); the decoded fields ride along as comments.
        std::string Fields;
        raw_string_ostream FOS(Fields);
        Effective.printYAML(FOS, 0);
        Streamer->emitRawComment(" kernel descriptor of " +
                                 CO.kernels()[KIdx].Name);
        Streamer->emitRawComment(" raw bytes, not .amdhsa_kernel: " +
                                 DescForms[KIdx].Reason);
        SmallVector<StringRef, 24> Lines;
        StringRef(Fields).split(Lines, '\n', -1, false);
        for (StringRef L : Lines)
          Streamer->emitRawComment("   " + L);
      }
      emitRaw(KD.take_front(16));
      MCSymbol *Entry = KernelEntry[KIdx];
      if (!Entry)
        return createStringError("kernel '%s' has no emitted entry",
                                 CO.kernels()[KIdx].Name.c_str());
      Streamer->emitValue(
          MCBinaryExpr::createAdd(
              MCSymbolRefExpr::create(Entry, SpecRel64, *Ctx),
              MCConstantExpr::create(16, *Ctx), *Ctx),
          8);
      Cur += 8;
      emitRaw(KD.drop_front(24));
      if (AsmOut)
        if (const ELFSymbol *K = DescForms[KIdx].DeferredVisibility)
          emitVisibility(mcSymbol(*K), K->Other);
      Off = KOff + KernelDescriptor::Size;
    }
    Flush(Content.size());
    defineSymbolsAt(S.Addr + S.Size, S);
  }
  if (!PendingSyms.empty()) {
    // Symbols past the emitted content (e.g. end markers).
    for (auto &[A, Sym] : PendingSyms) {
      MCSymbol *MS = mcSymbol(*Sym);
      if (!MS->isDefined())
        Streamer->emitLabel(MS);
    }
    PendingSyms.clear();
  }
  return Error::success();
}

void ObjectEmitter::emitVisibility(MCSymbol *Sym, uint8_t Other) {
  switch (Other & 3) {
  case ELF::STV_PROTECTED:
    Streamer->emitSymbolAttribute(Sym, MCSA_Protected);
    break;
  case ELF::STV_HIDDEN:
    Streamer->emitSymbolAttribute(Sym, MCSA_Hidden);
    break;
  case ELF::STV_INTERNAL:
    Streamer->emitSymbolAttribute(Sym, MCSA_Internal);
    break;
  default:
    break;
  }
}

void ObjectEmitter::declareSymbols() {
  const auto &Syms = CO.symbols().empty() ? CO.dynamicSymbols() : CO.symbols();
  std::map<std::string, unsigned> NameCount;
  for (const ELFSymbol &S : Syms)
    ++NameCount[S.Name];
  for (const ELFSymbol &S : Syms) {
    if (S.Name.empty() || S.Type == ELF::STT_SECTION || S.Type == ELF::STT_FILE ||
        S.Name == "_DYNAMIC")
      continue;
    MCSymbol *Sym = NameCount[S.Name] > 1 && S.Binding == ELF::STB_LOCAL
                        ? Ctx->createLocalSymbol(S.Name)
                        : Ctx->getOrCreateSymbol(S.Name);
    SymFor[&S] = Sym;
    SymOrder.push_back({&S, Sym});
  }
}

Error ObjectEmitter::run() {
  SmallVector<char, 0> Buf;
  raw_svector_ostream OS(Buf);
  if (Error E = setUp(OS))
    return E;
  declareSymbols();
  size_t NumInstrs = 0;
  for (const LiftedFunction &LF : LM.functions())
    NumInstrs += LF.NumInstrs;
  R.AddressMap.reserve(R.AddressMap.size() + NumInstrs);
  if (AsmOut)
    DescForms = planDescriptorSymbols(CO);
  std::set<const ELFSymbol *> VisibilityAfterDescriptor;
  for (const DescriptorForm &F : DescForms)
    VisibilityAfterDescriptor.insert(F.DeferredVisibility);
  // Symbols enter the object's symbol table in the order they are first
  // seen; attributes first keeps the original order.
  for (auto &[S, Sym] : SymOrder) {
    if (S->SectionIndex == ELF::SHN_ABS) {
      Streamer->emitAssignment(Sym, MCConstantExpr::create(S->Value, *Ctx));
    }
    MCSymbolAttr Type = MCSA_ELF_TypeNoType;
    if (S->Type == ELF::STT_FUNC)
      Type = MCSA_ELF_TypeFunction;
    else if (S->Type == ELF::STT_OBJECT)
      Type = MCSA_ELF_TypeObject;
    Streamer->emitSymbolAttribute(Sym, Type);
    if (S->Binding == ELF::STB_GLOBAL)
      Streamer->emitSymbolAttribute(Sym, MCSA_Global);
    else if (S->Binding == ELF::STB_WEAK)
      Streamer->emitSymbolAttribute(Sym, MCSA_Weak);
    else
      Streamer->emitSymbolAttribute(Sym, MCSA_Local);
    if (!VisibilityAfterDescriptor.count(S))
      emitVisibility(Sym, S->Other);
    if (S->Size)
      Streamer->emitELFSize(Sym, MCConstantExpr::create(S->Size, *Ctx));
  }
  // Code first: descriptors need the kernels' entry labels.
  for (const ELFSection &S : CO.sections())
    if (S.isExec())
      if (Error E = emitSection(S))
        return createStringError(CO.name() + ": " + toString(std::move(E)));
  for (unsigned K = 0; K < CO.kernels().size(); ++K)
    Resources.push_back(kernelResources(LM, K, &ChangedFunctions));
  if (AsmOut) {
    std::vector<KernelDescriptor> KDs;
    for (const KernelResources &KR : Resources)
      KDs.push_back(KR.KD);
    chooseDescriptorDirectives(CO, KDs, DescForms);
  }
  updateMetadata();
  std::string Dropped;
  for (const ELFSection &S : CO.sections()) {
    if (S.isExec() || isLinkerSynthesized(S))
      continue;
    if (CodeMoved && StringRef(S.Name).starts_with(".debug")) {
      // Line tables and DIEs name code addresses that no longer hold.
      Dropped += (Dropped.empty() ? "" : ", ") + S.Name;
      continue;
    }
    if (Error E = emitSection(S))
        return createStringError(CO.name() + ": " + toString(std::move(E)));
  }
  if (!Dropped.empty())
    R.Warnings.push_back("code moved, so debug information that no longer "
                         "matches it was dropped: " + Dropped);
  Streamer->finish();
  if (Ctx->hadError() || !MCErrors.empty())
    return createStringError(CO.name() + ": cannot rebuild: " +
                             (MCErrors.empty() ? "the MC layer reported an error"
                                               : MCErrors));
  R.Relocatable.assign(Buf.begin(), Buf.end());
  return Error::success();
}

void ObjectEmitter::checkPrintable(const LiftedFunction &LF) {
  std::vector<PrintCheckItem> Items;
  for (const MachineBasicBlock &MBB : *LF.MF)
    for (const MachineInstr &MI : MBB) {
      std::optional<uint64_t> A = LM.addressOf(MI);
      if (!A)
        continue;
      auto B = instructionWindow(CO, *A);
      if (!B) {
        consumeError(B.takeError());
        continue;
      }
      PrintCheckItem It;
      uint64_t Size;
      if (TC.disassembler().getInstruction(It.Inst, Size, *B, *A, nulls()) !=
          MCDisassembler::Success)
        continue;
      It.Bytes = B->take_front(Size);
      It.Addr = *A;
      Items.push_back(std::move(It));
    }
  std::vector<bool> Ok = printsLosslessly(TC, Items);
  for (unsigned I = 0; I < Items.size(); ++I)
    Printable[Items[I].Addr] = Ok[I];
}

void ObjectEmitter::emitOriginalInstruction(const MCInst &Inst,
                                            ArrayRef<uint8_t> Bytes,
                                            uint64_t Addr) {
  auto PIt = Printable.find(Addr);
  if (PIt != Printable.end() && PIt->second) {
    Streamer->emitInstruction(Inst, TC.subtargetInfo());
    Cur += Bytes.size();
    return;
  }
  std::string Text;
  raw_string_ostream TOS(Text);
  TC.printer().printInst(&Inst, Addr, "", TC.subtargetInfo(), TOS);
  Streamer->AddComment(StringRef(Text).trim() +
                       " (the printed form does not assemble to these bytes)");
  emitRaw(Bytes);
}

void ObjectEmitter::updateMetadata() {
  const ELFNote *Meta = CO.metadataNote();
  if (!Meta || !CO.metadata())
    return;
  msgpack::Document Doc;
  if (!Doc.readFromBlob(StringRef(reinterpret_cast<const char *>(Meta->Desc.data()),
                                  Meta->Desc.size()),
                        false))
    return;
  bool Raised = false, Lowered = false;
  auto Root = Doc.getRoot();
  auto KIt = Root.getMap().find(Doc.getNode("amdhsa.kernels"));
  if (KIt == Root.getMap().end() || !KIt->second.isArray())
    return;
  auto &Arr = KIt->second.getArray();
  for (unsigned K = 0; K < Resources.size(); ++K) {
    int MI = CO.kernels()[K].MetadataIndex;
    if (!Resources[K].Computed || MI < 0 || (unsigned)MI >= Arr.size() ||
        !Arr[MI].isMap())
      continue;
    auto &M = Arr[MI].getMap();
    // Raised only when the edited code names more than the original code
    // did: a note that already declared fewer than the original code names
    // was the producer's choice, and an edit adding nothing keeps it.
    // A kernel whose registers were renumbered states what its code uses,
    // lower counts included (KernelResources::VGPRsAsUsed, SGPRsAsUsed).
    auto Raise = [&](StringRef Key, unsigned V, unsigned Orig,
                     bool AsUsed = false) {
      auto It = M.find(Doc.getNode(Key));
      if (It == M.end() || (It->second.getKind() != msgpack::Type::UInt &&
                            It->second.getKind() != msgpack::Type::Int))
        return;
      uint64_t Old = It->second.getKind() == msgpack::Type::UInt
                         ? It->second.getUInt()
                         : (uint64_t)It->second.getInt();
      if (AsUsed ? V != Old : V > Old && V > Orig) {
        It->second = Doc.getNode(uint64_t(V));
        (V < Old ? Lowered : Raised) = true;
      }
    };
    Raise(".vgpr_count", Resources[K].VGPRs, Resources[K].OrigVGPRs,
          Resources[K].VGPRsAsUsed);
    Raise(".agpr_count", Resources[K].AGPRs, Resources[K].OrigAGPRs,
          Resources[K].VGPRsAsUsed);
    Raise(".sgpr_count", Resources[K].SGPRs, Resources[K].OrigSGPRs,
          Resources[K].SGPRsAsUsed);
  }
  if (!Raised && !Lowered)
    return;
  std::string Blob;
  Doc.writeToBlob(Blob);
  // Re-serialize every note of that section, the metadata one with its new
  // descriptor (ELF note: namesz, descsz, type, name, desc, 4-byte padded).
  for (const ELFNote &N : CO.notes()) {
    if (N.SectionIndex != Meta->SectionIndex)
      continue;
    StringRef Desc = &N == Meta ? StringRef(Blob)
                                : StringRef(reinterpret_cast<const char *>(
                                                N.Desc.data()),
                                            N.Desc.size());
    auto Put32 = [&](uint32_t V) {
      for (int I = 0; I < 4; ++I)
        NewNotes.push_back((V >> (8 * I)) & 0xff);
    };
    Put32(N.Name.size() + 1);
    Put32(Desc.size());
    Put32(N.Type);
    NewNotes.insert(NewNotes.end(), N.Name.begin(), N.Name.end());
    NewNotes.push_back(0);
    NewNotes.resize(alignTo(NewNotes.size(), 4), 0);
    NewNotes.insert(NewNotes.end(), Desc.begin(), Desc.end());
    NewNotes.resize(alignTo(NewNotes.size(), 4), 0);
  }
  NewNotesSection = Meta->SectionIndex;
  if (Raised)
    R.Warnings.push_back("an edit raised register use: the descriptor and "
                         "the metadata note's register counts were updated");
  if (Lowered)
    R.Warnings.push_back("registers were renumbered: the metadata note's "
                         "register counts were lowered to what the code "
                         "uses");
}

StringRef asmevo::lldArgsCommentTag() { return "asmevo-lld-args:"; }

/// Runs the emitter where an MC-layer report_fatal_error (reachable from a
/// hand-edited .mir) becomes an error naming the input.
static Error runEmitter(const LiftedModule &LM, RebuildResult &R,
                        std::string *AsmOut) {
  std::optional<Error> Result;
  if (Error E = runRecoverable(LM.original().name(), [&] {
        Result.emplace(ObjectEmitter(LM, R, AsmOut).run());
      })) {
    if (Result)
      consumeError(std::move(*Result));
    return E;
  }
  return std::move(*Result);
}

Error asmevo::emitRelocatable(const LiftedModule &LM, RebuildResult &R) {
  return runEmitter(LM, R, nullptr);
}

Expected<std::string> asmevo::emitAssembly(const LiftedModule &LM) {
  RebuildResult R;
  std::string Text;
  if (Error E = runEmitter(LM, R, &Text))
    return std::move(E);
  return Text;
}
