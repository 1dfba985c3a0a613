//===- ExecSALU.cpp - Scalar ALU instructions -----------------------------===//
//
// Semantics from AMD "AMD Instinct MI300 (CDNA3) Instruction Set
// Architecture", chapter 5 "Scalar ALU Operations" (SOP2 5.2.1, SOPK 5.2.2,
// SOP1 5.2.3, SOPC 5.2.4) and section 12.2-12.5 opcode descriptions; SCC
// results as documented there.
//
//===----------------------------------------------------------------------===//
#include "BitOps.h"
#include "Machine.h"
#include "Semantics.h"

using namespace asmevo;
using namespace asmevo::emu;

namespace {

inline uint32_t s0(Wave &W, const DInst &I) { return W.scalar32(I.Src[0]); }
inline uint32_t s1(Wave &W, const DInst &I) { return W.scalar32(I.Src[1]); }
inline uint64_t s0x(Wave &W, const DInst &I) { return W.scalar64(I.Src[0]); }
inline uint64_t s1x(Wave &W, const DInst &I) { return W.scalar64(I.Src[1]); }
inline void d32(Wave &W, const DInst &I, uint32_t V) {
  W.writeScalar32(I.Def[0], V);
}
inline void d64(Wave &W, const DInst &I, uint64_t V) {
  W.writeScalar64(I.Def[0], V);
}
/// SOPK's 16-bit immediate, sign-extended.
inline int32_t simm16(const DInst &I) { return int16_t(uint16_t(I.Imm[0])); }
/// The SOPK destination doubles as the first source (S_ADDK_I32 ...).
inline uint32_t sopkDst(Wave &W, const DInst &I) {
  return W.scalar32(I.Def[0]);
}

/// hwreg(ID, OFFSET, SIZE) fields of S_GETREG/S_SETREG (ISA 12.3, SOPK).
struct HwReg {
  unsigned Id, Offset, Size;
};
HwReg hwreg(uint32_t Simm) {
  return {Simm & 63, (Simm >> 6) & 31, ((Simm >> 11) & 31) + 1};
}

uint32_t readHwReg(Wave &W, const DInst &I, unsigned Id) {
  switch (Id) {
  case 1: // MODE
    return W.Mode;
  case 4: // HW_ID: wave id [3:0], simd [5:4], ... (an arbitrary placement)
    return W.Id & 15;
  case 5: { // GPR_ALLOC: VGPR base/size granules, SGPR size
    return ((W.NumVRegs / 8 - 1) << 8);
  }
  case 6: // LDS_ALLOC: size in 128-dword granules at [20:12]
    return ((W.WG->LdsSize + 511) / 512) << 12;
  case 15: // SH_MEM_BASES: private base [15:0], shared base [31:16]
    return uint32_t(PrivateApertureBase >> 48) |
           (uint32_t(SharedApertureBase >> 48) << 16);
  default:
    W.M->approx("s_getreg_b32 of a hardware register other than MODE, "
                "HW_ID, GPR_ALLOC, LDS_ALLOC, SH_MEM_BASES reads 0");
    (void)I;
    return 0;
  }
}

void registerAll(SemRegistry &R) {
  auto Add = [&](const char *N, ExecFn F) { R.add(N, SemEntry{F}); };

  // SOP2 (ISA 12.2).
  Add("S_ADD_U32", [](Wave &W, const DInst &I) {
    uint64_t S = uint64_t(s0(W, I)) + s1(W, I);
    d32(W, I, uint32_t(S));
    W.SCC = S >> 32;
  });
  Add("S_SUB_U32", [](Wave &W, const DInst &I) {
    uint32_t A = s0(W, I), B = s1(W, I);
    d32(W, I, A - B);
    W.SCC = B > A;
  });
  Add("S_ADD_I32", [](Wave &W, const DInst &I) {
    int32_t A = s0(W, I), B = s1(W, I), D;
    W.SCC = __builtin_add_overflow(A, B, &D);
    d32(W, I, uint32_t(D));
  });
  Add("S_SUB_I32", [](Wave &W, const DInst &I) {
    int32_t A = s0(W, I), B = s1(W, I), D;
    W.SCC = __builtin_sub_overflow(A, B, &D);
    d32(W, I, uint32_t(D));
  });
  Add("S_ADDC_U32", [](Wave &W, const DInst &I) {
    uint64_t S = uint64_t(s0(W, I)) + s1(W, I) + W.SCC;
    d32(W, I, uint32_t(S));
    W.SCC = S >> 32;
  });
  Add("S_SUBB_U32", [](Wave &W, const DInst &I) {
    uint64_t A = s0(W, I), B = uint64_t(s1(W, I)) + W.SCC;
    d32(W, I, uint32_t(A - B));
    W.SCC = B > A;
  });
  Add("S_MIN_I32", [](Wave &W, const DInst &I) {
    int32_t A = s0(W, I), B = s1(W, I);
    W.SCC = A < B;
    d32(W, I, uint32_t(A < B ? A : B));
  });
  Add("S_MIN_U32", [](Wave &W, const DInst &I) {
    uint32_t A = s0(W, I), B = s1(W, I);
    W.SCC = A < B;
    d32(W, I, A < B ? A : B);
  });
  Add("S_MAX_I32", [](Wave &W, const DInst &I) {
    int32_t A = s0(W, I), B = s1(W, I);
    W.SCC = A > B;
    d32(W, I, uint32_t(A > B ? A : B));
  });
  Add("S_MAX_U32", [](Wave &W, const DInst &I) {
    uint32_t A = s0(W, I), B = s1(W, I);
    W.SCC = A > B;
    d32(W, I, A > B ? A : B);
  });
  Add("S_CSELECT_B32", [](Wave &W, const DInst &I) {
    d32(W, I, W.SCC ? s0(W, I) : s1(W, I));
  });
  Add("S_CSELECT_B64", [](Wave &W, const DInst &I) {
    d64(W, I, W.SCC ? s0x(W, I) : s1x(W, I));
  });
#define LOGIC(NAME, EXPR)                                                      \
  Add(NAME "_B32", [](Wave &W, const DInst &I) {                               \
    uint32_t A = s0(W, I), B = s1(W, I);                                       \
    uint32_t D = EXPR;                                                         \
    d32(W, I, D);                                                              \
    W.SCC = D != 0;                                                            \
  });                                                                          \
  Add(NAME "_B64", [](Wave &W, const DInst &I) {                               \
    uint64_t A = s0x(W, I), B = s1x(W, I);                                     \
    uint64_t D = EXPR;                                                         \
    d64(W, I, D);                                                              \
    W.SCC = D != 0;                                                            \
  });
  LOGIC("S_AND", A & B)
  LOGIC("S_OR", A | B)
  LOGIC("S_XOR", A ^ B)
  LOGIC("S_ANDN2", A & ~B)
  LOGIC("S_ORN2", A | ~B)
  LOGIC("S_NAND", ~(A & B))
  LOGIC("S_NOR", ~(A | B))
  LOGIC("S_XNOR", ~(A ^ B))
#undef LOGIC
  Add("S_LSHL_B32", [](Wave &W, const DInst &I) {
    uint32_t D = s0(W, I) << (s1(W, I) & 31);
    d32(W, I, D);
    W.SCC = D != 0;
  });
  Add("S_LSHL_B64", [](Wave &W, const DInst &I) {
    uint64_t D = s0x(W, I) << (s1(W, I) & 63);
    d64(W, I, D);
    W.SCC = D != 0;
  });
  Add("S_LSHR_B32", [](Wave &W, const DInst &I) {
    uint32_t D = s0(W, I) >> (s1(W, I) & 31);
    d32(W, I, D);
    W.SCC = D != 0;
  });
  Add("S_LSHR_B64", [](Wave &W, const DInst &I) {
    uint64_t D = s0x(W, I) >> (s1(W, I) & 63);
    d64(W, I, D);
    W.SCC = D != 0;
  });
  Add("S_ASHR_I32", [](Wave &W, const DInst &I) {
    int32_t D = int32_t(s0(W, I)) >> (s1(W, I) & 31);
    d32(W, I, uint32_t(D));
    W.SCC = D != 0;
  });
  Add("S_ASHR_I64", [](Wave &W, const DInst &I) {
    int64_t D = int64_t(s0x(W, I)) >> (s1(W, I) & 63);
    d64(W, I, uint64_t(D));
    W.SCC = D != 0;
  });
  Add("S_BFM_B32", [](Wave &W, const DInst &I) {
    uint32_t Wd = s0(W, I) & 31, Off = s1(W, I) & 31;
    d32(W, I, ((1u << Wd) - 1) << Off);
  });
  Add("S_BFM_B64", [](Wave &W, const DInst &I) {
    uint32_t Wd = s0(W, I) & 63, Off = s1(W, I) & 63;
    d64(W, I, ((1ull << Wd) - 1) << Off);
  });
  Add("S_MUL_I32", [](Wave &W, const DInst &I) {
    d32(W, I, uint32_t(int32_t(s0(W, I)) * int32_t(s1(W, I))));
  });
  Add("S_MUL_HI_U32", [](Wave &W, const DInst &I) {
    d32(W, I, uint32_t((uint64_t(s0(W, I)) * s1(W, I)) >> 32));
  });
  Add("S_MUL_HI_I32", [](Wave &W, const DInst &I) {
    d32(W, I, uint32_t(uint64_t(int64_t(int32_t(s0(W, I))) *
                                int64_t(int32_t(s1(W, I)))) >>
                       32));
  });
  Add("S_BFE_U32", [](Wave &W, const DInst &I) {
    uint32_t A = s0(W, I), C = s1(W, I);
    uint32_t Off = C & 31, Wd = (C >> 16) & 127;
    uint32_t D = Wd == 0 ? 0 : (A >> Off) & (Wd >= 32 ? ~0u : (1u << Wd) - 1);
    d32(W, I, D);
    W.SCC = D != 0;
  });
  // The signed forms shift S0.i arithmetically ("signext((S0.i >> off)
  // & mask)"): a field reaching past the MSB reads copies of the sign bit.
  Add("S_BFE_I32", [](Wave &W, const DInst &I) {
    uint32_t C = s1(W, I);
    uint32_t Off = C & 31, Wd = (C >> 16) & 127;
    int32_t F = int32_t(s0(W, I)) >> Off;
    int32_t D = 0;
    if (Wd)
      D = Wd < 32 ? int32_t(uint32_t(F) << (32 - Wd)) >> (32 - Wd) : F;
    d32(W, I, uint32_t(D));
    W.SCC = D != 0;
  });
  Add("S_BFE_U64", [](Wave &W, const DInst &I) {
    uint64_t A = s0x(W, I);
    uint32_t C = s1(W, I), Off = C & 63, Wd = (C >> 16) & 127;
    uint64_t D =
        Wd == 0 ? 0 : (A >> Off) & (Wd >= 64 ? ~0ull : (1ull << Wd) - 1);
    d64(W, I, D);
    W.SCC = D != 0;
  });
  Add("S_BFE_I64", [](Wave &W, const DInst &I) {
    uint32_t C = s1(W, I), Off = C & 63, Wd = (C >> 16) & 127;
    int64_t F = int64_t(s0x(W, I)) >> Off;
    int64_t D = 0;
    if (Wd)
      D = Wd < 64 ? int64_t(uint64_t(F) << (64 - Wd)) >> (64 - Wd) : F;
    d64(W, I, uint64_t(D));
    W.SCC = D != 0;
  });
  // "D.i = S0.i - S1.i; if (D.i < 0) D.i = -D.i": the difference wraps
  // in 32 bits (the guide's example: absdiff(0x80000000, 1) = 0x7fffffff).
  Add("S_ABSDIFF_I32", [](Wave &W, const DInst &I) {
    int32_t D = int32_t(s0(W, I) - s1(W, I));
    uint32_t R = D < 0 ? uint32_t(0) - uint32_t(D) : uint32_t(D);
    d32(W, I, R);
    W.SCC = R != 0;
  });
#define LSHLADD(N)                                                             \
  Add("S_LSHL" #N "_ADD_U32", [](Wave &W, const DInst &I) {                    \
    uint64_t S = (uint64_t(s0(W, I)) << N) + s1(W, I);                         \
    d32(W, I, uint32_t(S));                                                    \
    W.SCC = S >> 32;                                                           \
  });
  LSHLADD(1)
  LSHLADD(2)
  LSHLADD(3)
  LSHLADD(4)
#undef LSHLADD
  Add("S_PACK_LL_B32_B16", [](Wave &W, const DInst &I) {
    d32(W, I, (s0(W, I) & 0xffff) | (s1(W, I) << 16));
  });
  Add("S_PACK_LH_B32_B16", [](Wave &W, const DInst &I) {
    d32(W, I, (s0(W, I) & 0xffff) | (s1(W, I) & 0xffff0000u));
  });
  Add("S_PACK_HH_B32_B16", [](Wave &W, const DInst &I) {
    d32(W, I, (s0(W, I) >> 16) | (s1(W, I) & 0xffff0000u));
  });

  // SOP1 (ISA 12.4).
  Add("S_MOV_B32", [](Wave &W, const DInst &I) { d32(W, I, s0(W, I)); });
  Add("S_MOV_B64", [](Wave &W, const DInst &I) { d64(W, I, s0x(W, I)); });
  Add("S_CMOV_B32", [](Wave &W, const DInst &I) {
    if (W.SCC)
      d32(W, I, s0(W, I));
  });
  Add("S_CMOV_B64", [](Wave &W, const DInst &I) {
    if (W.SCC)
      d64(W, I, s0x(W, I));
  });
  Add("S_NOT_B32", [](Wave &W, const DInst &I) {
    uint32_t D = ~s0(W, I);
    d32(W, I, D);
    W.SCC = D != 0;
  });
  Add("S_NOT_B64", [](Wave &W, const DInst &I) {
    uint64_t D = ~s0x(W, I);
    d64(W, I, D);
    W.SCC = D != 0;
  });
  // 12.4 SOP1: S_WQM (every quad with a bit set becomes all ones),
  // S_QUADMASK (one bit per quad: any bit set), S_BITREPLICATE_B64_B32
  // (each bit twice); SCC = result != 0 except for bitreplicate.
  Add("S_WQM_B32", [](Wave &W, const DInst &I) {
    uint32_t A = s0(W, I), D = 0;
    for (unsigned Q = 0; Q < 32; Q += 4)
      if ((A >> Q) & 0xf)
        D |= 0xfu << Q;
    d32(W, I, D);
    W.SCC = D != 0;
  });
  Add("S_WQM_B64", [](Wave &W, const DInst &I) {
    uint64_t A = s0x(W, I), D = 0;
    for (unsigned Q = 0; Q < 64; Q += 4)
      if ((A >> Q) & 0xf)
        D |= 0xfull << Q;
    d64(W, I, D);
    W.SCC = D != 0;
  });
  Add("S_QUADMASK_B32", [](Wave &W, const DInst &I) {
    uint32_t A = s0(W, I), D = 0;
    for (unsigned Q = 0; Q < 8; ++Q)
      if ((A >> (4 * Q)) & 0xf)
        D |= 1u << Q;
    d32(W, I, D);
    W.SCC = D != 0;
  });
  Add("S_QUADMASK_B64", [](Wave &W, const DInst &I) {
    uint64_t A = s0x(W, I), D = 0;
    for (unsigned Q = 0; Q < 16; ++Q)
      if ((A >> (4 * Q)) & 0xf)
        D |= 1ull << Q;
    d64(W, I, D);
    W.SCC = D != 0;
  });
  Add("S_BITREPLICATE_B64_B32", [](Wave &W, const DInst &I) {
    uint32_t A = s0(W, I);
    uint64_t D = 0;
    for (unsigned B = 0; B < 32; ++B)
      if ((A >> B) & 1)
        D |= 3ull << (2 * B);
    d64(W, I, D);
  });
  Add("S_BREV_B32", [](Wave &W, const DInst &I) {
    uint32_t A = s0(W, I), D = 0;
    for (unsigned B = 0; B < 32; ++B)
      D |= ((A >> B) & 1) << (31 - B);
    d32(W, I, D);
  });
  Add("S_BREV_B64", [](Wave &W, const DInst &I) {
    uint64_t A = s0x(W, I), D = 0;
    for (unsigned B = 0; B < 64; ++B)
      D |= ((A >> B) & 1) << (63 - B);
    d64(W, I, D);
  });
  Add("S_BCNT0_I32_B32", [](Wave &W, const DInst &I) {
    uint32_t D = 32 - __builtin_popcount(s0(W, I));
    d32(W, I, D);
    W.SCC = D != 0;
  });
  Add("S_BCNT0_I32_B64", [](Wave &W, const DInst &I) {
    uint32_t D = 64 - __builtin_popcountll(s0x(W, I));
    d32(W, I, D);
    W.SCC = D != 0;
  });
  Add("S_BCNT1_I32_B32", [](Wave &W, const DInst &I) {
    uint32_t D = __builtin_popcount(s0(W, I));
    d32(W, I, D);
    W.SCC = D != 0;
  });
  Add("S_BCNT1_I32_B64", [](Wave &W, const DInst &I) {
    uint32_t D = __builtin_popcountll(s0x(W, I));
    d32(W, I, D);
    W.SCC = D != 0;
  });
  Add("S_FF0_I32_B32", [](Wave &W, const DInst &I) {
    uint32_t A = ~s0(W, I);
    d32(W, I, A ? __builtin_ctz(A) : ~0u);
  });
  Add("S_FF0_I32_B64", [](Wave &W, const DInst &I) {
    uint64_t A = ~s0x(W, I);
    d32(W, I, A ? __builtin_ctzll(A) : ~0u);
  });
  Add("S_FF1_I32_B32", [](Wave &W, const DInst &I) {
    uint32_t A = s0(W, I);
    d32(W, I, A ? __builtin_ctz(A) : ~0u);
  });
  Add("S_FF1_I32_B64", [](Wave &W, const DInst &I) {
    uint64_t A = s0x(W, I);
    d32(W, I, A ? __builtin_ctzll(A) : ~0u);
  });
  Add("S_FLBIT_I32_B32", [](Wave &W, const DInst &I) {
    uint32_t A = s0(W, I);
    d32(W, I, A ? __builtin_clz(A) : ~0u);
  });
  Add("S_FLBIT_I32_B64", [](Wave &W, const DInst &I) {
    uint64_t A = s0x(W, I);
    d32(W, I, A ? __builtin_clzll(A) : ~0u);
  });
  Add("S_FLBIT_I32", [](Wave &W, const DInst &I) {
    d32(W, I, uint32_t(ffbhSigned32(int32_t(s0(W, I)))));
  });
  Add("S_FLBIT_I32_I64", [](Wave &W, const DInst &I) {
    d32(W, I, uint32_t(ffbhSigned64(int64_t(s0x(W, I)))));
  });
  Add("S_SEXT_I32_I8", [](Wave &W, const DInst &I) {
    d32(W, I, uint32_t(int32_t(int8_t(s0(W, I)))));
  });
  Add("S_SEXT_I32_I16", [](Wave &W, const DInst &I) {
    d32(W, I, uint32_t(int32_t(int16_t(s0(W, I)))));
  });
  Add("S_BITSET0_B32", [](Wave &W, const DInst &I) {
    d32(W, I, W.scalar32(I.Def[0]) & ~(1u << (s0(W, I) & 31)));
  });
  Add("S_BITSET1_B32", [](Wave &W, const DInst &I) {
    d32(W, I, W.scalar32(I.Def[0]) | (1u << (s0(W, I) & 31)));
  });
  Add("S_BITSET0_B64", [](Wave &W, const DInst &I) {
    d64(W, I, W.scalar64(I.Def[0]) & ~(1ull << (s0(W, I) & 63)));
  });
  Add("S_BITSET1_B64", [](Wave &W, const DInst &I) {
    d64(W, I, W.scalar64(I.Def[0]) | (1ull << (s0(W, I) & 63)));
  });
  Add("S_ABS_I32", [](Wave &W, const DInst &I) {
    int32_t A = int32_t(s0(W, I));
    uint32_t D = A < 0 ? uint32_t(0) - uint32_t(A) : uint32_t(A);
    d32(W, I, D);
    W.SCC = D != 0;
  });
  // Save-exec family (ISA 12.4: D = EXEC; EXEC = f(S0, EXEC); SCC = EXEC!=0).
#define SAVEEXEC(NAME, EXPR)                                                   \
  R.add(NAME "_SAVEEXEC_B64", SemEntry{[](Wave &W, const DInst &I) {           \
          uint64_t S = s0x(W, I), E = W.exec();                                \
          uint64_t N = EXPR;                                                   \
          d64(W, I, E);                                                        \
          W.setExec(N);                                                        \
          W.SCC = N != 0;                                                      \
        },                                                                     \
                                       nullptr, FWritesExec});
  SAVEEXEC("S_AND", S & E)
  SAVEEXEC("S_OR", S | E)
  SAVEEXEC("S_XOR", S ^ E)
  SAVEEXEC("S_ANDN2", S & ~E)
  SAVEEXEC("S_ORN2", S | ~E)
  SAVEEXEC("S_NAND", ~(S & E))
  SAVEEXEC("S_NOR", ~(S | E))
  SAVEEXEC("S_XNOR", ~(S ^ E))
  SAVEEXEC("S_ANDN1", ~S & E)
  SAVEEXEC("S_ORN1", ~S | E)
#undef SAVEEXEC
  R.add("S_ANDN1_WREXEC_B64", SemEntry{[](Wave &W, const DInst &I) {
          uint64_t N = ~s0x(W, I) & W.exec();
          W.setExec(N);
          d64(W, I, N);
          W.SCC = N != 0;
        },
                                       nullptr, FWritesExec});
  R.add("S_ANDN2_WREXEC_B64", SemEntry{[](Wave &W, const DInst &I) {
          uint64_t N = s0x(W, I) & ~W.exec();
          W.setExec(N);
          d64(W, I, N);
          W.SCC = N != 0;
        },
                                       nullptr, FWritesExec});
  // M0-relative moves (ISA 12.4: S_MOVRELS: D = SGPR[S0.addr + M0]).
  Add("S_MOVRELS_B32", [](Wave &W, const DInst &I) {
    d32(W, I, W.S[(I.Src[0].Reg + W.S[SgprM0]) & 127]);
  });
  Add("S_MOVRELS_B64", [](Wave &W, const DInst &I) {
    d64(W, I, W.sreg64((I.Src[0].Reg + W.S[SgprM0]) & 127));
  });
  // S_MOVRELD's sdst is an operand LLVM lists among the uses (the write
  // is indirect): the base register is the first source, the value the
  // second.
  Add("S_MOVRELD_B32", [](Wave &W, const DInst &I) {
    const Operand &D = I.NumDefs ? I.Def[0] : I.Src[0];
    const Operand &S = I.NumDefs ? I.Src[0] : I.Src[1];
    W.S[(D.Reg + W.S[SgprM0]) & 127] = W.scalar32(S);
  });
  Add("S_MOVRELD_B64", [](Wave &W, const DInst &I) {
    const Operand &D = I.NumDefs ? I.Def[0] : I.Src[0];
    const Operand &S = I.NumDefs ? I.Src[0] : I.Src[1];
    W.setSreg64((D.Reg + W.S[SgprM0]) & 127, W.scalar64(S));
  });

  // SOPC (ISA 12.5).
#define CMP(NAME, T, OP)                                                       \
  Add(NAME, [](Wave &W, const DInst &I) {                                      \
    W.SCC = T(s0(W, I)) OP T(s1(W, I));                                        \
  });
  CMP("S_CMP_EQ_I32", int32_t, ==)
  CMP("S_CMP_LG_I32", int32_t, !=)
  CMP("S_CMP_GT_I32", int32_t, >)
  CMP("S_CMP_GE_I32", int32_t, >=)
  CMP("S_CMP_LT_I32", int32_t, <)
  CMP("S_CMP_LE_I32", int32_t, <=)
  CMP("S_CMP_EQ_U32", uint32_t, ==)
  CMP("S_CMP_LG_U32", uint32_t, !=)
  CMP("S_CMP_GT_U32", uint32_t, >)
  CMP("S_CMP_GE_U32", uint32_t, >=)
  CMP("S_CMP_LT_U32", uint32_t, <)
  CMP("S_CMP_LE_U32", uint32_t, <=)
#undef CMP
  Add("S_CMP_EQ_U64",
      [](Wave &W, const DInst &I) { W.SCC = s0x(W, I) == s1x(W, I); });
  Add("S_CMP_LG_U64",
      [](Wave &W, const DInst &I) { W.SCC = s0x(W, I) != s1x(W, I); });
  Add("S_BITCMP0_B32", [](Wave &W, const DInst &I) {
    W.SCC = !((s0(W, I) >> (s1(W, I) & 31)) & 1);
  });
  Add("S_BITCMP1_B32", [](Wave &W, const DInst &I) {
    W.SCC = (s0(W, I) >> (s1(W, I) & 31)) & 1;
  });
  Add("S_BITCMP0_B64", [](Wave &W, const DInst &I) {
    W.SCC = !((s0x(W, I) >> (s1(W, I) & 63)) & 1);
  });
  Add("S_BITCMP1_B64", [](Wave &W, const DInst &I) {
    W.SCC = (s0x(W, I) >> (s1(W, I) & 63)) & 1;
  });

  // SOPK (ISA 12.3).
  Add("S_MOVK_I32",
      [](Wave &W, const DInst &I) { d32(W, I, uint32_t(simm16(I))); });
  Add("S_CMOVK_I32", [](Wave &W, const DInst &I) {
    if (W.SCC)
      d32(W, I, uint32_t(simm16(I)));
  });
  Add("S_ADDK_I32", [](Wave &W, const DInst &I) {
    int32_t D;
    W.SCC = __builtin_add_overflow(int32_t(sopkDst(W, I)), simm16(I), &D);
    d32(W, I, uint32_t(D));
  });
  Add("S_MULK_I32", [](Wave &W, const DInst &I) {
    d32(W, I, uint32_t(int32_t(sopkDst(W, I)) * simm16(I)));
  });
  // S_CMPK_*: the register is the first "source" (it is not a def).
#define CMPK(NAME, T, OP, EXT)                                                 \
  Add(NAME, [](Wave &W, const DInst &I) {                                      \
    W.SCC = T(s0(W, I)) OP T(EXT);                                             \
  });
  CMPK("S_CMPK_EQ_I32", int32_t, ==, simm16(I))
  CMPK("S_CMPK_LG_I32", int32_t, !=, simm16(I))
  CMPK("S_CMPK_GT_I32", int32_t, >, simm16(I))
  CMPK("S_CMPK_GE_I32", int32_t, >=, simm16(I))
  CMPK("S_CMPK_LT_I32", int32_t, <, simm16(I))
  CMPK("S_CMPK_LE_I32", int32_t, <=, simm16(I))
  CMPK("S_CMPK_EQ_U32", uint32_t, ==, uint16_t(I.Imm[0]))
  CMPK("S_CMPK_LG_U32", uint32_t, !=, uint16_t(I.Imm[0]))
  CMPK("S_CMPK_GT_U32", uint32_t, >, uint16_t(I.Imm[0]))
  CMPK("S_CMPK_GE_U32", uint32_t, >=, uint16_t(I.Imm[0]))
  CMPK("S_CMPK_LT_U32", uint32_t, <, uint16_t(I.Imm[0]))
  CMPK("S_CMPK_LE_U32", uint32_t, <=, uint16_t(I.Imm[0]))
#undef CMPK
  Add("S_GETREG_B32", [](Wave &W, const DInst &I) {
    HwReg H = hwreg(uint32_t(I.Imm[0]));
    uint32_t V = readHwReg(W, I, H.Id);
    uint32_t Mask = H.Size >= 32 ? ~0u : (1u << H.Size) - 1;
    d32(W, I, (V >> H.Offset) & Mask);
  });
  auto SetReg = [](Wave &W, const DInst &I, uint32_t Simm, uint32_t V) {
    HwReg H = hwreg(Simm);
    if (H.Id != 1) {
      W.M->report(W, I, Violation::Unimplemented, -1,
                  "s_setreg of hardware register " + std::to_string(H.Id) +
                      " is not modelled (only MODE is)");
      return;
    }
    uint32_t Mask = (H.Size >= 32 ? ~0u : (1u << H.Size) - 1) << H.Offset;
    W.Mode = (W.Mode & ~Mask) | ((V << H.Offset) & Mask);
    if ((W.Mode & 0xf) != 0)
      W.M->approx("non-default rounding modes set by s_setreg are not "
                  "modelled: arithmetic rounds to nearest even");
  };
  static decltype(SetReg) SetRegS = SetReg;
  Add("S_SETREG_B32", [](Wave &W, const DInst &I) {
    // Operand order: the SGPR is the source, the hwreg field an immediate.
    SetRegS(W, I, uint32_t(I.Imm[0]), s0(W, I));
  });
  Add("S_SETREG_IMM32_B32", [](Wave &W, const DInst &I) {
    SetRegS(W, I, uint32_t(I.Imm[1]), uint32_t(I.Imm[0]));
  });
}

} // namespace

void emu::registerSALU(SemRegistry &R) { registerAll(R); }
