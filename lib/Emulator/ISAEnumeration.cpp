//===- ISAEnumeration.cpp - A target's opcodes, found by decoding ---------===//
//
// Field layouts from the CDNA3 / CDNA2 ISA documents, chapter 12
// ("Microcode Formats"). Every sweep fixes operands that are valid for
// every opcode of the family where possible (even register numbers, so
// 64-bit and larger tuples are aligned; SGPR sources where VOP3 forms
// need them) and varies the opcode field and the variant bits. An opcode
// the disassembler accepts with at least one of these operand choices is
// counted once, under the first family that found it.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Emulator/ISACoverage.h"
#include "asmevo/Support/TargetContext.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCInst.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

namespace {

/// One sweep: dword 0 is Base | op << Shift (op < 2^Bits); then, for every
/// combination of one value from each of Dw0 (or'ed into dword 0) and one
/// from each of Dw1 (or'ed into dword 1), a decode. The disassembler
/// rejects some encodings whose unused operand fields are not zero, so
/// operand fields come with 0 among their values. A trailing literal (1.0f)
/// is there for the opcodes that read one.
using Choices = std::vector<std::vector<uint32_t>>;
struct Sweep {
  const char *Family;
  uint32_t Base;
  unsigned Shift, Bits;
  Choices Dw0, Dw1;
};

constexpr uint32_t Lit = 0x3f800000;

// VOP1/VOP2/VOPC src0 codes that announce a DPP or SDWA second dword, and
// those dwords: DPP quad_perm identity (0xe4), row/bank masks 0xf, src0
// v6; SDWA src0 v6 with DWORD selects (VOP1: dst and src0; VOP2: dst,
// src0 and src1; VOPC: src0 and src1, VCC destination).
constexpr uint32_t SrcDPP = 0xfa, SrcSDWA = 0xf9;
constexpr uint32_t DppDw = 0xff00e406;
constexpr uint32_t SdwaVOP1 = 0x00060606, SdwaVOP2 = 0x06060606,
                   SdwaVOPC = 0x06060006;

std::vector<Sweep> sweeps() {
  std::vector<Sweep> S;
  // Scalar: sdst s2, ssrc0 s4 (SOP1) / s6 (SOP2, SOPC), ssrc1 s4.
  S.push_back({"SOPP", 0xbf800000, 16, 7, {{0, 1}}, {{Lit}}});
  S.push_back({"SOPC", 0xbf000000, 16, 7, {{0x0406, 0}}, {{Lit}}});
  S.push_back({"SOP1", 0xbe800000, 8, 8, {{0, 2 << 16}, {0, 4}}, {{Lit}}});
  S.push_back({"SOPK", 0xb0000000, 23, 5, {{0, 2 << 16}, {0x10}}, {{Lit}}});
  S.push_back({"SOP2", 0x80000000, 23, 7, {{0x00020406}}, {{Lit}}});
  // SMEM: sdata s16 or 0, sbase s[4:5] or 0; immediate offset, SGPR offset
  // (s8), SGPR + immediate (soe, soffset in bits 63:57).
  S.push_back({"SMEM", 0xc0000000, 18, 8,
               {{0, 16 << 6}, {0, 2}, {1u << 17, 0, (1u << 17) | (1u << 14)}},
               {{0x10 | (8u << 25), 8, 0x10}}});
  // Vector: vdst v2, vsrc1 v4, src0 v6 (0x106).
  S.push_back({"VOPC", 0x7c000000, 17, 8,
               {{4 << 9}, {0x106, SrcDPP, SrcSDWA}},
               {{DppDw, SdwaVOPC, SdwaVOP2}}});
  S.push_back({"VOP1", 0x7e000000, 9, 8,
               {{0, 2 << 17}, {0, 0x106, SrcDPP, SrcSDWA}},
               {{DppDw, SdwaVOP1, SdwaVOP2, Lit}}});
  S.push_back({"VOP2", 0x00000000, 25, 6,
               {{2 << 17}, {4 << 9}, {0x106, SrcDPP, SrcSDWA}},
               {{DppDw, SdwaVOP2, SdwaVOP1, Lit}}});
  // VOP3P and MAI: vdst 0, src0 v4, src1 v8, src2 v16 or 0, op_sel_hi
  // set or not; bit 15 is clamp (VOP3P) or acc_cd (MAI: _vcd / _acd).
  S.push_back({"VOP3P", 0xd3800000, 16, 7, {{0, 1u << 15}},
               {{0x104 | (0x108u << 9)}, {0, 0x110u << 18}, {0, 3u << 27}}});
  // VOP3 (VOP3A/VOP3B, and the VOPC/VOP1/VOP2 e64 forms): vdst v2 (sdst s0
  // in VOP3B); each source a VGPR, an SGPR or (src1, src2) unused.
  S.push_back({"VOP3", 0xd0000000, 16, 10, {{2}},
               {{0x106, 4}, {0, 0x108u << 9, 6u << 9}, {0, 0x10au << 18,
                                                        8u << 18}}});
  S.push_back({"VINTRP", 0xd4000000, 16, 2, {{(2 << 18) | 4}}, {{Lit}}});
  // DS: addr v2, data0 v4, data1 v6, vdst v8, each present or not; gds;
  // acc (gfx90a AGPR data).
  S.push_back({"DS", 0xd8000000, 17, 8, {{0, 1 << 16}, {0, 1 << 25}},
               {{0, 2}, {0, 4 << 8}, {0, 6 << 16}, {0, 8u << 24}}});
  // MUBUF / MTBUF: vaddr v2 or 0, vdata v4 or 0, srsrc s[8:11], soffset
  // 0; every combination of offen/idxen, and lds.
  S.push_back({"MUBUF", 0xe0000000, 18, 7,
               {{0, 1u << 12, 1u << 13, 3u << 12}, {0, 1u << 16}},
               {{0, 2}, {0, 4 << 8}, {(2 << 16) | (0x80u << 24)}}});
  S.push_back({"MTBUF", 0xe8000000, 15, 4,
               {{0, 1u << 12, 1u << 13, 3u << 12}, {(4 << 19) | (4 << 23)}},
               {{0, 2}, {0, 4 << 8}, {(2 << 16) | (0x80u << 24)}}});
  // FLAT / GLOBAL / SCRATCH (seg 0/1/2): addr v2 or 0, data v4 or 0,
  // vdst v6 or 0; saddr off (0x7f), 0 or s4; bit 13 (lds, or scratch sve
  // on gfx940).
  S.push_back({"FLAT", 0xdc000000, 18, 7, {{0, 1u << 14, 2u << 14}, {0, 1u << 13}},
               {{0, 2}, {0, 4 << 8}, {0x7fu << 16, 0, 4u << 16},
                {0, 6u << 24}}});
  // MIMG: dmask 1, vaddr v2, vdata v4, srsrc s[8:15], ssamp s[16:19].
  S.push_back({"MIMG", 0xf0000000, 18, 7, {{1 << 8}},
               {{2 | (4 << 8) | (2 << 16) | (4u << 21)}}});
  S.push_back({"EXP", 0xc4000000, 0, 0, {{1}}, {{0}}});
  return S;
}

/// Every or-combination of one value per choice list.
std::vector<uint32_t> combinations(const Choices &C) {
  std::vector<uint32_t> Out = {0};
  for (const std::vector<uint32_t> &Alt : C) {
    std::vector<uint32_t> Next;
    for (uint32_t A : Out)
      for (uint32_t B : Alt)
        Next.push_back(A | B);
    Out = std::move(Next);
  }
  return Out;
}

std::string familyOf(StringRef Sweep, StringRef Name) {
  if (Sweep == "VOP1" || Sweep == "VOP2" || Sweep == "VOPC") {
    if (Name.contains("_dpp"))
      return (Sweep + "-DPP").str();
    if (Name.contains("_sdwa"))
      return (Sweep + "-SDWA").str();
  }
  if (Sweep == "VOP3P" && (Name.contains("MFMA") || Name.contains("SMFMAC")))
    return "MAI";
  if (Sweep == "FLAT") {
    if (Name.starts_with("GLOBAL_"))
      return "GLOBAL";
    if (Name.starts_with("SCRATCH_"))
      return "SCRATCH";
  }
  return Sweep.str();
}

const char *const Families[] = {
    "SOP1",     "SOP2",      "SOPC",   "SOPK",      "SOPP",   "SMEM",
    "VOP1",     "VOP1-DPP",  "VOP1-SDWA", "VOP2",   "VOP2-DPP", "VOP2-SDWA",
    "VOPC",     "VOPC-DPP",  "VOPC-SDWA", "VOP3",   "VOP3P",  "MAI",
    "VINTRP",   "DS",        "MUBUF",  "MTBUF",     "FLAT",   "GLOBAL",
    "SCRATCH",  "MIMG",      "EXP"};

} // namespace

ArrayRef<const char *> emu::isaFamilies() { return Families; }

std::vector<ISAOpcode> emu::enumerateISA(const TargetContext &TC) {
  StringMap<size_t> Seen;
  std::vector<ISAOpcode> Out;
  for (const Sweep &Sw : sweeps()) {
    uint32_t NOps = 1u << Sw.Bits;
    std::vector<uint32_t> Or0 = combinations(Sw.Dw0),
                          Dw1 = combinations(Sw.Dw1);
    for (uint32_t Op = 0; Op < NOps; ++Op)
      for (uint32_t A : Or0)
        for (uint32_t B : Dw1) {
        uint32_t W[4] = {Sw.Base | (Op << Sw.Shift) | A, B, Lit, 0};
        uint8_t Bytes[16];
        for (unsigned K = 0; K < 4; ++K)
          for (unsigned B = 0; B < 4; ++B)
            Bytes[4 * K + B] = uint8_t(W[K] >> (8 * B));
        MCInst MI;
        uint64_t Size = 0;
        if (TC.disassembler().getInstruction(MI, Size, ArrayRef(Bytes), 0,
                                             nulls()) !=
                MCDisassembler::Success ||
            Size == 0)
          continue;
        StringRef Name = TC.opcodeName(MI.getOpcode());
        auto It = Seen.find(Name);
        // A decode the printer marks as having an invalid register (a tuple
        // in the wrong file) is kept only until a valid one is found.
        if (It != Seen.end() && !Out[It->second].Text.empty() &&
            !StringRef(Out[It->second].Text).contains("Invalid register"))
          continue;
        ISAOpcode O;
        O.Name = Name.str();
        O.Family = It != Seen.end() ? Out[It->second].Family
                                    : familyOf(Sw.Family, Name);
        {
          raw_string_ostream OS(O.Text);
          TC.printer().printInst(&MI, 0, "", TC.subtargetInfo(), OS);
        }
        O.Text = StringRef(O.Text).trim().str();
        std::replace(O.Text.begin(), O.Text.end(), '\t', ' ');
        O.Bytes.assign(Bytes, Bytes + Size);
        if (It != Seen.end()) {
          if (!StringRef(O.Text).contains("Invalid register"))
            Out[It->second] = std::move(O);
          continue;
        }
        Seen[Name] = Out.size();
        Out.push_back(std::move(O));
      }
  }
  auto Rank = [](StringRef F) {
    auto *It = std::find_if(std::begin(Families), std::end(Families),
                            [&](const char *X) { return F == X; });
    return It - std::begin(Families);
  };
  std::sort(Out.begin(), Out.end(), [&](const ISAOpcode &A,
                                        const ISAOpcode &B) {
    auto RA = Rank(A.Family), RB = Rank(B.Family);
    return RA != RB ? RA < RB : A.Name < B.Name;
  });
  return Out;
}
