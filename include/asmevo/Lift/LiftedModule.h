//===- LiftedModule.h - A code object lifted to MachineIR -------*- C++ -*-===//
//
// The lifted form of one code object: an IR module that names every symbol
// (functions and data, so machine operands can refer to them), one
// MachineFunction per simple function, and the original code object, which
// keeps everything MachineIR cannot hold (descriptors, notes, data, the
// original encoding of every instruction).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIFT_LIFTEDMODULE_H
#define ASMEVO_LIFT_LIFTEDMODULE_H

#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Support/TargetContext.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/MachineModuleInfo.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCInst.h"
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace asmevo {

struct LiftedFunction {
  CodeRange Range;
  /// False when the function cannot be rebuilt safely; it is then emitted
  /// from its original bytes at its original address.
  bool Simple = true;
  std::string Reason;
  llvm::Function *IRFunc = nullptr;
  /// Set only while the function can be rebuilt: everything that emits,
  /// links or lays out code reads a null MF as "keep the original bytes".
  llvm::MachineFunction *MF = nullptr;
  /// A non-simple function whose every instruction decoded and whose CFG
  /// was recovered, rejected only by the MachineVerifier (operand rules
  /// CodeGen holds itself to, which valid hardware code may break): its
  /// MachineIR is kept here, never re-emitted, so that edits which keep
  /// every address can be written as byte patches over the original
  /// (PatchInPlace.h). Null for every other function; MF is null too.
  llvm::MachineFunction *PatchMF = nullptr;
  /// Kernels with preloaded arguments: the block that starts at entry+256.
  llvm::MachineBasicBlock *PreloadEntry = nullptr;
  unsigned NumInstrs = 0;
  /// Live-ins computed and the MachineVerifier consulted (see finalize()).
  bool Finalized = false;
  /// Set by regalloc-compact on a kernel whose VGPRs and AGPRs it
  /// renumbered: the input's declared VGPR granule, ACCUM_OFFSET and the
  /// note's .vgpr_count/.agpr_count describe the old numbering, so the
  /// emitter declares what the code uses (lower counts included) instead of
  /// max(declared, used). MIR and the --jobs workers carry it.
  bool RegistersRenumbered = false;
  /// The same for SGPRs: the SGPR granule and .sgpr_count.
  bool SGPRsRenumbered = false;
};

struct LiftOptions {
  /// Only lift these kernels (and what they call); empty = everything.
  std::vector<std::string> Kernels;
  /// Compute live-ins and run the MachineVerifier gate right away. A plain
  /// rebuild emits untouched functions from their bytes and can skip both;
  /// anything that reads or edits the MachineIR calls finalize() first.
  bool Finalize = true;
  /// False: no function is lifted (each keeps its bytes), for a caller
  /// that only reads the code object, as asmevo-link --optimize does: the
  /// optimizer lifts copies of its own.
  bool Functions = true;
};

/// \p Inst (from the disassembler or the assembler) as a MachineInstr of
/// \p MF, built as the lifter builds its instructions (canonical registers,
/// implicit operands, normalized immediates); not inserted anywhere.
llvm::MachineInstr *createMachineInstr(llvm::MachineFunction &MF,
                                       const llvm::MCInst &Inst);

/// Lends a patch-only function's MachineIR (LiftedFunction::PatchMF) as
/// its MF for the scope's length, to code that reads LF.MF: a pass, the
/// hazard and waitcnt checks, the static cost. Outside such a scope MF
/// stays null, so that nothing rebuilds the function from it.
class PatchOnlyLoan {
public:
  PatchOnlyLoan(LiftedFunction &LF, bool Lend) : LF(Lend ? &LF : nullptr) {
    if (this->LF)
      LF.MF = LF.PatchMF;
  }
  ~PatchOnlyLoan() {
    if (LF)
      LF->MF = nullptr;
  }
  PatchOnlyLoan(const PatchOnlyLoan &) = delete;
  PatchOnlyLoan &operator=(const PatchOnlyLoan &) = delete;

private:
  LiftedFunction *LF;
};

class LiftedModule {
public:
  ~LiftedModule();

  /// Lifts every code range of \p CO. Functions that can't be lifted safely
  /// are marked non-simple; only failures to set up LLVM are errors.
  static llvm::Expected<std::unique_ptr<LiftedModule>>
  lift(std::unique_ptr<CodeObject> CO, const LiftOptions &Opts = {});

  /// Reads a module printed by printMIR() back.
  static llvm::Expected<std::unique_ptr<LiftedModule>>
  parseMIR(llvm::StringRef Text, llvm::StringRef FileName);

  /// MIR text: the IR module (with the original image and descriptors) and
  /// every MachineFunction.
  llvm::Error printMIR(llvm::raw_ostream &OS);

  /// MIR text of the machine functions \p Names only (no IR module): how a
  /// worker process hands the functions it edited to the process that
  /// rebuilds, which holds a lift of the same object (importFunctionsMIR).
  llvm::Error printFunctionsMIR(llvm::ArrayRef<std::string> Names,
                                llvm::raw_ostream &OS);
  /// Replaces each function named in \p Names by its machine function in
  /// \p Text (printed by printFunctionsMIR from a lift of the same object).
  /// The functions lose their lift prints, so the emitter compares their
  /// encodings with the original bytes instead.
  llvm::Error importFunctionsMIR(llvm::StringRef Text,
                                 llvm::ArrayRef<std::string> Names);

  const CodeObject &original() const { return *Original; }
  const TargetContext &target() const { return *TC; }
  llvm::LLVMContext &context() { return *Ctx; }
  llvm::Module &irModule() { return *M; }
  llvm::MachineModuleInfo &mmi() { return *MMI; }
  std::vector<LiftedFunction> &functions() { return Functions; }
  const std::vector<LiftedFunction> &functions() const { return Functions; }
  LiftedFunction *findFunction(llvm::StringRef Name);

  /// Descriptors as they will be emitted (editable; start as the input's).
  std::vector<KernelDescriptor> &descriptors() { return Descriptors; }
  const std::vector<KernelDescriptor> &descriptors() const {
    return Descriptors;
  }

  /// Original address of an instruction, or nullopt for instructions that
  /// an edit created. MIR carries it as a pre-instruction symbol
  /// "asmevo.orig.<hex>"; a freshly lifted function keeps it in a side table
  /// until finalize() (or printMIR) gives every instruction its symbol, so
  /// that a plain rebuild interns no symbol per instruction.
  static std::optional<uint64_t> originalAddress(const llvm::MachineInstr &MI);
  static void setOriginalAddress(llvm::MachineInstr &MI, uint64_t Addr);
  /// The same as originalAddress() without the look-up of the module.
  std::optional<uint64_t> addressOf(const llvm::MachineInstr &MI) const;

  /// What an instruction looked like when it was lifted: a hash of its
  /// original address, opcode and operands, and its encoded size. When the
  /// instruction still hashes the same, its original bytes are still its
  /// encoding, and the emitter need not decode them again to find out.
  struct LiftPrint {
    const llvm::MachineInstr *MI = nullptr;
    uint64_t Addr = 0;
    uint64_t Hash = 0;
    uint32_t Size = 0;
  };
  static uint64_t fingerprint(const llvm::MachineInstr &MI, uint64_t Addr);
  void recordLiftPrint(const llvm::MachineInstr &MI, uint64_t Addr,
                       uint32_t Size);
  /// The original size when \p MI is unchanged since lifting, else 0.
  uint32_t unchangedSize(const llvm::MachineInstr &MI, uint64_t Addr) const;
  /// The prints of \p MF's instructions in lift order (none for functions
  /// read from MIR): walking a function in order, the emitter finds each
  /// instruction's print here instead of looking it up.
  llvm::ArrayRef<LiftPrint> liftPrints(const llvm::MachineFunction &MF) const;
  /// The print of \p MI, if it was lifted (a look-up).
  const LiftPrint *findLiftPrint(const llvm::MachineInstr &MI) const;

  /// Both at once: the original address, and the original size when \p MI
  /// is unchanged since lifting, else 0. \p P is MI's print when the caller
  /// has it at hand (from liftPrints()), else it is looked up.
  struct Origin {
    std::optional<uint64_t> Addr;
    uint32_t UnchangedSize = 0;
  };
  Origin origin(const llvm::MachineInstr &MI,
                const LiftPrint *P = nullptr) const;

  /// Block live-ins and the MachineVerifier gate for every function not yet
  /// finalized. A function the verifier rejects becomes non-simple, and
  /// patch-only (LiftedFunction::PatchMF).
  void finalize();

  /// Lifts \p LF again from the original bytes, finalized, as lift() would
  /// have: passes' edits to it are gone. The optimizer's candidates share
  /// one module this way instead of lifting the whole object per candidate.
  void relift(LiftedFunction &LF);

  /// Runs the MachineVerifier on every simple function.
  llvm::Error verify(llvm::StringRef Banner);
  /// The same, given each function's FunctionKey (FunctionKey.h) where the
  /// caller has it: parallel to functions(), null entries computed here.
  /// With \p InScope (parallel to functions()), only the functions it
  /// marks: a caller that edited no other function need not check them.
  llvm::Error verify(llvm::StringRef Banner,
                     llvm::ArrayRef<const std::vector<uint64_t> *> Keys,
                     const std::vector<bool> *InScope = nullptr);

private:
  LiftedModule() = default;
  llvm::Error init(std::unique_ptr<CodeObject> CO);
  llvm::Error liftAll(const LiftOptions &Opts);
  void createSymbolGlobals();
  void dropIfNotSimple(LiftedFunction &LF);
  /// Functions whose original addresses are only in their lift prints.
  void deferAddressSymbols(const llvm::MachineFunction &MF);
  void materializeAddressSymbols(llvm::MachineFunction &MF);
  void forgetMachineFunction(const llvm::MachineFunction &MF);
  bool symbolsDeferred(const llvm::MachineFunction *MF) const {
    return Deferred.contains(MF);
  }

  std::unique_ptr<CodeObject> Original;
  std::unique_ptr<TargetContext> TC;
  std::unique_ptr<llvm::LLVMContext> Ctx;
  std::unique_ptr<llvm::Module> M;
  std::unique_ptr<llvm::MachineModuleInfo> MMI;
  std::vector<LiftedFunction> Functions;
  std::vector<KernelDescriptor> Descriptors;
  /// Per function, in lift order; the index by instruction is built on
  /// the first look-up (a plain rebuild only walks functions in order).
  llvm::DenseMap<const llvm::MachineFunction *, std::vector<LiftPrint>>
      LiftPrints;
  mutable llvm::DenseMap<const llvm::MachineInstr *, const LiftPrint *>
      PrintIndex;
  mutable bool PrintIndexValid = false;
  llvm::DenseSet<const llvm::MachineFunction *> Deferred;

  friend class FunctionLifter;
};

} // namespace asmevo

#endif
