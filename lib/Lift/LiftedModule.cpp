//===- LiftedModule.cpp - Lifting a code object ---------------------------===//
#include "asmevo/Lift/LiftedModule.h"
#include "FunctionLifter.h"
#include "VerifierMemo.h"
#include "asmevo/Lift/SymbolRefs.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/CodeGen/MachineInstr.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Metadata.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCSymbol.h"
#include "llvm/Support/raw_ostream.h"
#include <mutex>
#include <set>

using namespace llvm;
using namespace asmevo;

// The original address rides on a pre-instruction symbol named
// "asmevo.orig.<hex>": MIR prints and parses it, and no consumer of ours
// emits it (pcsections metadata would not survive MIR printing). Interning
// one symbol per instruction is a good part of a plain rebuild's time, so a
// freshly lifted function keeps its addresses in LiftPrints and gets its
// symbols when something may read or edit its MachineIR (finalize()).
static constexpr StringLiteral OrigPrefix = "asmevo.orig.";

namespace {
/// Machine functions whose address symbols are deferred, and their module:
/// originalAddress() is static and sees only the instruction.
struct DeferredRegistry {
  std::mutex Lock;
  DenseMap<const MachineFunction *, const LiftedModule *> Owner;
};
DeferredRegistry &deferredRegistry() {
  static DeferredRegistry R;
  return R;
}
} // namespace

LiftedModule::~LiftedModule() {
  for (const MachineFunction *MF : Deferred) {
    DeferredRegistry &R = deferredRegistry();
    std::lock_guard<std::mutex> G(R.Lock);
    R.Owner.erase(MF);
  }
  Deferred.clear();
  // MachineFunctions refer to the IR functions: drop them first.
  Functions.clear();
  MMI.reset();
  M.reset();
}

LiftedFunction *LiftedModule::findFunction(StringRef Name) {
  for (LiftedFunction &F : Functions)
    if (F.Range.Name == Name)
      return &F;
  return nullptr;
}

static std::optional<uint64_t> addressFromSymbol(const MCSymbol *S) {
  StringRef N = S->getName();
  uint64_t A;
  if (!N.consume_front(OrigPrefix) || N.getAsInteger(16, A))
    return std::nullopt;
  return A;
}

std::optional<uint64_t> LiftedModule::originalAddress(const MachineInstr &MI) {
  if (MCSymbol *S = MI.getPreInstrSymbol())
    return addressFromSymbol(S);
  // An instruction outside any block has no function to ask.
  const MachineFunction *MF = MI.getParent() ? MI.getMF() : nullptr;
  if (!MF)
    return std::nullopt;
  const LiftedModule *LM = nullptr;
  {
    DeferredRegistry &R = deferredRegistry();
    std::lock_guard<std::mutex> G(R.Lock);
    auto It = R.Owner.find(MF);
    if (It == R.Owner.end())
      return std::nullopt;
    LM = It->second;
  }
  return LM->addressOf(MI);
}

std::optional<uint64_t> LiftedModule::addressOf(const MachineInstr &MI) const {
  return origin(MI).Addr;
}

void LiftedModule::recordLiftPrint(const MachineInstr &MI, uint64_t Addr,
                                   uint32_t Size) {
  LiftPrints[MI.getMF()].push_back({&MI, Addr, fingerprint(MI, Addr), Size});
  PrintIndexValid = false;
}

ArrayRef<LiftedModule::LiftPrint>
LiftedModule::liftPrints(const MachineFunction &MF) const {
  auto It = LiftPrints.find(&MF);
  if (It == LiftPrints.end())
    return {};
  return It->second;
}

const LiftedModule::LiftPrint *
LiftedModule::findLiftPrint(const MachineInstr &MI) const {
  if (!PrintIndexValid) {
    PrintIndex.clear();
    size_t N = 0;
    for (const auto &[MF, Prints] : LiftPrints)
      N += Prints.size();
    PrintIndex.reserve(N);
    for (const auto &[MF, Prints] : LiftPrints)
      for (const LiftPrint &P : Prints)
        PrintIndex[P.MI] = &P;
    PrintIndexValid = true;
  }
  auto It = PrintIndex.find(&MI);
  return It == PrintIndex.end() ? nullptr : It->second;
}

uint32_t LiftedModule::unchangedSize(const MachineInstr &MI,
                                     uint64_t Addr) const {
  const LiftPrint *P = findLiftPrint(MI);
  if (!P || P->Addr != Addr || P->Hash != fingerprint(MI, Addr))
    return 0;
  return P->Size;
}

LiftedModule::Origin LiftedModule::origin(const MachineInstr &MI,
                                          const LiftPrint *P) const {
  Origin O;
  MCSymbol *S = MI.getPreInstrSymbol();
  if (S)
    O.Addr = addressFromSymbol(S);
  else if (MI.getParent() && symbolsDeferred(MI.getMF()))
    O.Addr = (P ? P : (P = findLiftPrint(MI))) ? std::optional(P->Addr)
                                                : std::nullopt;
  if (!O.Addr)
    return O;
  if (!P)
    P = findLiftPrint(MI);
  if (P && P->MI == &MI && P->Addr == *O.Addr &&
      P->Hash == fingerprint(MI, *O.Addr))
    O.UnchangedSize = P->Size;
  return O;
}

void LiftedModule::setOriginalAddress(MachineInstr &MI, uint64_t Addr) {
  MachineFunction &MF = *MI.getMF();
  SmallString<32> Name(OrigPrefix);
  Name += utohexstr(Addr, /*LowerCase=*/true);
  MI.setPreInstrSymbol(MF, MF.getContext().getOrCreateSymbol(Name));
}

void LiftedModule::deferAddressSymbols(const MachineFunction &MF) {
  if (!Deferred.insert(&MF).second)
    return;
  DeferredRegistry &R = deferredRegistry();
  std::lock_guard<std::mutex> G(R.Lock);
  R.Owner[&MF] = this;
}

void LiftedModule::forgetMachineFunction(const MachineFunction &MF) {
  if (!Deferred.erase(&MF))
    return;
  DeferredRegistry &R = deferredRegistry();
  std::lock_guard<std::mutex> G(R.Lock);
  R.Owner.erase(&MF);
}

void LiftedModule::materializeAddressSymbols(MachineFunction &MF) {
  if (!symbolsDeferred(&MF))
    return;
  ArrayRef<LiftPrint> Prints = liftPrints(MF);
  size_t K = 0;
  for (MachineBasicBlock &MBB : MF)
    for (MachineInstr &MI : MBB) {
      const LiftPrint *P =
          K < Prints.size() && Prints[K].MI == &MI ? &Prints[K++]
                                                   : findLiftPrint(MI);
      if (P && !MI.getPreInstrSymbol())
        setOriginalAddress(MI, P->Addr);
    }
  forgetMachineFunction(MF);
}

uint64_t LiftedModule::fingerprint(const MachineInstr &MI, uint64_t Addr) {
  // A cheap multiplicative mix: this runs for every instruction at lift and
  // at emit, and only has to tell "as lifted" from "edited".
  uint64_t H = Addr * 0x9E3779B97F4A7C15ull ^ MI.getOpcode();
  auto Mix = [&H](uint64_t V) {
    H = (H ^ V) * 0x100000001B3ull;
    H ^= H >> 29;
  };
  // Explicit operands only: implicit ones do not reach the encoding.
  unsigned N = std::min(MI.getNumOperands(), MI.getDesc().getNumOperands());
  Mix(N);
  for (unsigned I = 0; I < N; ++I) {
    const MachineOperand &MO = MI.getOperand(I);
    Mix(MO.getType());
    if (MO.isReg())
      Mix((uint64_t)MO.getReg().id() << 1 | MO.isDef());
    else if (MO.isImm())
      Mix((uint64_t)MO.getImm());
    else if (MO.isMBB())
      Mix((uint64_t)MO.getMBB()->getNumber());
    else if (MO.isGlobal())
      Mix((uint64_t)(uintptr_t)MO.getGlobal() ^ (uint64_t)MO.getOffset() ^
          MO.getTargetFlags());
    else
      Mix(hash_value(MO));
  }
  return H;
}

Error LiftedModule::init(std::unique_ptr<CodeObject> CO) {
  Original = std::move(CO);
  auto TCOrErr = TargetContext::create(Original->target());
  if (!TCOrErr)
    return TCOrErr.takeError();
  TC = std::move(*TCOrErr);
  if (!Ctx)
    Ctx = std::make_unique<LLVMContext>();
  if (!M) {
    M = std::make_unique<Module>(Original->name(), *Ctx);
    M->setTargetTriple(TC->triple());
    M->setDataLayout(TC->targetMachine().createDataLayout());
  }
  for (const KernelInfo &K : Original->kernels())
    Descriptors.push_back(K.KD);
  return Error::success();
}

static bool isCodeSymbol(const CodeObject &CO, const ELFSymbol &S) {
  if (S.Type != ELF::STT_FUNC)
    return false;
  const ELFSection *Sec = CO.sectionForAddr(S.Value);
  return Sec && Sec->isExec();
}

void LiftedModule::createSymbolGlobals() {
  std::set<std::string> Kernels;
  for (const KernelInfo &K : Original->kernels())
    Kernels.insert(K.Name);
  auto Add = [&](const ELFSymbol &S) {
    if (S.Name.empty() || M->getNamedValue(S.Name) ||
        S.SectionIndex == ELF::SHN_ABS || S.SectionIndex == ELF::SHN_UNDEF)
      return;
    if (isCodeSymbol(*Original, S) || Kernels.count(S.Name)) {
      Function *F =
          Function::Create(FunctionType::get(Type::getVoidTy(*Ctx), false),
                           GlobalValue::ExternalLinkage, S.Name, *M);
      if (Kernels.count(S.Name))
        F->setCallingConv(CallingConv::AMDGPU_KERNEL);
      return;
    }
    new GlobalVariable(*M, Type::getInt8Ty(*Ctx), /*isConstant=*/false,
                       GlobalValue::ExternalLinkage, nullptr, S.Name);
  };
  for (const ELFSymbol &S : Original->symbols())
    Add(S);
  for (const ELFSymbol &S : Original->dynamicSymbols())
    Add(S);
}

Expected<SymbolRef> asmevo::resolveAddress(LiftedModule &LM, uint64_t Addr) {
  const CodeObject &CO = LM.original();
  const ELFSection *Sec = CO.sectionForAddr(Addr);
  if (Sec && Sec->Name == ".got") {
    for (const ELFDynReloc &R : CO.dynamicRelocations()) {
      if (R.Offset != Addr)
        continue;
      if (R.Symbol.empty() || R.Addend != 0)
        return createStringError("a GOT slot without a symbol");
      GlobalValue *GV = LM.irModule().getNamedValue(R.Symbol);
      if (!GV)
        return createStringError("a GOT slot for unknown symbol '" +
                                 R.Symbol + "'");
      return SymbolRef{GV, 0, true};
    }
    return createStringError("a GOT slot without a dynamic relocation");
  }
  if (!Sec) {
    // One past the end of a section is a valid reference (end symbols).
    for (const ELFSection &S : CO.sections())
      if (S.isAlloc() && S.Size && Addr == S.Addr + S.Size)
        Sec = &S;
    if (!Sec)
      return createStringError("outside every section");
  }
  const auto &Syms = CO.symbols().empty() ? CO.dynamicSymbols() : CO.symbols();
  const ELFSymbol *Best = nullptr;
  for (const ELFSymbol &S : Syms) {
    if (S.SectionIndex != Sec->Index || S.Value > Addr || S.Name.empty() ||
        S.Type == ELF::STT_SECTION)
      continue;
    if (!Best || S.Value > Best->Value ||
        (S.Value == Best->Value && Best->Binding == ELF::STB_LOCAL &&
         S.Binding != ELF::STB_LOCAL))
      Best = &S;
  }
  Module &M = LM.irModule();
  // A name two symbols share cannot identify one of them: use the section.
  bool Unique = Best && llvm::count_if(Syms, [&](const ELFSymbol &S) {
                          return S.Name == Best->Name;
                        }) == 1;
  if (Best && Unique)
    if (GlobalValue *GV = M.getNamedValue(Best->Name))
      return SymbolRef{GV, (int64_t)(Addr - Best->Value), false};
  std::string Name = std::string(SectionStartPrefix) + Sec->Name;
  GlobalValue *GV = M.getNamedValue(Name);
  if (!GV)
    GV = new GlobalVariable(M, Type::getInt8Ty(M.getContext()), false,
                            GlobalValue::ExternalLinkage, nullptr, Name);
  return SymbolRef{GV, (int64_t)(Addr - Sec->Addr), false};
}

Error LiftedModule::liftAll(const LiftOptions &Opts) {
  std::set<std::string> Wanted(Opts.Kernels.begin(), Opts.Kernels.end());
  for (const CodeRange &R : Original->codeRanges()) {
    LiftedFunction LF;
    LF.Range = R;
    Functions.push_back(std::move(LF));
  }
  for (LiftedFunction &LF : Functions) {
    if (!Opts.Functions) {
      LF.Simple = false;
      LF.Reason = "not lifted (the code object is only read)";
      continue;
    }
    if (!Wanted.empty() && LF.Range.IsKernel && !Wanted.count(LF.Range.Name)) {
      LF.Simple = false;
      LF.Reason = "not selected by --kernels";
      continue;
    }
    Function *F = M->getFunction(LF.Range.Name);
    // Two code ranges of one name (static functions of different files)
    // need functions of their own; LLVM renames the second ("name.1").
    bool Claimed = F && llvm::any_of(Functions, [&](const LiftedFunction &O) {
                     return O.IRFunc == F;
                   });
    if (Claimed)
      F = nullptr;
    if (!F) {
      F = Function::Create(FunctionType::get(Type::getVoidTy(*Ctx), false),
                           GlobalValue::ExternalLinkage, LF.Range.Name, *M);
      if (LF.Range.IsKernel)
        F->setCallingConv(CallingConv::AMDGPU_KERNEL);
    }
    LF.IRFunc = F;
    FunctionLifter(*this, LF).run();
    if (LF.Simple && F->isDeclaration()) {
      // MIR wants a body; the machine code is the real one.
      IRBuilder<> B(BasicBlock::Create(*Ctx, "entry", F));
      B.CreateRetVoid();
    }
    dropIfNotSimple(LF);
  }
  if (Opts.Finalize)
    finalize();
  return Error::success();
}

void LiftedModule::dropIfNotSimple(LiftedFunction &LF) {
  // A patch-only function keeps its MachineIR (and lift prints, which say
  // which instructions an edit left as they were) out of MF's reach.
  if (!LF.Simple && LF.MF && LF.PatchMF == LF.MF) {
    LF.MF = nullptr;
    return;
  }
  if (!LF.Simple && LF.MF) {
    forgetMachineFunction(*LF.MF);
    if (LiftPrints.erase(LF.MF))
      PrintIndexValid = false;
    MMI->deleteMachineFunctionFor(*LF.IRFunc);
    LF.MF = nullptr;
  }
}

void LiftedModule::relift(LiftedFunction &LF) {
  if (MachineFunction *Old = LF.MF ? LF.MF : LF.PatchMF) {
    forgetMachineFunction(*Old);
    if (LiftPrints.erase(Old))
      PrintIndexValid = false;
    MMI->deleteMachineFunctionFor(*LF.IRFunc);
    LF.MF = LF.PatchMF = nullptr;
  }
  LF.Simple = true;
  LF.Reason.clear();
  LF.PreloadEntry = nullptr;
  LF.NumInstrs = 0;
  LF.Finalized = false;
  LF.RegistersRenumbered = false;
  LF.SGPRsRenumbered = false;
  FunctionLifter(*this, LF).run();
  dropIfNotSimple(LF);
  if (LF.MF) {
    FunctionLifter(*this, LF).finalize();
    dropIfNotSimple(LF);
  }
}

void LiftedModule::finalize() {
  for (LiftedFunction &LF : Functions) {
    if (!LF.MF || LF.Finalized)
      continue;
    FunctionLifter(*this, LF).finalize();
    dropIfNotSimple(LF);
  }
}

Expected<std::unique_ptr<LiftedModule>>
LiftedModule::lift(std::unique_ptr<CodeObject> CO, const LiftOptions &Opts) {
  std::unique_ptr<LiftedModule> LM(new LiftedModule());
  if (Error E = LM->init(std::move(CO)))
    return std::move(E);
  LM->MMI = std::make_unique<MachineModuleInfo>(&LM->TC->targetMachine());
  LM->createSymbolGlobals();
  if (Error E = LM->liftAll(Opts))
    return std::move(E);
  return std::move(LM);
}

Error LiftedModule::verify(StringRef Banner) { return verify(Banner, {}); }

Error LiftedModule::verify(StringRef Banner,
                           ArrayRef<const std::vector<uint64_t> *> Keys,
                           const std::vector<bool> *InScope) {
  finalize();
  for (size_t I = 0; I < Functions.size(); ++I) {
    const LiftedFunction &LF = Functions[I];
    if (!LF.MF || (InScope && !(*InScope)[I]))
      continue;
    auto Key = VerifierMemo::keyOf(*LF.MF, I < Keys.size() ? Keys[I] : nullptr);
    if (Key && VerifierMemo::accepted(*Key))
      continue;
    std::string Msg;
    raw_string_ostream OS(Msg);
    std::string B = Banner.str();
    if (!LF.MF->verify(nullptr, B.c_str(), &OS, /*AbortOnError=*/false))
      return createStringError(Original->name() + ": function '" +
                               LF.Range.Name +
                               "': MachineVerifier failed:\n" + Msg);
    if (Key)
      VerifierMemo::remember(std::move(*Key));
  }
  return Error::success();
}
