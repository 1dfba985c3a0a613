//===- MIRIO.cpp - Lossless MIR text form of a lifted module --------------===//
//
// MIR holds the machine code; what it cannot hold travels in the embedded IR
// module: the original code object image (a private constant, the source
// of descriptors' defaults, notes, data and original encodings), the
// function list with simple/non-simple status, and the kernel descriptors
// as they will be emitted (editable hex).
//
//===----------------------------------------------------------------------===//
#include "asmevo/Lift/LiftedModule.h"
#include "FunctionLifter.h"
#include "asmevo/Support/PhaseTimer.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MIRParser/MIRParser.h"
#include "llvm/CodeGen/MIRPrinter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include <unistd.h>
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

static constexpr const char *ImageGlobal = "__asmevo.image";

static MDString *str(LLVMContext &C, StringRef S) { return MDString::get(C, S); }
static Metadata *i64(LLVMContext &C, uint64_t V) {
  return ConstantAsMetadata::get(ConstantInt::get(Type::getInt64Ty(C), V));
}

/// LiftedFunction's renumbering flags as one integer (bit 0: VGPRs and
/// AGPRs, bit 1: SGPRs): the declared counts the emitter writes depend on
/// them, so a .mir read back must rebuild what the module would have.
static uint64_t renumberedBits(const LiftedFunction &LF) {
  return (LF.RegistersRenumbered ? 1 : 0) | (LF.SGPRsRenumbered ? 2 : 0);
}

Error LiftedModule::printMIR(raw_ostream &OS) {
  // MIR with tracksRegLiveness needs the live-ins, and the parser verifies.
  finalize();
  LLVMContext &C = *Ctx;
  // The side data goes into the module only for the time of printing, so
  // the in-memory module stays free of a copy of the image.
  ArrayRef<uint8_t> Img = Original->image();
  auto *Init = ConstantDataArray::get(C, Img);
  auto *GV = new GlobalVariable(*M, Init->getType(), true,
                                GlobalValue::PrivateLinkage, Init, ImageGlobal);
  NamedMDNode *Funcs = M->getOrInsertNamedMetadata("asmevo.functions");
  for (const LiftedFunction &LF : Functions)
    Funcs->addOperand(MDNode::get(
        C, {str(C, LF.Range.Name), i64(C, LF.Range.Addr), i64(C, LF.Range.Size),
            i64(C, LF.Range.IsKernel ? LF.Range.KernelIndex : -1),
            i64(C, LF.Simple), str(C, LF.Reason),
            str(C, LF.IRFunc ? LF.IRFunc->getName() : LF.Range.Name),
            i64(C, renumberedBits(LF))}));
  NamedMDNode *Kds = M->getOrInsertNamedMetadata("asmevo.kernels");
  for (unsigned I = 0; I < Descriptors.size(); ++I)
    Kds->addOperand(MDNode::get(
        C, {str(C, Original->kernels()[I].Name),
            str(C, toHex(Descriptors[I].bytes(), /*LowerCase=*/true))}));
  NamedMDNode *Tgt = M->getOrInsertNamedMetadata("asmevo.target");
  Tgt->addOperand(MDNode::get(C, {str(C, Original->target().targetID()),
                                  str(C, Original->name())}));
  llvm::printMIR(OS, *M);
  for (const LiftedFunction &LF : Functions)
    if (LF.MF)
      llvm::printMIR(OS, *MMI, *LF.MF);
  GV->eraseFromParent();
  M->eraseNamedMetadata(Funcs);
  M->eraseNamedMetadata(Kds);
  M->eraseNamedMetadata(Tgt);
  return Error::success();
}

namespace {
/// Redirects file descriptor 2 into a temporary file for its lifetime.
class StderrCapture {
public:
  StderrCapture() {
    fflush(stderr);
    errs().flush();
    SmallString<128> Path;
    if (sys::fs::createTemporaryFile("asmevo-stderr", "txt", FD, Path))
      return;
    File = Path.str().str();
    Saved = dup(2);
    dup2(FD, 2);
  }
  std::string take() {
    restore();
    if (File.empty())
      return "";
    auto Buf = MemoryBuffer::getFile(File);
    std::string S = Buf ? (*Buf)->getBuffer().str() : "";
    sys::fs::remove(File);
    File.clear();
    return S;
  }
  ~StderrCapture() { take(); }

private:
  void restore() {
    if (Saved < 0)
      return;
    fflush(stderr);
    errs().flush();
    dup2(Saved, 2);
    close(Saved);
    close(FD);
    Saved = -1;
  }
  int FD = -1, Saved = -1;
  std::string File;
};

struct DiagCollector {
  std::string Text;
  static void handle(const DiagnosticInfo *DI, void *Ctx) {
    auto *Self = static_cast<DiagCollector *>(Ctx);
    if (DI->getSeverity() != DS_Error)
      return;
    raw_string_ostream OS(Self->Text);
    DiagnosticPrinterRawOStream DP(OS);
    DI->print(DP);
    OS << "\n";
  }
};
} // namespace

/// Parser's machine functions into \p M, or why not in one line. LLVM's
/// MIR parser aborts on verifier errors; recover so a malformed file is an
/// error, not a crash.
static std::optional<std::string>
parseMachineFunctionsSafely(MIRParser &Parser, Module &M,
                            MachineModuleInfo &MMI) {
  bool Ok = false;
  // The verifier the parser runs prints to stderr and then aborts; keep
  // its report out of the user's terminal and turn it into one line.
  std::string Report;
  bool Ran;
  {
    StderrCapture Capture;
    CrashRecoveryContext CRC;
    CrashRecoveryContext::Enable();
    Ran = CRC.RunSafely([&] { Ok = !Parser.parseMachineFunctions(M, MMI); });
    Report = Capture.take();
  }
  if (!Ran) {
    StringRef R = Report;
    std::string Why = "machine functions are malformed";
    size_t B = R.find("*** Bad machine code: ");
    if (B != StringRef::npos) {
      StringRef Rest = R.drop_front(B + 22);
      Why = ("MachineVerifier: " +
             Rest.take_until([](char C) { return C == '*' || C == '\n'; })
                 .trim())
                .str();
      size_t F = Rest.find("- function:");
      if (F != StringRef::npos)
        Why += " in function '" +
               Rest.drop_front(F + 11).split('\n').first.trim().str() + "'";
      size_t I = Rest.find("- instruction: ");
      if (I != StringRef::npos)
        Why += ": " + Rest.drop_front(I + 15)
                          .split('\n')
                          .first.split(", pre-instr-symbol")
                          .first.trim()
                          .str();
    }
    return Why;
  }
  if (!Ok)
    return std::string("cannot parse the machine functions");
  return std::nullopt;
}

/// The block a kernel with preloaded arguments enters past its prologue.
static MachineBasicBlock *preloadEntry(const LiftedFunction &LF,
                                       const CodeObject &CO) {
  if (!LF.MF || !LF.Range.IsKernel)
    return nullptr;
  const KernelInfo &KI = CO.kernels()[LF.Range.KernelIndex];
  if (!KI.hasPreload())
    return nullptr;
  for (MachineBasicBlock &MBB : *LF.MF)
    if (!MBB.empty() &&
        LiftedModule::originalAddress(MBB.front()) == KI.preloadEntryAddr())
      return &MBB;
  return nullptr;
}

static Expected<uint64_t> mdInt(const MDNode *N, unsigned I) {
  if (I >= N->getNumOperands())
    return createStringError("missing operand");
  if (auto *CI = mdconst::dyn_extract<ConstantInt>(N->getOperand(I)))
    return CI->getZExtValue();
  return createStringError("operand is not an integer");
}
static StringRef mdStr(const MDNode *N, unsigned I) {
  if (I < N->getNumOperands())
    if (auto *S = dyn_cast<MDString>(N->getOperand(I)))
      return S->getString();
  return "";
}

Expected<std::unique_ptr<LiftedModule>>
LiftedModule::parseMIR(StringRef Text, StringRef FileName) {
  std::unique_ptr<LiftedModule> LM(new LiftedModule());
  LM->Ctx = std::make_unique<LLVMContext>();
  DiagCollector Diags;
  LM->Ctx->setDiagnosticHandlerCallBack(DiagCollector::handle, &Diags);
  // One line: the first diagnostic, without its source excerpt (a line
  // of the embedded image can be thousands of characters).
  auto Fail = [&](const Twine &Msg) {
    StringRef First = StringRef(Diags.Text).split('\n').first.trim();
    if (First.size() > 300)
      First = First.take_front(300);
    return createStringError(FileName + ": " + Msg +
                             (First.empty() ? "" : ": " + First));
  };
  std::unique_ptr<MIRParser> Parser = createMIRParser(
      MemoryBuffer::getMemBufferCopy(Text, FileName), *LM->Ctx);
  if (!Parser)
    return Fail("not a MIR file");
  std::unique_ptr<Module> Mod = Parser->parseIRModule();
  if (!Mod)
    return Fail("cannot parse the embedded IR module");
  auto *Img = Mod->getGlobalVariable(ImageGlobal, /*AllowInternal=*/true);
  auto *Data = Img ? dyn_cast_or_null<ConstantDataSequential>(
                         Img->getInitializer())
                   : nullptr;
  if (!Data)
    return Fail("missing @" + Twine(ImageGlobal) +
                " (not written by asmevo-opt --emit=mir?)");
  StringRef Raw = Data->getRawDataValues();
  auto COOrErr = CodeObject::create(
      ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Raw.data()),
                        Raw.size()),
      FileName);
  if (!COOrErr)
    return COOrErr.takeError();
  Img->eraseFromParent();
  LM->M = std::move(Mod);
  if (Error E = LM->init(std::move(*COOrErr)))
    return std::move(E);
  LM->MMI = std::make_unique<MachineModuleInfo>(&LM->TC->targetMachine());

  if (std::optional<std::string> Why =
          parseMachineFunctionsSafely(*Parser, *LM->M, *LM->MMI))
    return Fail(*Why);


  // Side data.
  NamedMDNode *Funcs = LM->M->getNamedMetadata("asmevo.functions");
  if (!Funcs)
    return Fail("missing !asmevo.functions");
  for (const MDNode *N : Funcs->operands()) {
    LiftedFunction LF;
    LF.Range.Name = mdStr(N, 0).str();
    auto A = mdInt(N, 1), S = mdInt(N, 2), K = mdInt(N, 3), Sim = mdInt(N, 4);
    if (!A || !S || !K || !Sim) {
      consumeError(A.takeError());
      consumeError(S.takeError());
      consumeError(K.takeError());
      consumeError(Sim.takeError());
      return Fail("malformed !asmevo.functions entry for '" + LF.Range.Name +
                  "'");
    }
    LF.Range.Addr = *A;
    LF.Range.Size = *S;
    LF.Range.KernelIndex = (int)(int64_t)*K;
    LF.Range.IsKernel = LF.Range.KernelIndex >= 0;
    if (LF.Range.IsKernel &&
        (unsigned)LF.Range.KernelIndex >= LM->Original->kernels().size())
      return Fail("function '" + LF.Range.Name + "' names kernel #" +
                  Twine(LF.Range.KernelIndex) + " which does not exist");
    LF.Simple = *Sim;
    LF.Finalized = true; // The MIR parser verified it.
    LF.Reason = mdStr(N, 5).str();
    StringRef IRName = mdStr(N, 6);
    LF.IRFunc = LM->M->getFunction(IRName.empty() ? LF.Range.Name : IRName);
    if (LF.IRFunc)
      LF.MF = LM->MMI->getMachineFunction(*LF.IRFunc);
    if (LF.Simple && !LF.MF)
      return Fail("function '" + LF.Range.Name +
                  "' is marked simple but has no machine function");
    // Absent from .mir files written before the flags were carried.
    if (N->getNumOperands() > 7) {
      auto Bits = mdInt(N, 7);
      if (!Bits) {
        consumeError(Bits.takeError());
        return Fail("malformed !asmevo.functions entry for '" +
                    LF.Range.Name + "'");
      }
      if (LF.Range.IsKernel && LF.MF) {
        LF.RegistersRenumbered = *Bits & 1;
        LF.SGPRsRenumbered = *Bits & 2;
      }
    }
    LF.PreloadEntry = preloadEntry(LF, *LM->Original);
    LM->Functions.push_back(std::move(LF));
  }
  LM->M->eraseNamedMetadata(Funcs);
  if (NamedMDNode *Kds = LM->M->getNamedMetadata("asmevo.kernels")) {
    for (unsigned I = 0; I < Kds->getNumOperands() && I < LM->Descriptors.size();
         ++I) {
      std::string Bytes;
      if (!tryGetFromHex(mdStr(Kds->getOperand(I), 1), Bytes) ||
          Bytes.size() != KernelDescriptor::Size)
        return Fail("malformed descriptor for kernel '" +
                    mdStr(Kds->getOperand(I), 0) + "' in !asmevo.kernels");
      LM->Descriptors[I] = KernelDescriptor(ArrayRef<uint8_t>(
          reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size()));
    }
    LM->M->eraseNamedMetadata(Kds);
  }
  if (NamedMDNode *T = LM->M->getNamedMetadata("asmevo.target"))
    LM->M->eraseNamedMetadata(T);
  return std::move(LM);
}

Error LiftedModule::printFunctionsMIR(ArrayRef<std::string> Names,
                                      raw_ostream &OS) {
  for (const std::string &Name : Names) {
    LiftedFunction *LF = findFunction(Name);
    if (!LF || !LF->MF)
      return createStringError("no machine function '" + Name + "' to print");
    // Printed MIR needs the live-ins and the address symbols.
    FunctionLifter(*this, *LF).finalize();
    llvm::printMIR(OS, *MMI, *LF->MF);
  }
  return Error::success();
}

Error LiftedModule::importFunctionsMIR(StringRef Text,
                                       ArrayRef<std::string> Names) {
  if (Names.empty())
    return Error::success();
  std::vector<LiftedFunction *> LFs;
  for (const std::string &Name : Names) {
    LiftedFunction *LF = findFunction(Name);
    if (!LF || !LF->IRFunc)
      return createStringError("cannot import '" + Name +
                               "': no such function in the module");
    LFs.push_back(LF);
  }
  // The parser refuses to redefine a machine function.
  for (LiftedFunction *LF : LFs)
    if (LF->MF) {
      forgetMachineFunction(*LF->MF);
      if (LiftPrints.erase(LF->MF))
        PrintIndexValid = false;
      MMI->deleteMachineFunctionFor(*LF->IRFunc);
      LF->MF = nullptr;
    }
  DiagCollector Diags;
  auto *OldHandler = Ctx->getDiagnosticHandlerCallBack();
  void *OldContext = Ctx->getDiagnosticContext();
  Ctx->setDiagnosticHandlerCallBack(DiagCollector::handle, &Diags);
  auto Restore = make_scope_exit(
      [&] { Ctx->setDiagnosticHandlerCallBack(OldHandler, OldContext); });
  std::unique_ptr<MIRParser> Parser = createMIRParser(
      MemoryBuffer::getMemBufferCopy(Text, "imported functions"), *Ctx);
  if (!Parser)
    return createStringError("imported functions: not MIR");
  // With no IR document the parser makes an empty module of its own and
  // looks the functions up in the one it is given.
  if (!Parser->parseIRModule())
    return createStringError("imported functions: unreadable MIR");
  PhaseScope PP("candidate: import: parse");
  if (std::optional<std::string> Why =
          parseMachineFunctionsSafely(*Parser, *M, *MMI))
    return createStringError("imported functions: " + *Why + ": " +
                             StringRef(Diags.Text).split('\n').first);
  for (LiftedFunction *LF : LFs) {
    LF->MF = MMI->getMachineFunction(*LF->IRFunc);
    if (!LF->MF)
      return createStringError("imported functions: '" + LF->Range.Name +
                               "' was not in the text");
    LF->Simple = true;
    LF->Reason.clear();
    LF->Finalized = true; // The MIR parser verified it.
    // Machine functions alone do not carry the renumbering flags: a caller
    // that knows them (the --jobs workers' answer) sets them afterwards;
    // otherwise the emitter keeps the max(declared, used) rule, which is
    // never too low.
    LF->RegistersRenumbered = false;
    LF->SGPRsRenumbered = false;
    LF->PreloadEntry = preloadEntry(*LF, *Original);
  }
  return Error::success();
}
