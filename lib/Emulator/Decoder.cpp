//===- Decoder.cpp - MCInst to pre-decoded DInst ---------------------------===//
//
// Operand layout facts used here (observed on LLVM 22's AMDGPU
// disassembler, checked by the decoder self-test in unittests/Emulator):
//  - the first MCInstrDesc::getNumDefs() operands are the destinations;
//  - an operand of type OPERAND_INPUT_MODS holds the SISrcMods bits of the
//    source that follows it;
//  - operands tied to a destination (DPP "old", FMAC's accumulator,
//    SOPK's source) repeat the destination and are skipped;
//  - register-class operands after the definitions are the sources in
//    assembly order; immediates without a register class are the named
//    trailing fields (offsets, cache policy, DPP/SDWA controls, ...);
//  - implicit VCC uses/defs of VOP2/VOPC e32 forms become explicit.
//
//===----------------------------------------------------------------------===//
#include "Program.h"
#include "Semantics.h"
#include "asmevo/Emulator/ISACoverage.h"
#include "asmevo/Analysis/Hazards.h"
#include "asmevo/Analysis/ISAFacts.h"
#include "asmevo/Analysis/InstrRecord.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Support/TargetContext.h"
#include "llvm/MC/MCExpr.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrDesc.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

Program::Program() = default;
Program::~Program() = default;

namespace {

struct RegInfo {
  OpKind Kind = OpKind::None;
  uint16_t Reg = 0;
  uint8_t Width = 0;
  uint8_t Special = 0;
};

/// Parses an MCRegisterInfo name: "SGPR4_SGPR5", "VGPR12", "AGPR0_AGPR1",
/// "VCC_LO", "SRC_SHARED_BASE", "TTMP0_TTMP1", "FLAT_SCR_vi", ...
/// (MCInstPrinter::printRegName prints only numbers for AMDGPU in LLVM 22.)
RegInfo parseRegName(StringRef N) {
  RegInfo R;
  struct Named {
    const char *Name;
    uint16_t Reg;
    uint8_t Width;
  };
  static const Named Scalars[] = {
      {"VCC", SgprVCC, 2},          {"VCC_LO", SgprVCC, 1},
      {"VCC_HI", SgprVCC + 1, 1},   {"EXEC", SgprEXEC, 2},
      {"EXEC_LO", SgprEXEC, 1},     {"EXEC_HI", SgprEXEC + 1, 1},
      {"M0", SgprM0, 1},            {"M0_gfxpre11", SgprM0, 1},
      {"FLAT_SCR", SgprFlatScratch, 2},
      {"FLAT_SCR_vi", SgprFlatScratch, 2},
      {"FLAT_SCR_LO", SgprFlatScratch, 1},
      {"FLAT_SCR_LO_vi", SgprFlatScratch, 1},
      {"FLAT_SCR_HI", SgprFlatScratch + 1, 1},
      {"FLAT_SCR_HI_vi", SgprFlatScratch + 1, 1},
      {"XNACK_MASK", SgprXnackMask, 2},
      {"XNACK_MASK_LO", SgprXnackMask, 1},
      {"XNACK_MASK_HI", SgprXnackMask + 1, 1},
  };
  for (const Named &S : Scalars)
    if (N == S.Name) {
      R.Kind = OpKind::SGPR;
      R.Reg = S.Reg;
      R.Width = S.Width;
      return R;
    }
  static const std::pair<const char *, SpecialSrc> Specials[] = {
      {"SRC_SHARED_BASE", SpSharedBase},
      {"SRC_SHARED_BASE_LO", SpSharedBase},
      {"SRC_SHARED_LIMIT", SpSharedLimit},
      {"SRC_SHARED_LIMIT_LO", SpSharedLimit},
      {"SRC_PRIVATE_BASE", SpPrivateBase},
      {"SRC_PRIVATE_BASE_LO", SpPrivateBase},
      {"SRC_PRIVATE_LIMIT", SpPrivateLimit},
      {"SRC_PRIVATE_LIMIT_LO", SpPrivateLimit},
      {"SRC_POPS_EXITING_WAVE_ID", SpPopsExitingWaveID},
      {"SRC_VCCZ", SpVCCZ},
      {"SRC_EXECZ", SpEXECZ},
      {"SRC_SCC", SpSCC},
      {"SCC", SpSCC},
      {"LDS_DIRECT", SpLdsDirect},
  };
  for (auto &[Name, Sp] : Specials)
    if (N == Name) {
      R.Kind = OpKind::Special;
      R.Special = Sp;
      R.Width = 2;
      return R;
    }
  // Tuples: PREFIXa_PREFIXb_..., consecutive.
  struct Pre {
    const char *P;
    OpKind K;
    uint16_t Base;
  };
  static const Pre Prefixes[] = {{"SGPR", OpKind::SGPR, 0},
                                 {"VGPR", OpKind::VGPR, 0},
                                 {"AGPR", OpKind::AGPR, 0},
                                 {"TTMP", OpKind::SGPR, SgprTTMP}};
  for (const Pre &P : Prefixes) {
    if (!N.starts_with(P.P))
      continue;
    SmallVector<StringRef, 16> Parts;
    N.split(Parts, '_');
    unsigned First = 0, Count = 0;
    for (StringRef Part : Parts) {
      if (!Part.consume_front(P.P))
        return RegInfo();
      unsigned Idx;
      if (Part.getAsInteger(10, Idx))
        return RegInfo();
      if (Count == 0)
        First = Idx;
      else if (Idx != First + Count)
        return RegInfo();
      ++Count;
    }
    R.Kind = P.K;
    R.Reg = uint16_t(P.Base + First);
    R.Width = uint8_t(Count);
    return R;
  }
  return RegInfo();
}

class Decoder {
public:
  Decoder(const TargetContext &TC, Program &P)
      : TC(TC), P(P), InputModsType(P.Facts->inputModsType()) {}

  void decodeOne(const MCInst &MI, uint64_t Addr, unsigned Size);

private:
  const RegInfo &reg(MCRegister R);
  bool operand(const MCOperand &MO, Operand &Out, std::string &Err);
  void finishRegLists(DInst &I);
  void decodeFamily(DInst &I, StringRef Stem, const MCInstrDesc &D,
                    StringRef Text, std::string &Err);

  const TargetContext &TC;
  Program &P;
  unsigned InputModsType;
  DenseMap<unsigned, RegInfo> RegCache;
};

const RegInfo &Decoder::reg(MCRegister R) {
  auto It = RegCache.find(R.id());
  if (It != RegCache.end())
    return It->second;
  return RegCache[R.id()] = parseRegName(TC.regInfo().getName(R));
}

bool Decoder::operand(const MCOperand &MO, Operand &Out, std::string &Err) {
  if (MO.isReg()) {
    const RegInfo &RI = reg(MO.getReg());
    if (RI.Kind == OpKind::None) {
      Err = "register '" + std::string(TC.regInfo().getName(MO.getReg())) +
            "' is not modelled";
      return false;
    }
    Out.Kind = RI.Kind;
    Out.Reg = RI.Reg;
    Out.Width = RI.Width;
    Out.Special = RI.Special;
    return true;
  }
  if (MO.isImm()) {
    Out.Kind = OpKind::Imm;
    Out.Imm = uint64_t(MO.getImm());
    Out.Width = 2;
    return true;
  }
  if (MO.isExpr()) {
    int64_t V;
    if (MO.getExpr()->evaluateAsAbsolute(V)) {
      Out.Kind = OpKind::Imm;
      Out.Imm = uint64_t(V);
      Out.Width = 2;
      return true;
    }
    Err = "operand expression cannot be evaluated";
    return false;
  }
  if (MO.isDFPImm()) {
    Out.Kind = OpKind::Imm;
    Out.Imm = MO.getDFPImm();
    Out.Width = 2;
    return true;
  }
  Err = "unsupported operand kind";
  return false;
}

static void addRange(RegRange *List, uint8_t &N, unsigned Max,
                     const Operand &O) {
  if (!O.isReg() || N >= Max)
    return;
  RegRange R;
  R.File = O.Kind == OpKind::SGPR ? 0 : O.Kind == OpKind::VGPR ? 1 : 2;
  R.Reg = O.Reg;
  R.Count = O.Width;
  List[N++] = R;
}

void Decoder::finishRegLists(DInst &I) {
  for (unsigned K = 0; K < I.NumSrcs; ++K)
    addRange(I.Reads, I.NumReads, 8, I.Src[K]);
  for (unsigned K = 0; K < I.NumDefs; ++K)
    addRange(I.Writes, I.NumWrites, 3, I.Def[K]);
}

static bool hasToken(StringRef Text, StringRef Tok) {
  size_t Pos = 0;
  while ((Pos = Text.find(Tok, Pos)) != StringRef::npos) {
    size_t End = Pos + Tok.size();
    bool LeftOK = Pos == 0 || Text[Pos - 1] == ' ' || Text[Pos - 1] == '\t';
    bool RightOK = End == Text.size() || Text[End] == ' ';
    if (LeftOK && RightOK)
      return true;
    Pos = End;
  }
  return false;
}

void Decoder::decodeFamily(DInst &I, StringRef Stem, const MCInstrDesc &D,
                           StringRef Text, std::string &Err) {
  // Clamp and output modifiers: the printer shows them exactly when set,
  // which is more robust than their operand position.
  if (I.Flags & FIsVALU) {
    I.Clamp = hasToken(Text, "clamp");
    if (hasToken(Text, "mul:2"))
      I.Omod = 1;
    else if (hasToken(Text, "mul:4"))
      I.Omod = 2;
    else if (hasToken(Text, "div:2"))
      I.Omod = 3;
  }
  switch (I.E) {
  case Enc::DPP:
    if (I.NumImms < 4) {
      Err = "DPP instruction without its four control fields";
      return;
    }
    I.DppCtrl = uint16_t(I.Imm[I.NumImms - 4]);
    I.RowMask = uint8_t(I.Imm[I.NumImms - 3]);
    I.BankMask = uint8_t(I.Imm[I.NumImms - 2]);
    I.BoundCtrl = uint8_t(I.Imm[I.NumImms - 1]);
    break;
  case Enc::SDWA: {
    unsigned N = I.NumImms;
    const int64_t *T = I.Imm;
    bool VOPC = I.Flags & FIsVOPC;
    unsigned ExplicitSrcs = I.Aux; // set by caller: sources before implicit
    if (VOPC) {
      if (N < 3) {
        Err = "SDWA compare without source selects";
        return;
      }
      I.SrcSel[0] = uint8_t(T[N - 2]);
      I.SrcSel[1] = uint8_t(T[N - 1]);
    } else if (ExplicitSrcs >= 2) {
      if (N < 5) {
        Err = "SDWA instruction without its select fields";
        return;
      }
      I.DstSel = uint8_t(T[N - 4]);
      I.DstUnused = uint8_t(T[N - 3]);
      I.SrcSel[0] = uint8_t(T[N - 2]);
      I.SrcSel[1] = uint8_t(T[N - 1]);
    } else {
      if (N == 3) { // clamp, omod, src0_sel: no destination select
        I.SrcSel[0] = uint8_t(T[2]);
      } else if (N >= 4) {
        I.DstSel = uint8_t(T[N - 3]);
        I.DstUnused = uint8_t(T[N - 2]);
        I.SrcSel[0] = uint8_t(T[N - 1]);
      } else {
        Err = "SDWA instruction without its select fields";
        return;
      }
    }
    if (I.DstSel > 6 || I.SrcSel[0] > 6 || I.SrcSel[1] > 6 ||
        I.DstUnused > 2)
      Err = "SDWA select out of range";
    break;
  }
  default:
    break;
  }
  (void)Stem;
  (void)D;
}

void Decoder::decodeOne(const MCInst &MI, uint64_t Addr, unsigned Size) {
  DInst I;
  I.Addr = Addr;
  I.Size = uint8_t(Size);
  I.Index = uint32_t(P.Insts.size());
  I.Opcode = uint16_t(MI.getOpcode());
  DecodedText T;
  T.Name = TC.opcodeName(MI.getOpcode()).str();
  {
    raw_string_ostream OS(T.Text);
    TC.printer().printInst(&MI, Addr, "", TC.subtargetInfo(), OS);
  }
  T.Text = StringRef(T.Text).trim().str();
  for (char &C : T.Text)
    if (C == '\t')
      C = ' ';
  T.Mnemonic = StringRef(T.Text).split(' ').first.str();

  std::string Err;
  uint32_t AddrFlags = 0;
  Enc E = Enc::Native;
  std::string Stem = opcodeStem(T.Name, AddrFlags, E);
  I.E = E;
  I.Flags |= AddrFlags;
  StringRef StemRef(Stem);
  if (StemRef.starts_with("V_"))
    I.Flags |= FIsVALU;
  else if (StemRef.starts_with("S_"))
    I.Flags |= FIsSALU;
  if (StemRef.starts_with("V_CMP") || StemRef.starts_with("V_CMPX"))
    I.Flags |= FIsVOPC;

  const MCInstrDesc &D = TC.instrInfo().get(MI.getOpcode());
  unsigned NumDefs = D.getNumDefs();
  unsigned NOps = MI.getNumOperands();
  uint8_t PendingMods = 0;
  bool HavePendingMods = false;
  for (unsigned K = 0; K < NOps && Err.empty(); ++K) {
    const MCOperand &MO = MI.getOperand(K);
    bool InDesc = K < D.getNumOperands();
    if (K < NumDefs) {
      if (I.NumDefs >= 2) {
        Err = "more than two destinations";
        break;
      }
      operand(MO, I.Def[I.NumDefs++], Err);
      continue;
    }
    if (InDesc && D.getOperandConstraint(K, MCOI::TIED_TO) != -1)
      continue;
    if (InDesc && D.operands()[K].OperandType == InputModsType) {
      PendingMods = uint8_t(MO.isImm() ? MO.getImm() : 0);
      HavePendingMods = true;
      continue;
    }
    bool HasRC = InDesc && D.operands()[K].RegClass != -1;
    if (MO.isReg() || HasRC) {
      if (I.NumSrcs >= 4) {
        Err = "more than four sources";
        break;
      }
      Operand &O = I.Src[I.NumSrcs++];
      operand(MO, O, Err);
      if (HavePendingMods) {
        O.Mods = PendingMods;
        HavePendingMods = false;
      }
      continue;
    }
    // A named immediate (or the disassembler's extra trailing operand).
    if (I.NumImms < 6) {
      Operand O;
      if (operand(MO, O, Err))
        I.Imm[I.NumImms++] = int64_t(O.Imm);
    }
  }
  I.Aux = I.NumSrcs;
  // Implicit VCC of e32 carry/compare/cndmask forms, and of v_div_fmas.
  if (Err.empty() && (I.Flags & FIsVALU)) {
    auto IsVCC = [&](MCPhysReg R) {
      return StringRef(TC.regInfo().getName(R)) == "VCC";
    };
    for (MCPhysReg R : D.implicit_uses())
      if (IsVCC(R) && I.NumSrcs < 4) {
        Operand &O = I.Src[I.NumSrcs++];
        O.Kind = OpKind::SGPR;
        O.Reg = SgprVCC;
        O.Width = 2;
      }
    for (MCPhysReg R : D.implicit_defs())
      if (IsVCC(R) && I.NumDefs < 2) {
        Operand &O = I.Def[I.NumDefs++];
        O.Kind = OpKind::SGPR;
        O.Reg = SgprVCC;
        O.Width = 2;
      }
  }
  if (D.mayLoad() || D.mayStore()) {
    if (StemRef.starts_with("DS_"))
      I.Flags |= FIsDS;
    else if (StemRef.starts_with("BUFFER_") ||
             StemRef.starts_with("TBUFFER_"))
      I.Flags |= FIsVMEM | FIsMUBUF;
    else if (StemRef.starts_with("GLOBAL_"))
      I.Flags |= FIsVMEM | FIsGlobal;
    else if (StemRef.starts_with("SCRATCH_"))
      I.Flags |= FIsVMEM | FIsScratch;
    else if (StemRef.starts_with("FLAT_"))
      I.Flags |= FIsVMEM | FIsFLAT;
    else if (StemRef.starts_with("S_"))
      I.Flags |= FIsSMEM;
  }
  // Branch targets (SOPP simm16, in dwords after the next instruction).
  if (StemRef.starts_with("S_BRANCH") || StemRef.starts_with("S_CBRANCH")) {
    I.Flags |= FIsBranch;
    if (I.NumImms >= 1) {
      int16_t Off = int16_t(uint16_t(I.Imm[0]));
      I.Imm[1] = int64_t(Addr + 4 + int64_t(Off) * 4); // target address
    }
  }
  if (Err.empty())
    decodeFamily(I, StemRef, D, T.Text, Err);
  finishRegLists(I);

  const SemEntry *SE = Err.empty() ? semantics().find(Stem) : nullptr;
  if (SE && !(SE->Encodings & (1u << unsigned(I.E)))) {
    Err = "encoding not supported by the emulator";
    SE = nullptr;
  }
  if (SE) {
    I.Fn = SE->Fn;
    I.Info = SE->Info;
    I.Flags |= SE->Flags;
    if (SE->Aux)
      I.Aux = SE->Aux;
  } else {
    I.Fn = execUnimplemented;
    if (Err.empty()) {
      StringRef Why = refusedByDesign(Stem);
      Err = Why.empty() ? "no semantics for '" + Stem + "'"
                        : ("refused by design: " + Why).str();
    }
    I.Flags |= FDecodeError;
    P.Notes[I.Index] = Err;
  }
  P.ByAddr[Addr] = I.Index;
  P.Insts.push_back(I);
  P.Text.push_back(std::move(T));
  P.Recs.push_back(InstrRecord::fromMCInst(MI, *P.Facts));
  P.Recs.back().Addr = Addr;
}

} // namespace

std::string emu::opcodeStem(StringRef Name, uint32_t &AddrFlags, Enc &E) {
  AddrFlags = 0;
  E = Enc::Native;
  static const char *Subtargets[] = {"_vi", "_gfx9", "_gfx90a", "_gfx940",
                                     "_gfx950", "_gfx6_gfx7", "_si", "_ci"};
  std::string S = Name.str();
  bool Changed = true;
  while (Changed) {
    Changed = false;
    StringRef R(S);
    for (const char *Suf : Subtargets)
      if (R.ends_with(Suf)) {
        S.resize(S.size() - strlen(Suf));
        Changed = true;
        break;
      }
    R = StringRef(S);
    struct EncSuf {
      const char *Suf;
      Enc E;
    };
    static const EncSuf Encs[] = {{"_e32", Enc::E32},
                                  {"_e64", Enc::E64},
                                  {"_dpp", Enc::DPP},
                                  {"_sdwa", Enc::SDWA},
                                  {"_vcd", Enc::Native},
                                  {"_acd", Enc::Native},
                                  // VOP3 forms that carry op_sel operands
                                  // (V_ALIGNBIT_B32_opsel_gfx9): op_sel is
                                  // seen as a source modifier.
                                  {"_opsel", Enc::Native},
                                  // DS with AGPR data (DS_ADD_RTN_U32_vi_agpr):
                                  // the register file is in the operand.
                                  {"_agpr", Enc::Native}};
    for (const EncSuf &ES : Encs)
      if (R.ends_with(ES.Suf)) {
        S.resize(S.size() - strlen(ES.Suf));
        if (ES.E != Enc::Native)
          E = ES.E;
        Changed = true;
        break;
      }
  }
  StringRef R(S);
  auto Strip = [&](const char *Suf, uint32_t Flag) {
    if (StringRef(S).ends_with(Suf)) {
      S.resize(S.size() - strlen(Suf));
      AddrFlags |= Flag;
      return true;
    }
    return false;
  };
  if (R.starts_with("BUFFER_") || R.starts_with("TBUFFER_")) {
    // Returning atomics end in _RTN after the addressing mode
    // (BUFFER_ATOMIC_ADD_OFFEN_RTN).
    Strip("_RTN", FRtn);
    Strip("_OFFEN", FOffen) || Strip("_IDXEN", FIdxen) ||
        Strip("_BOTHEN", FOffen | FIdxen) || Strip("_OFFSET", 0) ||
        Strip("_ADDR64", 0);
    Strip("_RTN", FRtn);
    Strip("_LDS", FLds);
    Strip("_RTN", FRtn);
  } else if (R.starts_with("GLOBAL_") || R.starts_with("FLAT_") ||
             R.starts_with("SCRATCH_")) {
    Strip("_RTN", FRtn);
    // gfx940 scratch: _VE is the VGPR-address form (SVE set, no SGPR).
    Strip("_SADDR", FSaddr) || Strip("_SVS", FSaddr | FOffen) ||
        Strip("_ST", 0) || Strip("_VE", 0);
    Strip("_RTN", FRtn);
    if (R.starts_with("SCRATCH_") && !(AddrFlags & FSaddr) &&
        !StringRef(Name).contains("_ST_"))
      AddrFlags |= FOffen; // vaddr form
  } else if (R.starts_with("S_LOAD_") || R.starts_with("S_BUFFER_") ||
             R.starts_with("S_STORE_") || R.starts_with("S_ATOMIC_") ||
             R.starts_with("S_SCRATCH_") || R.starts_with("S_DCACHE_DISCARD") ||
             R.starts_with("S_ATC_PROBE")) {
    // Returning scalar atomics end in _RTN after the addressing mode
    // (S_ATOMIC_ADD_IMM_RTN).
    Strip("_RTN", FRtn);
    Strip("_SGPR_IMM", FSaddr) || Strip("_SGPR", FSaddr) || Strip("_IMM", 0);
    Strip("_RTN", FRtn);
  }
  return S;
}

/// Decodes \p Bytes, loaded at \p Base, into \p P.
static void decodeBytes(const TargetContext &TC, Program &P, Decoder &Dec,
                        ArrayRef<uint8_t> Bytes, uint64_t Base) {
  uint64_t Off = 0;
  while (Off < Bytes.size()) {
    MCInst MI;
    uint64_t Size = 0;
    auto St = TC.disassembler().getInstruction(MI, Size, Bytes.slice(Off),
                                               Base + Off, nulls());
    if (St != MCDisassembler::Success || Size == 0) {
      // Data in code: an instruction that stops the run if reached.
      DInst I;
      I.Addr = Base + Off;
      I.Size = 4;
      I.Index = uint32_t(P.Insts.size());
      I.Fn = execUnimplemented;
      I.Flags = FDecodeError;
      P.Notes[I.Index] = "bytes do not decode as an instruction";
      P.ByAddr[I.Addr] = I.Index;
      P.Insts.push_back(I);
      P.Recs.push_back(InstrRecord());
      P.Recs.back().F = &P.Facts->get(~0u);
      DecodedText T;
      T.Mnemonic = "<invalid>";
      T.Text = "<invalid encoding>";
      P.Text.push_back(T);
      Off += 4;
      continue;
    }
    Dec.decodeOne(MI, Base + Off, unsigned(Size));
    Off += Size;
  }
}

Expected<std::unique_ptr<Program>> Program::decode(const CodeObject &CO) {
  if (!CO.target().isGFX90A() && !CO.target().isGFX94X())
    return createStringError("%s: target %s is not supported by the emulator "
                             "(gfx90a and gfx942 are)",
                             CO.name().str().c_str(),
                             CO.target().Processor.c_str());
  std::vector<std::pair<uint64_t, ArrayRef<uint8_t>>> Code;
  for (const ELFSection &S : CO.sections())
    if (S.isExec() && !S.Bytes.empty())
      Code.push_back({S.Addr, S.Bytes});
  return decode(CO.target(), Code);
}

Expected<std::unique_ptr<Program>>
Program::decode(const TargetInfo &Target,
                ArrayRef<std::pair<uint64_t, ArrayRef<uint8_t>>> Code) {
  auto TCOrErr = TargetContext::create(Target);
  if (!TCOrErr)
    return TCOrErr.takeError();
  std::unique_ptr<Program> P(new Program());
  P->TC = std::move(*TCOrErr);
  const TargetContext &TC = *P->TC;
  P->Facts = std::make_unique<ISAFacts>(TC);
  P->IsGFX90A = Target.isGFX90A();
  P->IsGFX94X = Target.isGFX94X();
  Decoder Dec(TC, *P);
  for (auto &[Addr, Bytes] : Code)
    decodeBytes(TC, *P, Dec, Bytes, Addr);
  // Sentinel: falling off the end of the code is a bad jump.
  {
    DInst I;
    I.Addr = ~0ull;
    I.Index = uint32_t(P->Insts.size());
    I.Fn = execUnimplemented;
    I.Flags = FDecodeError;
    P->Notes[I.Index] = "execution ran past the end of the code";
    P->Insts.push_back(I);
    P->Recs.push_back(InstrRecord());
    P->Recs.back().F = &P->Facts->get(~0u);
    DecodedText T;
    T.Mnemonic = "<end>";
    T.Text = "<end of code>";
    P->Text.push_back(T);
  }
  // Resolve branch targets.
  for (DInst &I : P->Insts) {
    if (!(I.Flags & FIsBranch) || I.NumImms < 1)
      continue;
    const DInst *T = P->at(uint64_t(I.Imm[1]));
    if (!T)
      I.Flags |= FBadTarget;
    else
      I.Target = T->Index;
  }
  return std::move(P);
}
