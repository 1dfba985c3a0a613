//===- Program.h - Pre-decoded instructions of a code object ----*- C++ -*-===//
//
// A code object's executable sections are disassembled once into an array
// of DInst: the handler to call, operands resolved to register-file
// indices or constants, modifiers decoded into named fields, branch targets
// resolved to array indices. Execution never looks at an MCInst again.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_EMULATOR_PROGRAM_H
#define ASMEVO_LIB_EMULATOR_PROGRAM_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace asmevo {
class CodeObject;
class TargetContext;
struct TargetInfo;
class ISAFacts;
struct InstrRecord;

namespace emu {

struct Wave;
struct DInst;
using ExecFn = void (*)(Wave &, const DInst &);

enum class OpKind : uint8_t { None, SGPR, VGPR, AGPR, Imm, Special };

/// Special scalar sources (hardware operand encodings 235-254).
enum SpecialSrc : uint8_t {
  SpSCC,
  SpVCCZ,
  SpEXECZ,
  SpSharedBase,
  SpSharedLimit,
  SpPrivateBase,
  SpPrivateLimit,
  SpPopsExitingWaveID,
  SpLdsDirect,
};

/// SGPR file indices use the hardware operand encoding (ISA "Scalar
/// Registers"): s0-s101, 102-103 FLAT_SCRATCH, 104-105 XNACK_MASK,
/// 106-107 VCC, 108-123 TTMP, 124 M0, 126-127 EXEC.
enum : uint16_t {
  SgprFlatScratch = 102,
  SgprXnackMask = 104,
  SgprVCC = 106,
  SgprTTMP = 108,
  SgprM0 = 124,
  SgprNull = 125,
  SgprEXEC = 126,
  NumSgprSlots = 128,
};

/// SISrcMods bits as LLVM 22's disassembler reports them (checked by the
/// SDWA/VOP3P cases of the unit tests).
enum : uint8_t {
  ModNeg = 1,
  ModAbs = 2,      ///< also VOP3P neg_hi
  ModOpSel0 = 4,
  ModOpSel1 = 8,   ///< also VOP3 destination op_sel (src0 only)
  ModSext = 16,    ///< SDWA integer sign-extend
};

struct Operand {
  OpKind Kind = OpKind::None;
  uint8_t Width = 1; ///< In 32-bit registers.
  uint8_t Mods = 0;
  uint8_t Special = 0;
  uint16_t Reg = 0;
  uint64_t Imm = 0;

  bool isReg() const {
    return Kind == OpKind::SGPR || Kind == OpKind::VGPR ||
           Kind == OpKind::AGPR;
  }
  bool isVector() const {
    return Kind == OpKind::VGPR || Kind == OpKind::AGPR;
  }
};

enum class Enc : uint8_t { Native, E32, E64, DPP, SDWA };

/// Instruction flags (DInst::Flags).
enum : uint32_t {
  FOffen = 1u << 0,
  FIdxen = 1u << 1,
  FLds = 1u << 2,     ///< buffer_load ... lds
  FSaddr = 1u << 3,
  FRtn = 1u << 4,
  FTrans = 1u << 5,   ///< transcendental (approximated)
  FScalarDst = 1u << 6,
  FAddTid = 1u << 7,
  FIsVALU = 1u << 8,
  FIsSALU = 1u << 9,
  FIsVMEM = 1u << 10,
  FIsSMEM = 1u << 11,
  FIsDS = 1u << 12,
  FIsFLAT = 1u << 13,  ///< flat_* (may touch LDS or scratch)
  FIsMFMA = 1u << 14,
  FIsBranch = 1u << 15,
  FBadTarget = 1u << 16,
  FDecodeError = 1u << 17,
  FIsScratch = 1u << 18,
  FIsGlobal = 1u << 19,
  FIsMUBUF = 1u << 20,
  FWritesExec = 1u << 21,
  FIsVOPC = 1u << 22,
};

/// A register range an instruction reads or writes (for the in-flight and
/// hazard checks). File 0 = SGPR, 1 = VGPR, 2 = AGPR.
struct RegRange {
  uint8_t File = 0;
  uint8_t Count = 0;
  uint16_t Reg = 0;
};

struct DInst {
  ExecFn Fn = nullptr;
  uint64_t Addr = 0;      ///< Address in the code object.
  uint32_t Index = 0;
  uint32_t Target = ~0u;  ///< Branch target (index), ~0u if none.
  uint32_t Flags = 0;
  uint16_t Opcode = 0;
  uint16_t Sem = 0;       ///< Semantic table index (per family).
  uint8_t Size = 0;
  Enc E = Enc::Native;
  uint8_t NumDefs = 0, NumSrcs = 0, NumImms = 0;
  uint8_t Clamp = 0, Omod = 0;
  uint8_t RowMask = 0xf, BankMask = 0xf, BoundCtrl = 0;
  uint8_t DstSel = 6, DstUnused = 0;
  uint8_t SrcSel[2] = {6, 6};
  uint16_t DppCtrl = 0;
  uint8_t NumReads = 0, NumWrites = 0;
  int32_t Offset0 = 0, Offset1 = 0;
  uint32_t Cpol = 0;
  uint32_t Aux = 0;       ///< Family-specific constant (element size...).
  const void *Info = nullptr; ///< Family-specific semantic record.
  Operand Def[2];
  Operand Src[4];
  int64_t Imm[6] = {0, 0, 0, 0, 0, 0};
  RegRange Reads[8];
  RegRange Writes[3];
};

struct DecodedText {
  std::string Mnemonic; ///< First token of the printed instruction.
  std::string Text;     ///< Whole printed instruction.
  std::string Name;     ///< MC opcode name.
};

class Program {
public:
  static llvm::Expected<std::unique_ptr<Program>>
  decode(const CodeObject &CO);
  /// Code given as (load address, bytes) ranges, for \p Target.
  static llvm::Expected<std::unique_ptr<Program>>
  decode(const TargetInfo &Target,
         llvm::ArrayRef<std::pair<uint64_t, llvm::ArrayRef<uint8_t>>> Code);
  ~Program();

  std::vector<DInst> Insts;
  std::vector<DecodedText> Text;
  /// Instruction index by code-object address.
  llvm::DenseMap<uint64_t, uint32_t> ByAddr;
  /// Why an instruction has no (complete) semantics, by index.
  llvm::DenseMap<uint32_t, std::string> Notes;

  const DInst *at(uint64_t Addr) const {
    // A PC or branch target may be any value; DenseMap reserves ~0 and ~1
    // as its empty and tombstone keys, which no code address is
    // (CodeObject keeps sections below 2^48).
    if (Addr >= (1ull << 48))
      return nullptr;
    auto It = ByAddr.find(Addr);
    return It == ByAddr.end() ? nullptr : &Insts[It->second];
  }
  bool IsGFX90A = false;
  bool IsGFX94X = false;

  /// The analyses' view of every instruction (lib/Analysis), for the
  /// run-time hazard checks that use its rule table.
  std::unique_ptr<TargetContext> TC;
  std::unique_ptr<ISAFacts> Facts;
  std::vector<InstrRecord> Recs;

private:
  Program();
};

/// Handler of every instruction without (complete) semantics: stops the
/// launch with the instruction's name and PC.
void execUnimplemented(Wave &W, const DInst &I);

} // namespace emu
} // namespace asmevo

#endif
