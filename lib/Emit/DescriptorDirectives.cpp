//===- DescriptorDirectives.cpp - Descriptors as .amdhsa_kernel text ------===//
//
// Directive names and what each sets: AMDGPUUsage.rst, "Code Object V3 and
// Above Directives" (the `.amdhsa_*` table) and "Code Object V3+ Kernel
// Descriptor"; bit positions from llvm/Support/AMDHSAKernelDescriptor.h.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Emit/DescriptorDirectives.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/CodeObject/TargetInfo.h"
#include "asmevo/Emit/AsmText.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/AMDHSAKernelDescriptor.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include <map>
#include <optional>

using namespace llvm;
using namespace asmevo;

namespace {

/// One descriptor field that a directive sets verbatim.
struct Field {
  const char *Directive;
  unsigned Shift;
  unsigned Width;
};

#define ASMEVO_FIELD(DIRECTIVE, MASK)                                          \
  Field { DIRECTIVE, amdhsa::MASK##_SHIFT, amdhsa::MASK##_WIDTH }

uint32_t maskOf(const Field &F) {
  return F.Width >= 32 ? ~0u : ((1u << F.Width) - 1) << F.Shift;
}

/// Writes "\t.directive value\n" for every field of \p Word in \p Fields
/// and returns the bits of \p Word that no field covered.
uint32_t writeFields(raw_ostream &OS, uint32_t Word, ArrayRef<Field> Fields) {
  for (const Field &F : Fields) {
    OS << "\t\t" << F.Directive << ' ' << ((Word & maskOf(F)) >> F.Shift)
       << '\n';
    Word &= ~maskOf(F);
  }
  return Word;
}

Error noDirective(StringRef Word, uint32_t Bits, const TargetInfo &T) {
  return createStringError(Word + " bits " + utohexstr(Bits, false, 8) +
                           " have no .amdhsa directive on " + T.Processor);
}

/// SGPRs the assembler adds to .amdhsa_next_free_sgpr before granulating,
/// with .amdhsa_reserve_vcc 0 and .amdhsa_reserve_flat_scratch 0 (AMDGPUUsage
/// "GRANULATED_WAVEFRONT_SGPR_COUNT"): targets with architected flat scratch
/// always reserve 6 (flat scratch, XNACK mask, VCC); otherwise the XNACK
/// mask (4 with VCC) when the target ID allows XNACK.
unsigned extraSGPRs(const TargetInfo &T) {
  if (T.hasArchitectedFlatScratch())
    return 6;
  return T.Xnack == TargetFeature::Off ? 0 : 4;
}

// GFX9 family: 102 addressable SGPRs; SGPRs and wave64 VGPRs of
// gfx90a/gfx94x/gfx950 are granulated in blocks of 8 (AMDGPUUsage,
// compute_pgm_rsrc1 table).
constexpr unsigned AddressableSGPRs = 102;
constexpr unsigned SGPRGranule = 8;
constexpr unsigned VGPRGranule = 8;

bool isPlainIdentifier(StringRef S) {
  if (S.empty() || isDigit(S.front()))
    return false;
  return all_of(
      S, [](char C) { return isAlnum(C) || C == '_' || C == '.' || C == '$'; });
}

} // namespace

Expected<std::string> asmevo::amdhsaKernelBlock(StringRef Kernel,
                                                const KernelDescriptor &KD,
                                                const TargetInfo &T) {
  if (!(T.isGFX90A() || T.isGFX94X() || T.isGFX950()))
    return createStringError("no directive rules for " + T.Processor);
  ArrayRef<uint8_t> B = KD.bytes();
  // Bytes no directive sets: reserved0 (12..15), reserved1 (24..43),
  // reserved3 (60..63).
  for (auto [Lo, Hi] : {std::pair(12u, 16u), {24u, 44u}, {60u, 64u}})
    for (unsigned I = Lo; I < Hi; ++I)
      if (B[I])
        return createStringError("reserved descriptor byte " + Twine(I) +
                                 " is " + utohexstr(B[I]) + ", not 0");

  bool ArchFS = T.hasArchitectedFlatScratch();
  std::string Text;
  raw_string_ostream OS(Text);
  OS << "\t.amdhsa_kernel " << Kernel << '\n';
  OS << "\t\t.amdhsa_group_segment_fixed_size " << KD.groupSegmentFixedSize()
     << '\n';
  OS << "\t\t.amdhsa_private_segment_fixed_size "
     << KD.privateSegmentFixedSize() << '\n';
  OS << "\t\t.amdhsa_kernarg_size " << KD.kernargSize() << '\n';

  // kernel_code_properties and the kernarg preload spec.
  std::vector<Field> Props;
  if (!ArchFS)
    Props.push_back(
        ASMEVO_FIELD(".amdhsa_user_sgpr_private_segment_buffer",
                     KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_BUFFER));
  Props.push_back(ASMEVO_FIELD(".amdhsa_user_sgpr_dispatch_ptr",
                               KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_PTR));
  Props.push_back(ASMEVO_FIELD(".amdhsa_user_sgpr_queue_ptr",
                               KERNEL_CODE_PROPERTY_ENABLE_SGPR_QUEUE_PTR));
  Props.push_back(
      ASMEVO_FIELD(".amdhsa_user_sgpr_kernarg_segment_ptr",
                   KERNEL_CODE_PROPERTY_ENABLE_SGPR_KERNARG_SEGMENT_PTR));
  Props.push_back(ASMEVO_FIELD(".amdhsa_user_sgpr_dispatch_id",
                               KERNEL_CODE_PROPERTY_ENABLE_SGPR_DISPATCH_ID));
  if (!ArchFS)
    Props.push_back(
        ASMEVO_FIELD(".amdhsa_user_sgpr_flat_scratch_init",
                     KERNEL_CODE_PROPERTY_ENABLE_SGPR_FLAT_SCRATCH_INIT));
  Props.push_back(
      ASMEVO_FIELD(".amdhsa_user_sgpr_private_segment_size",
                   KERNEL_CODE_PROPERTY_ENABLE_SGPR_PRIVATE_SEGMENT_SIZE));
  Props.push_back(ASMEVO_FIELD(".amdhsa_uses_dynamic_stack",
                               KERNEL_CODE_PROPERTY_USES_DYNAMIC_STACK));
  if (uint32_t Left = writeFields(OS, KD.kernelCodeProperties(), Props))
    return noDirective("kernel_code_properties", Left, T);
  static const Field Preload[] = {
      ASMEVO_FIELD(".amdhsa_user_sgpr_kernarg_preload_length",
                   KERNARG_PRELOAD_SPEC_LENGTH),
      ASMEVO_FIELD(".amdhsa_user_sgpr_kernarg_preload_offset",
                   KERNARG_PRELOAD_SPEC_OFFSET)};
  writeFields(OS, KD.kernargPreload(), Preload);

  // compute_pgm_rsrc2. The user SGPR count is given explicitly: the
  // assembler's implied count is only a lower bound the descriptor may
  // exceed.
  std::vector<Field> R2 = {
      ASMEVO_FIELD(ArchFS
                       ? ".amdhsa_enable_private_segment"
                       : ".amdhsa_system_sgpr_private_segment_wavefront_offset",
                   COMPUTE_PGM_RSRC2_ENABLE_PRIVATE_SEGMENT),
      ASMEVO_FIELD(".amdhsa_user_sgpr_count",
                   COMPUTE_PGM_RSRC2_GFX6_GFX120_USER_SGPR_COUNT),
      ASMEVO_FIELD(".amdhsa_system_sgpr_workgroup_id_x",
                   COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_X),
      ASMEVO_FIELD(".amdhsa_system_sgpr_workgroup_id_y",
                   COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Y),
      ASMEVO_FIELD(".amdhsa_system_sgpr_workgroup_id_z",
                   COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_ID_Z),
      ASMEVO_FIELD(".amdhsa_system_sgpr_workgroup_info",
                   COMPUTE_PGM_RSRC2_ENABLE_SGPR_WORKGROUP_INFO),
      ASMEVO_FIELD(".amdhsa_system_vgpr_workitem_id",
                   COMPUTE_PGM_RSRC2_ENABLE_VGPR_WORKITEM_ID),
      ASMEVO_FIELD(
          ".amdhsa_exception_fp_ieee_invalid_op",
          COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_INVALID_OPERATION),
      ASMEVO_FIELD(".amdhsa_exception_fp_denorm_src",
                   COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_FP_DENORMAL_SOURCE),
      ASMEVO_FIELD(
          ".amdhsa_exception_fp_ieee_div_zero",
          COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_DIVISION_BY_ZERO),
      ASMEVO_FIELD(".amdhsa_exception_fp_ieee_overflow",
                   COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_OVERFLOW),
      ASMEVO_FIELD(".amdhsa_exception_fp_ieee_underflow",
                   COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_UNDERFLOW),
      ASMEVO_FIELD(".amdhsa_exception_fp_ieee_inexact",
                   COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_IEEE_754_FP_INEXACT),
      ASMEVO_FIELD(".amdhsa_exception_int_div_zero",
                   COMPUTE_PGM_RSRC2_ENABLE_EXCEPTION_INT_DIVIDE_BY_ZERO)};
  if (uint32_t Left = writeFields(OS, KD.pgmRsrc2(), R2))
    return noDirective("compute_pgm_rsrc2", Left, T);

  // Register granules: the assembler computes them from next_free values,
  // so write values that granulate back to the same blocks. On gfx90a+ the
  // VGPR count is the unified ArchVGPR + AGPR file.
  unsigned VG = KD.vgprGranule(), SG = KD.sgprGranule();
  unsigned NextFreeVGPR = (VG + 1) * VGPRGranule;
  unsigned Extra = extraSGPRs(T);
  unsigned NextFreeSGPR =
      std::min((SG + 1) * SGPRGranule - Extra, AddressableSGPRs);
  if (NextFreeSGPR + Extra <= SG * SGPRGranule)
    return createStringError(
        "SGPR granule " + Twine(SG) + " needs more than " +
        Twine(AddressableSGPRs) + " addressable SGPRs (+" + Twine(Extra) +
        " reserved): no .amdhsa_next_free_sgpr reaches it");
  OS << "\t\t.amdhsa_next_free_vgpr " << NextFreeVGPR << '\n';
  OS << "\t\t.amdhsa_next_free_sgpr " << NextFreeSGPR << '\n';
  OS << "\t\t.amdhsa_reserve_vcc 0\n";
  if (!ArchFS)
    OS << "\t\t.amdhsa_reserve_flat_scratch 0\n";

  // compute_pgm_rsrc3 (gfx90a family): ACCUM_OFFSET is (offset / 4) - 1.
  static const Field R3[] = {
      ASMEVO_FIELD(".amdhsa_tg_split", COMPUTE_PGM_RSRC3_GFX90A_TG_SPLIT)};
  OS << "\t\t.amdhsa_accum_offset " << KD.accumOffset() << '\n';
  if (uint32_t Left = writeFields(OS, KD.pgmRsrc3() & ~0x3fu, R3))
    return noDirective("compute_pgm_rsrc3", Left, T);

  // compute_pgm_rsrc1, granules excluded (written above).
  static const Field R1[] = {
      ASMEVO_FIELD(".amdhsa_float_round_mode_32",
                   COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_32),
      ASMEVO_FIELD(".amdhsa_float_round_mode_16_64",
                   COMPUTE_PGM_RSRC1_FLOAT_ROUND_MODE_16_64),
      ASMEVO_FIELD(".amdhsa_float_denorm_mode_32",
                   COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_32),
      ASMEVO_FIELD(".amdhsa_float_denorm_mode_16_64",
                   COMPUTE_PGM_RSRC1_FLOAT_DENORM_MODE_16_64),
      ASMEVO_FIELD(".amdhsa_dx10_clamp",
                   COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_DX10_CLAMP),
      ASMEVO_FIELD(".amdhsa_ieee_mode",
                   COMPUTE_PGM_RSRC1_GFX6_GFX11_ENABLE_IEEE_MODE),
      ASMEVO_FIELD(".amdhsa_fp16_overflow",
                   COMPUTE_PGM_RSRC1_GFX9_PLUS_FP16_OVFL)};
  uint32_t Granules = amdhsa::COMPUTE_PGM_RSRC1_GRANULATED_WORKITEM_VGPR_COUNT |
                      amdhsa::COMPUTE_PGM_RSRC1_GRANULATED_WAVEFRONT_SGPR_COUNT;
  if (uint32_t Left = writeFields(OS, KD.pgmRsrc1() & ~Granules, R1))
    return noDirective("compute_pgm_rsrc1", Left, T);
  OS << "\t.end_amdhsa_kernel";
  return Text;
}

namespace {

/// The symbols the `.amdhsa_kernel` directive touches must come out as the
/// original has them: it defines NAME.kd at the descriptor (object, size
/// 64, binding and st_other copied from NAME) and makes a default-visibility
/// NAME protected (LLVM's AMDGPU ELF target streamer). A default-visibility
/// NAME.kd next to a protected NAME (what older assemblers wrote) comes out
/// right when NAME's visibility is written only after the block.
std::optional<std::string>
symbolProblem(const CodeObject &CO, const KernelInfo &K, DescriptorForm &F) {
  if (!isPlainIdentifier(K.Name))
    return "the kernel name needs quoting in assembler text";
  if (K.DescriptorSymbol != K.Name + ".kd")
    return "the descriptor symbol '" + K.DescriptorSymbol +
           "' is not the kernel name + .kd";
  ArrayRef<ELFSymbol> Syms =
      CO.symbols().empty() ? CO.dynamicSymbols() : CO.symbols();
  const ELFSymbol *Code = nullptr, *Desc = nullptr;
  for (const ELFSymbol &S : Syms) {
    const ELFSymbol **Slot = S.Name == K.Name               ? &Code
                             : S.Name == K.DescriptorSymbol ? &Desc
                                                            : nullptr;
    if (!Slot)
      continue;
    if (*Slot)
      return "more than one symbol named '" + S.Name + "'";
    *Slot = &S;
  }
  // Only descriptors in a data section reach the writer's descriptor path.
  const ELFSection *Sec = CO.sectionForAddr(K.DescriptorAddr);
  if (!Sec || Sec->isExec() || Sec->Type != ELF::SHT_PROGBITS)
    return "the descriptor is not in a data section";
  if (!Code || Code->Value != K.EntryAddr)
    return "no symbol '" + K.Name + "' at the kernel entry";
  if (!Desc || Desc->Value != K.DescriptorAddr)
    return "no symbol '" + K.DescriptorSymbol + "' at the descriptor";
  if ((Code->Other & 3) == ELF::STV_DEFAULT)
    return "the kernel symbol has default visibility, which the directive "
           "would make protected";
  if (Desc->Type != ELF::STT_OBJECT || Desc->Size != KernelDescriptor::Size)
    return "the descriptor symbol is not a 64-byte object, as the directive "
           "makes it";
  if (Desc->Binding != Code->Binding)
    return "the descriptor symbol's binding differs from the kernel's, which "
           "the directive copies";
  if ((Desc->Other & ~3) != (Code->Other & ~3))
    return "the descriptor symbol's st_other flags differ from the kernel's, "
           "which the directive copies";
  if ((Desc->Other & 3) != (Code->Other & 3)) {
    if ((Desc->Other & 3) != ELF::STV_DEFAULT)
      return "the descriptor symbol's visibility differs from the kernel's, "
             "which the directive copies";
    F.DeferredVisibility = Code;
  }
  return std::nullopt;
}

/// One kernel whose directive block is being checked.
struct Candidate {
  unsigned Kernel;
  unsigned FirstLine = 0, LastLine = 0; // of its block in the check text
};

/// The check text: every candidate's block in .rodata, 64 bytes apart, each
/// kernel a label in .text so the entry offset has a target.
std::string checkText(const CodeObject &CO, std::vector<Candidate> &Cands,
                      ArrayRef<DescriptorForm> Forms) {
  std::string Text;
  raw_string_ostream OS(Text);
  OS << "\t.amdgcn_target \"" << CO.target().targetID() << "\"\n"
     << "\t.amdhsa_code_object_version " << CO.target().CodeObjectVersion
     << "\n\t.text\n";
  for (const Candidate &C : Cands)
    OS << "\t.p2align 8\n" << CO.kernels()[C.Kernel].Name << ":\n\ts_endpgm\n";
  OS << "\t.section .rodata,\"a\",@progbits\n";
  unsigned Line = 4 + 3 * Cands.size(); // lines written so far
  for (Candidate &C : Cands) {
    OS << "\t.p2align 6\n";
    ++Line;
    StringRef Block = Forms[C.Kernel].Directives;
    C.FirstLine = Line + 1;
    Line += Block.count('\n') + 1;
    C.LastLine = Line;
    OS << Block << '\n';
  }
  return Text;
}

Expected<ArrayRef<uint8_t>> rodataOf(const object::ObjectFile &Obj) {
  for (const object::SectionRef &S : Obj.sections()) {
    Expected<StringRef> Name = S.getName();
    if (!Name)
      return Name.takeError();
    if (*Name != ".rodata")
      continue;
    Expected<StringRef> C = S.getContents();
    if (!C)
      return C.takeError();
    return arrayRefFromStringRef(*C);
  }
  return createStringError("no .rodata in the check object");
}

/// Attributes the assembler's "<check>:LINE:COL: error: MSG" lines to the
/// blocks they fall in. Returns how many candidates were rejected.
unsigned rejectFromDiagnostics(StringRef Diags, std::vector<Candidate> &Cands,
                               MutableArrayRef<DescriptorForm> Forms) {
  std::map<unsigned, std::string> Rejected; // candidate index -> message
  SmallVector<StringRef, 16> Lines;
  Diags.split(Lines, '\n');
  for (unsigned LI = 0; LI < Lines.size(); ++LI) {
    StringRef L = Lines[LI];
    size_t At = L.find("<descriptor-check>:");
    if (At == StringRef::npos)
      continue;
    StringRef Rest = L.drop_front(At + StringRef("<descriptor-check>:").size());
    unsigned LineNo;
    if (Rest.consumeInteger(10, LineNo))
      continue;
    std::string Msg = Rest.split(": error: ").second.trim().str();
    if (Msg.empty())
      continue;
    // The diagnostic's next line is the offending source line.
    if (LI + 1 < Lines.size() && Lines[LI + 1].trim().starts_with(".amdhsa"))
      Msg += " (" + Lines[LI + 1].trim().str() + ")";
    for (unsigned I = 0; I < Cands.size(); ++I)
      if (LineNo >= Cands[I].FirstLine && LineNo <= Cands[I].LastLine &&
          !Rejected.count(I))
        Rejected[I] = Msg;
  }
  for (auto &[I, Msg] : Rejected) {
    DescriptorForm &F = Forms[Cands[I].Kernel];
    F.Directives.clear();
    F.Reason = "LLVM's assembler rejects the directives: " + Msg;
  }
  std::vector<Candidate> Left;
  for (unsigned I = 0; I < Cands.size(); ++I)
    if (!Rejected.count(I))
      Left.push_back(Cands[I]);
  Cands = std::move(Left);
  return Rejected.size();
}

void rejectAll(std::vector<Candidate> &Cands,
               MutableArrayRef<DescriptorForm> Forms, const Twine &Why) {
  for (const Candidate &C : Cands) {
    Forms[C.Kernel].Directives.clear();
    Forms[C.Kernel].Reason = Why.str();
  }
  Cands.clear();
}

} // namespace

std::vector<DescriptorForm>
asmevo::planDescriptorSymbols(const CodeObject &CO) {
  std::vector<DescriptorForm> Forms(CO.kernels().size());
  for (unsigned K = 0; K < Forms.size(); ++K)
    if (auto P = symbolProblem(CO, CO.kernels()[K], Forms[K]))
      Forms[K].Reason = *P;
  return Forms;
}

std::vector<DescriptorForm>
asmevo::chooseDescriptorForms(const CodeObject &CO,
                              ArrayRef<KernelDescriptor> KDs) {
  std::vector<DescriptorForm> Forms = planDescriptorSymbols(CO);
  chooseDescriptorDirectives(CO, KDs, Forms);
  return Forms;
}

void asmevo::chooseDescriptorDirectives(const CodeObject &CO,
                                        ArrayRef<KernelDescriptor> KDs,
                                        MutableArrayRef<DescriptorForm> Forms) {
  std::vector<Candidate> Cands;
  for (unsigned K = 0; K < Forms.size() && K < CO.kernels().size(); ++K) {
    const KernelInfo &KI = CO.kernels()[K];
    if (!Forms[K].Reason.empty())
      continue;
    if (K >= KDs.size()) {
      Forms[K].Reason = "no descriptor to write";
      continue;
    }
    Expected<std::string> Block =
        amdhsaKernelBlock(KI.Name, KDs[K], CO.target());
    if (!Block) {
      Forms[K].Reason = toString(Block.takeError());
      continue;
    }
    Forms[K].Directives = std::move(*Block);
    Cands.push_back({K});
  }

  // The parser stops a block at its first error and goes on with the next
  // one, so one run finds every rejected block; a second run assembles the
  // rest. More runs only if an error could not be attributed to a block.
  for (unsigned Round = 0; Round < 4 && !Cands.empty(); ++Round) {
    std::string Text = checkText(CO, Cands, Forms);
    Expected<std::vector<uint8_t>> Obj = assemble(Text, "<descriptor-check>");
    if (!Obj) {
      std::string Msg = toString(Obj.takeError());
      if (!rejectFromDiagnostics(Msg, Cands, Forms))
        rejectAll(
            Cands, Forms,
            "the directives do not assemble: " +
                StringRef(Msg).split('\n').second.split('\n').first.trim());
      continue;
    }
    auto File = object::ObjectFile::createObjectFile(MemoryBufferRef(
        toStringRef(ArrayRef<uint8_t>(*Obj)), "<descriptor-check>"));
    Expected<ArrayRef<uint8_t>> RO =
        File ? rodataOf(**File) : Expected<ArrayRef<uint8_t>>(File.takeError());
    if (!RO) {
      rejectAll(Cands, Forms,
                "cannot read the check object: " + toString(RO.takeError()));
      break;
    }
    for (unsigned I = 0; I < Cands.size(); ++I) {
      unsigned K = Cands[I].Kernel;
      ArrayRef<uint8_t> Want = KDs[K].bytes();
      ArrayRef<uint8_t> Got =
          RO->size() >= (I + 1) * KernelDescriptor::Size
              ? RO->slice(I * KernelDescriptor::Size, KernelDescriptor::Size)
              : ArrayRef<uint8_t>();
      if (Got.empty()) {
        Forms[K].Directives.clear();
        Forms[K].Reason = "the directives did not produce a descriptor";
        continue;
      }
      // Bytes 16..23 are the entry offset, a relocation until lld links.
      for (unsigned B = 0; B < KernelDescriptor::Size; ++B) {
        if ((B >= 16 && B < 24) || Got[B] == Want[B])
          continue;
        Forms[K].Directives.clear();
        Forms[K].Reason = (Twine("the directives assemble to another "
                                 "descriptor (byte ") +
                           Twine(B) + " is 0x" + utohexstr(Got[B]) +
                           ", not 0x" + utohexstr(Want[B]) + ")")
                              .str();
        break;
      }
    }
    break;
  }
}
