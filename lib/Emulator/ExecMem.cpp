//===- ExecMem.cpp - Vector, scalar and LDS memory instructions -----------===//
//
// CDNA3 ISA chapter 9 "Vector Memory Buffer Instructions" (9.1 buffer
// addressing, range checking), chapter 10 "Flat Memory Instructions"
// (global/scratch/flat addressing, apertures), chapter 11 "Data Share
// Operations" (DS addressing, read2/write2 offsets, swizzle, permute),
// chapter 8 "Scalar Memory Operations". Every access completes late through
// Machine::issue (MemoryModel.cpp).
//
//===----------------------------------------------------------------------===//
#include "asmevo/Emulator/Float.h"
#include "Machine.h"
#include "Semantics.h"
#include "asmevo/Emulator/TraceSink.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MathExtras.h"
#include <cmath>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

namespace {

enum class MK : uint8_t { Load, Store, Atomic };
enum class AOp : uint8_t {
  None, Swap, CmpSwap, Add, Sub, SMin, UMin, SMax, UMax, And, Or, Xor, Inc,
  Dec, AddF32, PkAddF16, PkAddBF16, AddF64, MinF64, MaxF64, Rsub, MinF32,
  MaxF32, CmpSt, MskOr, CmpStF32, CmpStF64, Wrap,
};

struct MemInfo {
  MK Kind;
  uint8_t Bytes;   ///< Per element (1, 2, 4); dword count in Dwords.
  uint8_t Dwords;  ///< Register count of the data.
  bool Signed = false;
  uint8_t D16 = 0; ///< 1 = low half, 2 = high half.
  AOp Op = AOp::None;
  bool Wide = false; ///< 64-bit atomic.
  bool LdsDma = false; ///< GLOBAL/SCRATCH_LOAD_LDS_*: memory to LDS.
};

enum class Space : uint8_t { Global, LDS, Scratch, Drop };

//===----------------------------------------------------------------------===//
// Element access helpers
//===----------------------------------------------------------------------===//

/// Returns a host pointer for one lane's access, or nullptr (zero / drop).
uint8_t *resolve(Wave &W, const DInst &I, Space S, uint64_t A, uint32_t Len,
                 bool Write, int Lane) {
  Machine &M = *W.M;
  switch (S) {
  case Space::Global:
    return M.global(W, I, A, Len, Write, Lane);
  case Space::LDS:
    return M.lds(W, I, A, Len, Lane);
  case Space::Scratch:
    return M.scratch(W, I, A, Len, Lane);
  case Space::Drop:
    return nullptr;
  }
  return nullptr;
}

/// Data register value for dword \p K of lane \p L of a store/atomic.
inline uint32_t dataDword(Wave &W, const Operand &O, unsigned K, unsigned L) {
  return O.isVector() ? W.vreg(O, K)[L] : W.scalar32(O);
}

uint64_t atomic64(AOp Op, uint64_t Old, uint64_t Src, uint64_t Cmp,
                  bool Wide) {
  auto S = [&](uint64_t X) -> int64_t {
    return Wide ? int64_t(X) : int64_t(int32_t(uint32_t(X)));
  };
  uint64_t Mask = Wide ? ~0ull : 0xffffffffull;
  Old &= Mask;
  Src &= Mask;
  switch (Op) {
  case AOp::Swap: return Src;
  case AOp::CmpSwap: return Old == (Cmp & Mask) ? Src : Old;
  case AOp::CmpSt: return Old == (Cmp & Mask) ? Src : Old;
  // DS_CMPST_F32/F64: the compare is a float compare (-0 == +0, a NaN
  // equals nothing).
  case AOp::CmpStF32:
    return asF(uint32_t(Old)) == asF(uint32_t(Cmp)) ? Src : Old;
  case AOp::CmpStF64: return asD(Old) == asD(Cmp) ? Src : Old;
  case AOp::Add: return (Old + Src) & Mask;
  case AOp::Sub: return (Old - Src) & Mask;
  case AOp::Rsub: return (Src - Old) & Mask;
  case AOp::SMin: return S(Old) < S(Src) ? Old : Src;
  case AOp::SMax: return S(Old) > S(Src) ? Old : Src;
  case AOp::UMin: return std::min(Old, Src);
  case AOp::UMax: return std::max(Old, Src);
  case AOp::And: return Old & Src;
  case AOp::Or: return Old | Src;
  case AOp::Xor: return Old ^ Src;
  case AOp::MskOr: return (Old & ~Cmp) | Src;
  // DS_WRAP_RTN_B32: data0 (here Cmp) is the bound, data1 the step.
  case AOp::Wrap: return Old >= (Cmp & Mask) ? (Old - Cmp) & Mask
                                             : (Old + Src) & Mask;
  case AOp::Inc: return Old >= Src ? 0 : (Old + 1) & Mask;
  case AOp::Dec: return (Old == 0 || Old > Src) ? Src : (Old - 1) & Mask;
  case AOp::AddF32: return asU(asF(uint32_t(Old)) + asF(uint32_t(Src)));
  case AOp::MinF32: {
    float A = asF(uint32_t(Old)), B = asF(uint32_t(Src));
    return asU(std::isnan(A) ? B : std::isnan(B) ? A : std::fmin(A, B));
  }
  case AOp::MaxF32: {
    float A = asF(uint32_t(Old)), B = asF(uint32_t(Src));
    return asU(std::isnan(A) ? B : std::isnan(B) ? A : std::fmax(A, B));
  }
  case AOp::PkAddF16: {
    uint16_t L = f32ToF16(f16ToF32(uint16_t(Old)) + f16ToF32(uint16_t(Src)));
    uint16_t H = f32ToF16(f16ToF32(uint16_t(Old >> 16)) +
                          f16ToF32(uint16_t(Src >> 16)));
    return uint32_t(L) | (uint32_t(H) << 16);
  }
  case AOp::PkAddBF16: {
    uint16_t L = f32ToBF16(bf16ToF32(uint16_t(Old)) + bf16ToF32(uint16_t(Src)));
    uint16_t H = f32ToBF16(bf16ToF32(uint16_t(Old >> 16)) +
                           bf16ToF32(uint16_t(Src >> 16)));
    return uint32_t(L) | (uint32_t(H) << 16);
  }
  case AOp::AddF64: return asU64(asD(Old) + asD(Src));
  case AOp::MinF64: {
    double A = asD(Old), B = asD(Src);
    return asU64(std::isnan(A) ? B : std::isnan(B) ? A : std::fmin(A, B));
  }
  case AOp::MaxF64: {
    double A = asD(Old), B = asD(Src);
    return asU64(std::isnan(A) ? B : std::isnan(B) ? A : std::fmax(A, B));
  }
  case AOp::None: break;
  }
  return Old;
}

/// Host pointer of [A, A+Len) when it lies in the wave's cached
/// allocation (the common case), else nullptr.
inline uint8_t *cachedGlobal(Wave &W, uint64_t A, uint32_t Len, bool Write) {
  Allocation *C = W.MemCache;
  // Written so that a wild address near 2^64 cannot wrap into range.
  if (C && A >= C->Base && fitsIn(A - C->Base, Len, C->Size) &&
      (!Write || !C->ReadOnly))
    return C->data() + (A - C->Base);
  return nullptr;
}

/// Reads one lane's element into \p Out (dwords) with full checking.
void loadLane(Wave &W, const DInst &I, const MemInfo &MI, Space S, uint64_t A,
              unsigned L, uint32_t *Out) {
  Machine &M = *W.M;
  if (MI.Bytes == 4) {
    unsigned Total = 4 * MI.Dwords;
    uint8_t *P = S == Space::Global ? cachedGlobal(W, A, Total, false)
                                    : nullptr;
    if (!P && S != Space::Drop)
      P = resolve(W, I, S, A, Total, false, int(L));
    if (P) {
      for (unsigned K = 0; K < MI.Dwords; ++K)
        std::memcpy(&Out[K * 64], P + 4 * K, 4);
      return;
    }
    for (unsigned K = 0; K < MI.Dwords; ++K)
      Out[K * 64] = 0;
    return;
  }
  uint8_t *P = resolve(W, I, S, A, MI.Bytes, false, int(L));
  uint32_t V = 0;
  if (P) {
    if (MI.Bytes == 1)
      V = MI.Signed ? uint32_t(int32_t(int8_t(*P))) : *P;
    else {
      uint16_t H;
      std::memcpy(&H, P, 2);
      V = MI.Signed ? uint32_t(int32_t(int16_t(H))) : H;
    }
  }
  if (MI.D16)
    V &= 0xffff;
  Out[0] = V;
  (void)M;
}

/// Reports the global and LDS lanes of an access to the TraceSink
/// (private-memory lanes are not reported).
void traceAccess(Wave &W, const DInst &I, const uint64_t *Addr,
                 const Space *Sp, uint64_t Mask, unsigned Total, bool Write,
                 Space Uniform) {
  uint64_t G = 0, L = 0;
  if (Uniform == Space::Drop && Mask == ~uint64_t(0)) {
    // Flat: every lane's space, and a wave's lanes mostly share one; a
    // plain loop over the 64 lanes instead of a chain of bit scans.
    unsigned NG = 0, NL = 0;
    for (unsigned Ln = 0; Ln < 64; ++Ln) {
      NG += Sp[Ln] == Space::Global;
      NL += Sp[Ln] == Space::LDS;
    }
    if (NG == 64)
      G = Mask;
    else if (NL == 64)
      L = Mask;
    else
      for (unsigned Ln = 0; Ln < 64; ++Ln) {
        G |= uint64_t(Sp[Ln] == Space::Global) << Ln;
        L |= uint64_t(Sp[Ln] == Space::LDS) << Ln;
      }
  } else if (Uniform != Space::Drop) {
    G = Uniform == Space::Global ? Mask : 0;
    L = Uniform == Space::LDS ? Mask : 0;
  } else {
    for (uint64_t Bits = Mask; Bits; Bits &= Bits - 1) {
      unsigned Ln = __builtin_ctzll(Bits);
      Space S = Sp[Ln];
      G |= uint64_t(S == Space::Global) << Ln;
      L |= uint64_t(S == Space::LDS) << Ln;
    }
  }
  TraceSink &T = *W.M->Opt.Sink;
  if (G)
    T.memory(W.TraceCookie, I.Index, Addr, G, Total, false, Write);
  if (L)
    T.memory(W.TraceCookie, I.Index, Addr, L, Total, true, Write);
}

/// Performs the access of one instruction whose per-lane addresses are
/// known. \p Data: the data operand (stores/atomics); \p Ctr: counters.
/// \p Into: add to this operation instead of starting one (one
/// instruction = one counter event, even when it accesses two places:
/// ds_read2/ds_write2, per-dword buffer range checks); \p RegOff: first
/// destination register of this part; \p Issue: issue when done.
PendingOp *access(Wave &W, const DInst &I, const MemInfo &MI,
                  const uint64_t *Addr, const Space *Sp, uint64_t Mask,
                  const Operand *Data, uint8_t Ctr, bool IsFlat,
                  Space Uniform = Space::Drop, PendingOp *Into = nullptr,
                  unsigned RegOff = 0, bool Issue = true) {
  Machine &M = *W.M;
  unsigned Total = MI.Kind == MK::Atomic ? (MI.Wide ? 8 : 4)
                                         : (MI.Bytes == 4 ? 4 * MI.Dwords
                                                          : MI.Bytes);
  if (__builtin_expect(W.TraceCookie != nullptr, 0))
    traceAccess(W, I, Addr, Sp, Mask, Total, MI.Kind != MK::Load, Uniform);
  // The space of every active lane (Space::Drop lanes do not count).
  bool AnyLDS, AnyGlobal, Mixed = false;
  Space Common;
  if (Uniform != Space::Drop) {
    Common = Uniform;
    AnyLDS = Uniform == Space::LDS;
    AnyGlobal = Uniform == Space::Global;
  } else {
    AnyLDS = AnyGlobal = false;
    Common = Space::Drop;
    for (uint64_t Bits = Mask; Bits; Bits &= Bits - 1) {
      Space S = Sp[__builtin_ctzll(Bits)];
      if (S == Space::Drop)
        continue;
      if (Common == Space::Drop)
        Common = S;
      else if (S != Common)
        Mixed = true;
      AnyLDS |= S == Space::LDS;
      AnyGlobal |= S == Space::Global;
    }
  }
  bool Flush = W.NumPendStores && (AnyGlobal || AnyLDS);
  bool Race = M.Opt.RaceChecks && MI.Kind == MK::Load &&
              (AnyGlobal || AnyLDS) && M.OtherPendStores(W);
  if (Flush || Race) {
    uint64_t Lo = ~0ull, Hi = 0;
    for (uint64_t Bits = Mask; Bits; Bits &= Bits - 1) {
      unsigned L = __builtin_ctzll(Bits);
      if (Sp[L] == Space::Global || Sp[L] == Space::LDS) {
        Lo = std::min(Lo, Addr[L]);
        Hi = std::max(Hi, Addr[L] + Total);
      }
    }
    // Own pending stores to the same place complete first (a wave sees
    // its own stores in order); another wave's unwaited store is a race.
    if (Flush && AnyGlobal)
      M.flushOwnStores(W, Lo, Hi, false);
    if (Flush && AnyLDS)
      M.flushOwnStores(W, Lo, Hi, true);
    if (Race) {
      uint32_t Len[64];
      uint64_t GMask = 0, LMask = 0;
      for (unsigned L = 0; L < 64; ++L) {
        Len[L] = Total;
        GMask |= uint64_t(Sp[L] == Space::Global) << L;
        LMask |= uint64_t(Sp[L] == Space::LDS) << L;
      }
      if (AnyGlobal)
        M.checkStoreRace(W, I, Addr, Len, Mask & GMask, false);
      if (AnyLDS)
        M.checkStoreRace(W, I, Addr, Len, Mask & LMask, true);
    }
  }

  if (MI.Kind == MK::Load) {
    PendingOp *Op = Into;
    if (!Op) {
      Op = W.newOp();
      Op->T = PendingOp::LoadV;
      Op->Counters = Ctr;
      Op->IsFLAT = IsFlat;
      Op->IsLDS = Ctr == PendingOp::LGKM;
      Op->Inst = I.Index;
      Op->Exec = Mask;
      Op->DstFile = 1;
      Op->DstReg = uint16_t(W.slot(I.Def[0]));
      Op->DstCount = MI.Dwords;
      if (MI.D16) {
        Op->DstMask = MI.D16 == 1 ? 0xffffu : 0xffff0000u;
        Op->DstShift = MI.D16 == 1 ? 0 : 16;
      }
    }
    uint32_t *Out = Op->Data + RegOff * 64;
    if (!Mixed && Common == Space::LDS && MI.Bytes == 4) {
      Workgroup &G = *W.WG;
      uint64_t InRange = 0;
      for (uint64_t Bits = Mask; Bits; Bits &= Bits - 1) {
        unsigned L = __builtin_ctzll(Bits);
        uint64_t A = Addr[L];
        if (A + Total <= G.LdsSize) {
          const uint8_t *P = G.LDS.data() + A;
          for (unsigned K = 0; K < MI.Dwords; ++K)
            std::memcpy(&Out[K * 64 + L], P + 4 * K, 4);
          InRange |= 1ull << L;
        } else {
          M.lds(W, I, A, Total, int(L)); // reports
          for (unsigned K = 0; K < MI.Dwords; ++K)
            Out[K * 64 + L] = 0;
        }
      }
      if (M.Opt.RaceChecks && !G.ShWriter.empty())
        M.ldsShadowReadLanes(W, I, Addr, InRange, Total);
    } else if (!Mixed && Common == Space::Global && MI.Bytes == 4) {
      for (uint64_t Bits = Mask; Bits; Bits &= Bits - 1) {
        unsigned L = __builtin_ctzll(Bits);
        // Out-of-range buffer lanes (Space::Drop) read 0; Common skips
        // them, so they can share this path with in-range lanes.
        if (Uniform == Space::Drop && Sp[L] == Space::Drop) {
          for (unsigned K = 0; K < MI.Dwords; ++K)
            Out[K * 64 + L] = 0;
          continue;
        }
        const uint8_t *P = cachedGlobal(W, Addr[L], Total, false);
        if (P) {
          for (unsigned K = 0; K < MI.Dwords; ++K)
            std::memcpy(&Out[K * 64 + L], P + 4 * K, 4);
        } else {
          loadLane(W, I, MI, Space::Global, Addr[L], L, Out + L);
        }
      }
    } else {
      for (uint64_t Bits = Mask; Bits; Bits &= Bits - 1) {
        unsigned L = __builtin_ctzll(Bits);
        if (Sp[L] == Space::LDS && M.Opt.RaceChecks)
          M.ldsShadowRead(W, I, Addr[L], Total, int(L));
        loadLane(W, I, MI, Sp[L], Addr[L], L, Out + L);
      }
    }
    if (Issue)
      M.issue(W, Op);
    return Op;
  }

  if (MI.Kind == MK::Store) {
    PendingOp *Op = Into;
    if (!Op) {
      Op = W.newOp();
      Op->T = AnyLDS && !AnyGlobal ? PendingOp::LdsWrite : PendingOp::Store;
      Op->Counters = Ctr;
      Op->IsFLAT = IsFlat;
      Op->IsLDS = Ctr == PendingOp::LGKM;
      Op->Inst = I.Index;
      Op->Exec = Mask;
    }
    const uint32_t *DReg[4] = {nullptr, nullptr, nullptr, nullptr};
    if (Data->isVector())
      for (unsigned K = 0; K < MI.Dwords && K < 4; ++K)
        DReg[K] = W.vreg(*Data, K);
    for (uint64_t Bits = Mask; Bits; Bits &= Bits - 1) {
      unsigned L = __builtin_ctzll(Bits);
      uint8_t Buf[16];
      unsigned Len;
      if (MI.Bytes == 4) {
        Len = 4 * MI.Dwords;
        for (unsigned K = 0; K < MI.Dwords; ++K) {
          uint32_t V = DReg[K] ? DReg[K][L] : dataDword(W, *Data, K, L);
          std::memcpy(Buf + 4 * K, &V, 4);
        }
      } else {
        uint32_t V = dataDword(W, *Data, 0, L);
        if (MI.D16 == 2)
          V >>= 16;
        Len = MI.Bytes;
        std::memcpy(Buf, &V, Len);
      }
      Space S = Sp[L];
      if (S == Space::Drop)
        continue;
      if (S == Space::Scratch || (S == Space::LDS && AnyGlobal)) {
        // Private memory is visible to its lane only: write now.
        if (uint8_t *P = resolve(W, I, S, Addr[L], Len, true, int(L))) {
          std::memcpy(P, Buf, Len);
          if (S == Space::LDS && M.Opt.RaceChecks)
            M.ldsShadowWrite(W, I.Index, Addr[L], Len);
        }
        continue;
      }
      if (S == Space::LDS) {
        if (fitsIn(Addr[L], Len, W.WG->LdsSize) ||
            M.lds(W, I, Addr[L], Len, int(L)))
          Op->addWrite(Addr[L], nullptr, Buf, Len);
        continue;
      }
      uint8_t *P = cachedGlobal(W, Addr[L], Len, true);
      if (!P)
        P = resolve(W, I, Space::Global, Addr[L], Len, true, int(L));
      if (P)
        Op->addWrite(Addr[L], P, Buf, Len);
      if (M.Stop)
        break;
    }
    if (Issue)
      M.issue(W, Op);
    return Op;
  }

  // Atomics: performed at issue, the old value returns late.
  bool Rtn = I.Flags & FRtn;
  PendingOp *Op = nullptr;
  if (Rtn) {
    Op = W.newOp();
    Op->T = PendingOp::LoadV;
    Op->Counters = Ctr;
    Op->IsFLAT = IsFlat;
    Op->IsLDS = Ctr == PendingOp::LGKM;
    Op->Inst = I.Index;
    Op->Exec = Mask;
    Op->DstFile = 1;
    Op->DstReg = uint16_t(W.slot(I.Def[0]));
    Op->DstCount = MI.Wide ? 2 : 1;
  } else {
    Op = W.newOp();
    Op->T = PendingOp::Nothing;
    Op->Counters = Ctr;
    Op->IsFLAT = IsFlat;
    Op->IsLDS = Ctr == PendingOp::LGKM;
    Op->Inst = I.Index;
  }
  bool CmpForm = MI.Op == AOp::CmpSwap || MI.Op == AOp::CmpSt ||
                 MI.Op == AOp::MskOr || MI.Op == AOp::CmpStF32 ||
                 MI.Op == AOp::CmpStF64 || MI.Op == AOp::Wrap;
  unsigned DW = MI.Wide ? 2 : 1;
  for (unsigned L = 0; L < 64; ++L) {
    if (!((Mask >> L) & 1))
      continue;
    uint64_t Src = dataDword(W, *Data, 0, L);
    uint64_t Cmp = 0;
    if (MI.Wide)
      Src |= uint64_t(dataDword(W, *Data, 1, L)) << 32;
    if (CmpForm) {
      if (MI.Op == AOp::CmpSwap) { // vdata = {src, cmp}
        Cmp = dataDword(W, *Data, DW, L);
        if (MI.Wide)
          Cmp |= uint64_t(dataDword(W, *Data, DW + 1, L)) << 32;
      } else { // DS cmpst/mskor: data0 = cmp/mask, data1 = src
        Cmp = Src;
        const Operand &D1 = I.Src[2];
        Src = dataDword(W, D1, 0, L);
        if (MI.Wide)
          Src |= uint64_t(dataDword(W, D1, 1, L)) << 32;
      }
    }
    uint8_t *P = resolve(W, I, Sp[L], Addr[L], 4 * DW, true, int(L));
    if (!P)
      continue;
    uint64_t Old = 0;
    std::memcpy(&Old, P, 4 * DW);
    uint64_t New = atomic64(MI.Op, Old, Src, Cmp, MI.Wide);
    std::memcpy(P, &New, 4 * DW);
    if (Rtn) {
      Op->Data[L] = uint32_t(Old);
      if (MI.Wide)
        Op->Data[64 + L] = uint32_t(Old >> 32);
    }
  }
  M.issue(W, Op);
  return Op;
}

//===----------------------------------------------------------------------===//
// Address generation per family
//===----------------------------------------------------------------------===//

Space flatSpace(uint64_t A, uint64_t &Off) {
  if (A >= SharedApertureBase && A < SharedApertureBase + ApertureSize) {
    Off = A - SharedApertureBase;
    return Space::LDS;
  }
  if (A >= PrivateApertureBase && A < PrivateApertureBase + ApertureSize) {
    Off = A - PrivateApertureBase;
    return Space::Scratch;
  }
  Off = A;
  return Space::Global;
}

/// LDS DMA: lane L's return data goes to LDS at M0[15:0] + inst_offset +
/// 4 * L instead of to its VGPR (ISA 9.1.9 "Memory Buffer Load to LDS" and
/// 10.3 "Addressing": LDS_ADDR = LDSbase + M0 + INST.OFFSET + ThreadID * 4
/// for every single-dword form; the instruction offset applies to both
/// addresses, as LLVM's load-to-LDS intrinsics state). The return data is
/// the dword the VGPR form would return: bytes and shorts zero- or
/// sign-extended (9.1.3 "Read Data Format": read data is 32 bits; AMD's
/// rocRoller test of sub-dword BufferToLDS sees lane i's byte at 4 * i with
/// zero upper bytes); a dropped (out-of-range) lane writes 0.
/// \p Value: precomputed dwords (format loads), else read per \p MI.
void issueLdsDma(Wave &W, const DInst &I, const MemInfo &MI,
                 const uint64_t *Addr, const Space *Sp, uint64_t Mask,
                 uint32_t InstOff, const uint32_t *Value = nullptr) {
  Machine &M = *W.M;
  PendingOp *Op = W.newOp();
  Op->T = PendingOp::LdsDma;
  Op->Counters = PendingOp::VM;
  Op->Inst = I.Index;
  Op->Exec = Mask;
  uint32_t LdsBase = (W.S[SgprM0] & 0xffff) + InstOff;
  unsigned Bytes = MI.Bytes;
  for (unsigned L = 0; L < 64; ++L) {
    if (!((Mask >> L) & 1))
      continue;
    uint32_t V = 0;
    if (Value) {
      V = Value[L];
    } else if (Sp[L] != Space::Drop) {
      if (uint8_t *P = resolve(W, I, Sp[L], Addr[L], Bytes, false, int(L))) {
        std::memcpy(&V, P, Bytes);
        if (Bytes == 1)
          V = MI.Signed ? uint32_t(int32_t(int8_t(V))) : V;
        else if (Bytes == 2)
          V = MI.Signed ? uint32_t(int32_t(int16_t(V))) : V;
      }
    }
    uint64_t LA = LdsBase + 4 * L;
    if (M.lds(W, I, LA, 4, int(L)))
      Op->addWrite(LA, nullptr, &V, 4);
  }
  M.issue(W, Op);
}

/// GLOBAL_*, FLAT_*, SCRATCH_* (ISA 10.1 addressing).
void execFlatFamily(Wave &W, const DInst &I) {
  const MemInfo &MI = *static_cast<const MemInfo *>(I.Info);
  uint64_t Mask = W.exec();
  alignas(64) uint64_t Addr[64];
  Space Sp[64];
  bool IsScratch = I.Flags & FIsScratch;
  bool IsFlatSeg = I.Flags & FIsFLAT;
  // GFX9 global/scratch offsets are 13-bit signed, flat ones 12-bit
  // unsigned; the disassembler hands over the raw field.
  int32_t Off = IsFlatSeg ? int32_t(I.Imm[0] & 0xfff)
                          : int32_t(SignExtend64<13>(uint64_t(I.Imm[0])));
  // Locate saddr (SGPR) and vaddr. The MC operands of global and flat
  // stores put the address before the data; scratch stores put the data
  // first (vdata, [vaddr], [saddr], offset), so their vaddr is the second
  // vector operand.
  bool HasVaddr = IsScratch ? (I.Flags & FOffen) : true;
  bool DataFirst = IsScratch && MI.Kind == MK::Store;
  int SIdx = -1, VIdx = -1;
  unsigned NumVec = 0;
  for (unsigned K = 0; K < I.NumSrcs; ++K) {
    if (I.Src[K].Kind == OpKind::SGPR && SIdx < 0)
      SIdx = int(K);
    else if (I.Src[K].isVector() && NumVec++ == (DataFirst ? 1u : 0u))
      VIdx = int(K);
  }
  if (!HasVaddr)
    VIdx = -1;
  const Operand *Data = nullptr;
  if (MI.Kind != MK::Load) {
    // Data: the vector source that is not vaddr.
    for (unsigned K = 0; K < I.NumSrcs; ++K)
      if (I.Src[K].isVector() && int(K) != VIdx) {
        Data = &I.Src[K];
        break;
      }
    if (!Data) {
      W.M->report(W, I, Violation::Unimplemented, -1,
                  "memory instruction without a data operand");
      return;
    }
  }
  uint64_t SBase = 0;
  if (SIdx >= 0)
    SBase = I.Src[SIdx].Width >= 2 ? W.scalar64(I.Src[SIdx])
                                   : W.scalar32(I.Src[SIdx]);
  for (unsigned L = 0; L < 64; ++L) {
    uint64_t V = 0;
    if (VIdx >= 0) {
      const Operand &O = I.Src[VIdx];
      V = W.vreg(O, 0)[L];
      if (!IsScratch && SIdx < 0) // 64-bit vaddr
        V |= uint64_t(W.vreg(O, 1)[L]) << 32;
    }
    uint64_t A = SBase + V + int64_t(Off);
    if (IsScratch) {
      A += W.sreg64(SgprFlatScratch) * 0; // scratch base is per wave: 0
      Addr[L] = uint32_t(A);
      Sp[L] = Space::Scratch;
    } else if (IsFlatSeg) {
      Sp[L] = flatSpace(A, Addr[L]);
    } else {
      Addr[L] = A;
      Sp[L] = Space::Global;
    }
  }
  if (MI.LdsDma) {
    issueLdsDma(W, I, MI, Addr, Sp, Mask, uint32_t(Off));
    return;
  }
  uint8_t Ctr = PendingOp::VM;
  if (IsFlatSeg)
    Ctr = PendingOp::VM | PendingOp::LGKM;
  access(W, I, MI, Addr, Sp, Mask, Data, Ctr, IsFlatSeg,
         IsFlatSeg ? Space::Drop : IsScratch ? Space::Scratch : Space::Global);
}

/// BUFFER_* (MUBUF, ISA 9.1.5 "Buffer Addressing", 9.1.8 range checking).
/// Lane \p L's byte offset into a buffer (inst_offset, then the VGPR index
/// and offset as idxen/offen ask) and whether its \p Bytes lie outside.
/// Structured (idxen, stride) buffers check the index, raw ones the byte
/// offset; an active lane where the two rules disagree is reported as an
/// approximation (AITer's kernels use stride != 0 with offen only and a
/// byte num_records).
static std::pair<uint64_t, bool>
bufferLane(Wave &W, const Operand *VAddr, bool Idxen,
           bool Offen, uint32_t InstOff, uint64_t Stride, uint64_t NumRecords,
           uint64_t Bytes, unsigned L, bool Active) {
  uint32_t Index = 0, Offset = InstOff;
  unsigned VK = 0;
  if (Idxen && VAddr)
    Index = W.vreg(*VAddr, VK++)[L];
  if (Offen && VAddr)
    Offset += W.vreg(*VAddr, VK)[L];
  uint64_t ByteOff = uint64_t(Offset) + uint64_t(Index) * Stride;
  bool ByteOOB = ByteOff + Bytes > NumRecords;
  if (Stride == 0 || !Idxen)
    return {ByteOff, ByteOOB};
  bool OOB = Index >= NumRecords;
  if (OOB != ByteOOB && Active)
    W.M->ApproxBits |= AX_BUF_RANGE;
  return {ByteOff, OOB};
}

void execBuffer(Wave &W, const DInst &I) {
  const MemInfo &MI = *static_cast<const MemInfo *>(I.Info);
  uint64_t Mask = W.exec();
  // Operands: [vdata (stores/atomics)], [vaddr], srsrc, soffset.
  int RIdx = -1;
  for (unsigned K = 0; K < I.NumSrcs; ++K)
    if (I.Src[K].Kind == OpKind::SGPR && I.Src[K].Width == 4) {
      RIdx = int(K);
      break;
    }
  if (RIdx < 0 || unsigned(RIdx + 1) >= I.NumSrcs + 0u) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "buffer instruction without a resource descriptor");
    return;
  }
  const Operand &Rsrc = I.Src[RIdx];
  const Operand &SOff = I.Src[RIdx + 1];
  const Operand *VAddr = nullptr;
  const Operand *Data = nullptr;
  bool UsesVaddr = I.Flags & (FOffen | FIdxen);
  std::vector<const Operand *> Vecs;
  for (int K = 0; K < RIdx; ++K)
    if (I.Src[K].isVector())
      Vecs.push_back(&I.Src[K]);
  if (MI.Kind == MK::Load) {
    if (UsesVaddr && !Vecs.empty())
      VAddr = Vecs[0];
  } else if (MI.Kind == MK::Atomic && (I.Flags & FRtn)) {
    // The returning forms tie the data to the destination.
    Data = &I.Def[0];
    if (UsesVaddr && !Vecs.empty())
      VAddr = Vecs[0];
  } else {
    if (!Vecs.empty())
      Data = Vecs[0];
    if (UsesVaddr && Vecs.size() > 1)
      VAddr = Vecs[1];
    if (!Data) {
      W.M->report(W, I, Violation::Unimplemented, -1,
                  "buffer store without data");
      return;
    }
  }
  uint32_t D0 = W.S[Rsrc.Reg & 127], D1 = W.S[(Rsrc.Reg + 1) & 127];
  uint32_t NumRecords = W.S[(Rsrc.Reg + 2) & 127];
  uint32_t D3 = W.S[(Rsrc.Reg + 3) & 127];
  uint64_t Base = uint64_t(D0) | (uint64_t(D1 & 0xffff) << 32);
  uint32_t Stride = (D1 >> 16) & 0x3fff;
  bool Swizzle = (D1 >> 31) & 1;
  bool AddTid = (D3 >> 23) & 1;
  uint32_t SOffset = W.scalar32(SOff);
  int32_t InstOff = int32_t(I.Imm[0]);
  bool Offen = I.Flags & FOffen, Idxen = I.Flags & FIdxen;
  alignas(64) uint64_t Addr[64];
  Space Sp[64];
  // The private-segment descriptor (swizzled, ADD_TID): per-lane private
  // offset = (base + soffset) / 64 + offset (AMDGPUUsage "Private Segment
  // Buffer": wave-scaled offsets).
  if (Swizzle && AddTid) {
    for (unsigned L = 0; L < 64; ++L) {
      uint32_t V = (Offen && VAddr) ? W.vreg(*VAddr, 0)[L] : 0;
      Addr[L] = ((Base + SOffset) / 64) + V + uint32_t(InstOff);
      Sp[L] = Space::Scratch;
    }
    access(W, I, MI, Addr, Sp, Mask, Data, PendingOp::VM, false);
    return;
  }
  if (Swizzle || AddTid) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "swizzled / ADD_TID buffer addressing is only modelled for "
                "the private segment descriptor");
    return;
  }
  unsigned Total = MI.Kind == MK::Atomic ? (MI.Wide ? 8 : 4)
                                         : (MI.Bytes == 4 ? 4 * MI.Dwords
                                                          : MI.Bytes);
  bool LdsDma = I.Flags & FLds;
  // Range checks (non-swizzled buffers): num_records is a byte limit on
  // offset + index * stride (the sgpr offset excluded), per dword for
  // multi-dword accesses; modelled by issuing the instruction per dword
  // when any lane straddles the limit. Structured accesses (idxen with a
  // stride) are checked as index >= num_records, the compiler's
  // struct-buffer convention; lanes where the two rules disagree are
  // reported as an approximation. AITer's kernels use stride != 0 with
  // offen only and a byte num_records.
  bool ByIndex = Stride != 0 && Idxen;
  for (unsigned L = 0; L < 64; ++L) {
    auto [ByteOff, OOB] = bufferLane(W, VAddr, Idxen, Offen, uint32_t(InstOff),
                                     Stride, NumRecords, Total, L,
                                     (Mask >> L) & 1);
    Addr[L] = Base + SOffset + ByteOff;
    Sp[L] = OOB ? Space::Drop : Space::Global;
    // Partially out-of-range multi-dword loads/stores: handled below.
    if (OOB && !ByIndex && MI.Bytes == 4 && MI.Dwords > 1 &&
        ByteOff < NumRecords)
      Sp[L] = Space::Global; // refined per dword
  }
  if (LdsDma) {
    // LDS DMA: one dword per lane (bytes and shorts extended) to LDS at
    // M0[15:0] + inst_offset + lane * 4 (ISA 9.1.9).
    if (MI.Dwords != 1) {
      W.M->report(W, I, Violation::Unimplemented, -1,
                  "LDS DMA of more than one dword per lane");
      return;
    }
    issueLdsDma(W, I, MI, Addr, Sp, Mask, uint32_t(InstOff));
    return;
  }
  // Per-dword refinement for partially out-of-range raw accesses.
  if (!ByIndex && MI.Bytes == 4 && MI.Dwords > 1 && MI.Kind != MK::Atomic) {
    bool Partial = false;
    for (unsigned L = 0; L < 64; ++L) {
      if (!((Mask >> L) & 1) || Sp[L] != Space::Global)
        continue;
      uint64_t Off = Addr[L] - Base - SOffset;
      if (Off + Total > NumRecords)
        Partial = true;
    }
    if (Partial) {
      // Loads: single dwords with their own range check, in one
      // operation.
      MemInfo One = MI;
      One.Dwords = 1;
      PendingOp *Op = nullptr;
      for (unsigned K = 0; MI.Kind == MK::Load && K < MI.Dwords; ++K) {
        alignas(64) uint64_t A2[64];
        Space S2[64];
        for (unsigned L = 0; L < 64; ++L) {
          A2[L] = Addr[L] + 4 * K;
          uint64_t Off = A2[L] - Base - SOffset;
          S2[L] = (Sp[L] == Space::Global && Off + 4 <= NumRecords)
                      ? Space::Global
                      : Space::Drop;
        }
        bool Last = K + 1 == MI.Dwords;
        Op = access(W, I, One, A2, S2, Mask, nullptr, PendingOp::VM, false,
                    Space::Drop, Op, K, Last);
        Op->DstCount = uint8_t(MI.Dwords);
      }
      if (MI.Kind == MK::Load)
        return;
      // Stores: the in-range dwords of a lane are a prefix of its data.
      // One write per lane (the operation holds at most two per lane):
      // the lanes with K in-range dwords store K dwords.
      uint64_t ByCount[5] = {0, 0, 0, 0, 0};
      for (unsigned L = 0; L < 64; ++L) {
        if (!((Mask >> L) & 1) || Sp[L] != Space::Global)
          continue;
        uint64_t Off = Addr[L] - Base - SOffset;
        unsigned K = 0;
        while (K < MI.Dwords && Off + 4 * K + 4 <= NumRecords)
          ++K;
        ByCount[K] |= 1ull << L;
      }
      Op = W.newOp();
      Op->T = PendingOp::Store;
      Op->Counters = PendingOp::VM;
      Op->Inst = I.Index;
      Op->Exec = Mask;
      for (unsigned K = 1; K <= MI.Dwords; ++K) {
        if (!ByCount[K])
          continue;
        MemInfo Part = MI;
        Part.Dwords = uint8_t(K);
        access(W, I, Part, Addr, Sp, ByCount[K], Data, PendingOp::VM, false,
               Space::Drop, Op, 0, /*Issue=*/false);
      }
      W.M->issue(W, Op);
      return;
    }
  }
  access(W, I, MI, Addr, Sp, Mask, Data, PendingOp::VM, false);
}

//===----------------------------------------------------------------------===//
// Typed (format) buffer access: BUFFER_*_FORMAT_* and TBUFFER_*_FORMAT_*
//===----------------------------------------------------------------------===//
//
// The format is the descriptor's DATA_FORMAT (word3 bits 18:15) and
// NUM_FORMAT (bits 14:12) for MUBUF, the instruction's format field for
// MTBUF (GFX9: dfmt in bits 3:0, nfmt in bits 6:4; LLVM's AMDGPU
// MTBUFFormat encoding). Numbers follow LLVM's GFX9 tables: dfmt 1 8,
// 2 16, 3 8_8, 4 32, 5 16_16, 10 8_8_8_8, 11 32_32, 12 16_16_16_16,
// 13 32_32_32, 14 32_32_32_32; nfmt 0 unorm, 1 snorm, 2 uscaled,
// 3 sscaled, 4 uint, 5 sint, 7 float. Components lie in memory X first,
// each little-endian; components a format does not supply read as
// (0, 0, 0, 1), the 1 in the number format's type.
//
// Only conversions the documents settle exactly are modelled; the rest
// stop the run as unimplemented: unorm/snorm (rounding not documented),
// the packed formats 10_11_11, 11_11_10, 10_10_10_2, 2_10_10_10 (the bit
// position of each component is not stated), float16 NaN loads, stores
// that narrow or round (8/16-bit components from 32-bit data, f32 to
// f16), descriptors whose DST_SEL is not X,Y,Z,W, out-of-range lanes
// (whether they read 0 or the default W is not stated), stores of more
// components than the format has, and swizzled/ADD_TID descriptors. The
// d16_x and d16_xyz loads keep bits 31:16 of their last register (the
// guide's pseudocode: "VDATA[31:16].b16 is preserved"); a store of fewer
// components than the format's writes only its own channels.

namespace {

struct FmtInfo {
  unsigned Comps;   ///< Components of the instruction (x .. xyzw).
  bool IsStore;
  bool D16;         ///< 16-bit components, two per register.
  bool Hi;          ///< d16_hi_x: the component goes to bits 31:16.
  bool Typed;       ///< MTBUF: format from the instruction.
};

struct DataFmt {
  unsigned Bits, Comps;
};

DataFmt dataFormat(unsigned Dfmt) {
  switch (Dfmt) {
  case 1: return {8, 1};
  case 2: return {16, 1};
  case 3: return {8, 2};
  case 4: return {32, 1};
  case 5: return {16, 2};
  case 10: return {8, 4};
  case 11: return {32, 2};
  case 12: return {16, 4};
  case 13: return {32, 3};
  case 14: return {32, 4};
  default: return {0, 0};
  }
}

enum : unsigned { NUnorm, NSnorm, NUscaled, NSscaled, NUint, NSint, NRes6,
                  NFloat };

/// Why loads of (Bits, Nfmt) into 32-bit (or d16) components are not
/// modelled, or nullptr.
const char *loadRefusal(unsigned Bits, unsigned Nfmt, bool D16) {
  if (Nfmt == NUnorm || Nfmt == NSnorm)
    return "unorm/snorm conversion (its rounding is not documented)";
  if (Nfmt == NRes6)
    return "reserved number format 6";
  if (Bits == 32)
    return Nfmt == NUint || Nfmt == NSint || Nfmt == NFloat
               ? (D16 ? "d16 load of a 32-bit component (narrowing)"
                      : nullptr)
               : "scaled conversion of a 32-bit component (rounding)";
  if (Nfmt == NFloat && Bits == 8)
    return "8-bit float component";
  if (D16 && Bits == 16 && (Nfmt == NUscaled || Nfmt == NSscaled))
    return "16-bit scaled component to f16 (rounding)";
  return nullptr;
}

/// One component as the register holds it. False: a float16 NaN.
bool loadComponent(uint32_t Raw, unsigned Bits, unsigned Nfmt, bool D16,
                   uint32_t &Out) {
  int32_t S = Bits == 32 ? int32_t(Raw)
                         : int32_t(SignExtend32(Raw, Bits));
  switch (Nfmt) {
  case NUint: Out = D16 ? Raw & 0xffff : Raw; return true;
  case NSint: Out = D16 ? uint32_t(S) & 0xffff : uint32_t(S); return true;
  case NUscaled:
    Out = D16 ? f32ToF16(float(Raw)) : asU(float(Raw)); // exact: <= 16 bits
    return true;
  case NSscaled:
    Out = D16 ? f32ToF16(float(S)) : asU(float(S));
    return true;
  case NFloat:
    if (Bits == 32) {
      Out = Raw;
      return true;
    }
    if (D16) {
      Out = Raw; // the half itself
      return true;
    }
    if ((Raw & 0x7c00) == 0x7c00 && (Raw & 0x3ff))
      return false;
    Out = asU(f16ToF32(uint16_t(Raw)));
    return true;
  }
  return false;
}

uint32_t defaultComponent(unsigned K, unsigned Nfmt, bool D16) {
  if (K != 3)
    return 0;
  if (Nfmt == NUint || Nfmt == NSint)
    return 1;
  return D16 ? 0x3c00u : 0x3f800000u;
}

/// Raw element access of \p Bytes (1, 2, 4, 8, 12, 16) bytes.
MemInfo rawInfo(MK Kind, unsigned Bytes) {
  if (Bytes < 4)
    return MemInfo{Kind, uint8_t(Bytes), 1};
  return MemInfo{Kind, 4, uint8_t(Bytes / 4)};
}

} // namespace

static void execFormat(Wave &W, const DInst &I) {
  const FmtInfo &FI = *static_cast<const FmtInfo *>(I.Info);
  Machine &M = *W.M;
  uint64_t Mask = W.exec();
  auto Refuse = [&](const Twine &Why) {
    M.report(W, I, Violation::Unimplemented, -1,
             "format buffer access not modelled: " + Why);
  };
  bool Lds = I.Flags & FLds;
  if (Lds && (FI.Comps != 1 || FI.D16 || FI.IsStore)) {
    Refuse("LDS DMA of other than buffer_load_format_x");
    return;
  }
  int RIdx = -1;
  for (unsigned K = 0; K < I.NumSrcs; ++K)
    if (I.Src[K].Kind == OpKind::SGPR && I.Src[K].Width == 4) {
      RIdx = int(K);
      break;
    }
  if (RIdx < 0 || unsigned(RIdx + 1) >= I.NumSrcs) {
    Refuse("no resource descriptor");
    return;
  }
  const Operand &Rsrc = I.Src[RIdx];
  std::vector<const Operand *> Vecs;
  for (int K = 0; K < RIdx; ++K)
    if (I.Src[K].isVector())
      Vecs.push_back(&I.Src[K]);
  bool Offen = I.Flags & FOffen, Idxen = I.Flags & FIdxen;
  const Operand *Data = nullptr, *VAddr = nullptr;
  if (FI.IsStore) {
    if (Vecs.empty()) {
      Refuse("store without data");
      return;
    }
    Data = Vecs[0];
    if ((Offen || Idxen) && Vecs.size() > 1)
      VAddr = Vecs[1];
  } else if ((Offen || Idxen) && !Vecs.empty()) {
    VAddr = Vecs[0];
  }
  uint32_t D0 = W.S[Rsrc.Reg & 127], D1 = W.S[(Rsrc.Reg + 1) & 127];
  uint32_t NumRecords = W.S[(Rsrc.Reg + 2) & 127];
  uint32_t D3 = W.S[(Rsrc.Reg + 3) & 127];
  if (((D1 >> 31) & 1) || ((D3 >> 23) & 1)) {
    Refuse("swizzled or ADD_TID descriptor");
    return;
  }
  // DST_SEL_X..W (word3 bits 11:0, 3 bits each; 4..7 select X..W).
  if ((D3 & 0xfff) != (4u | 5u << 3 | 6u << 6 | 7u << 9)) {
    Refuse("descriptor DST_SEL other than X, Y, Z, W");
    return;
  }
  unsigned Fmt;
  if (FI.Typed) {
    if (I.NumImms < 2) {
      Refuse("MTBUF without its format field");
      return;
    }
    Fmt = unsigned(I.Imm[1]) & 0x7f;
  } else {
    Fmt = ((D3 >> 15) & 0xf) | (((D3 >> 12) & 7) << 4);
  }
  unsigned Dfmt = Fmt & 0xf, Nfmt = (Fmt >> 4) & 7;
  DataFmt DF = dataFormat(Dfmt);
  if (!DF.Bits) {
    Refuse("data format " + Twine(Dfmt) +
           " (packed component layout not documented, or invalid)");
    return;
  }
  if (FI.IsStore) {
    // A store writes the channels it has (ChannelOffsetX..): fewer than
    // the format's leaves the others' bytes alone; more is undefined.
    if (FI.Comps > DF.Comps) {
      Refuse("store of " + Twine(FI.Comps) + " components to a " +
             Twine(DF.Comps) + "-component format");
      return;
    }
    bool OK = (Nfmt == NUint || Nfmt == NSint || Nfmt == NFloat) &&
              DF.Bits == (FI.D16 ? 16u : 32u);
    if (!OK) {
      Refuse("store conversion (narrowing or rounding) to data format " +
             Twine(Dfmt) + ", number format " + Twine(Nfmt));
      return;
    }
  } else if (const char *Why = loadRefusal(DF.Bits, Nfmt, FI.D16)) {
    Refuse(Why);
    return;
  }
  unsigned Bytes = DF.Bits / 8 * DF.Comps;
  uint64_t Base64 = uint64_t(D0) | (uint64_t(D1 & 0xffff) << 32);
  uint32_t Stride = (D1 >> 16) & 0x3fff;
  uint32_t SOffset = W.scalar32(I.Src[RIdx + 1]);
  uint32_t InstOff = uint32_t(I.Imm[0]);
  alignas(64) uint64_t Addr[64];
  Space Sp[64];
  for (unsigned L = 0; L < 64; ++L) {
    auto [ByteOff, OOB] = bufferLane(W, VAddr, Idxen, Offen, InstOff, Stride,
                                     NumRecords, Bytes, L, (Mask >> L) & 1);
    if (OOB && ((Mask >> L) & 1)) {
      Refuse("out-of-range lane (what it reads or writes is not "
             "documented for format accesses)");
      return;
    }
    Addr[L] = Base64 + SOffset + ByteOff;
    Sp[L] = Space::Global;
  }
  MemInfo Raw = rawInfo(FI.IsStore ? MK::Store : MK::Load, Bytes);
  if (FI.Hi && FI.IsStore)
    Raw.D16 = 2; // the component is the register's high half
  if (FI.IsStore) {
    // The stored 16-bit components are the register halves in memory
    // order, and 32-bit ones the registers: the raw store of the data
    // registers (d16: Comps halves, one or two registers).
    unsigned WBytes = DF.Bits / 8 * FI.Comps;
    if (WBytes != 6) {
      MemInfo Part = rawInfo(MK::Store, WBytes);
      Part.D16 = Raw.D16;
      access(W, I, Part, Addr, Sp, Mask, Data, PendingOp::VM, false,
             Space::Global);
      return;
    }
    // d16_xyz into 16-bit channels: X and Y from the first register, Z
    // from the low half of the second, in one operation.
    PendingOp *Op = access(W, I, rawInfo(MK::Store, 4), Addr, Sp, Mask, Data,
                           PendingOp::VM, false, Space::Global, nullptr, 0,
                           /*Issue=*/false);
    alignas(64) uint64_t AddrZ[64];
    for (unsigned L = 0; L < 64; ++L)
      AddrZ[L] = Addr[L] + 4;
    Operand DataZ = *Data;
    DataZ.Reg += 1;
    access(W, I, rawInfo(MK::Store, 2), AddrZ, Sp, Mask, &DataZ,
           PendingOp::VM, false, Space::Global, Op, 0, /*Issue=*/true);
    return;
  }
  if (Lds) {
    // buffer_load_format_x ... lds: the converted X component, the dword
    // the VGPR form returns, goes to LDS (ISA 9.1.9 lists format_x).
    uint32_t Val[64] = {};
    for (uint64_t Bits = Mask; Bits; Bits &= Bits - 1) {
      unsigned L = __builtin_ctzll(Bits);
      uint32_t R = 0;
      if (uint8_t *P = resolve(W, I, Space::Global, Addr[L], DF.Bits / 8,
                               false, int(L)))
        std::memcpy(&R, P, DF.Bits / 8);
      if (!loadComponent(R, DF.Bits, Nfmt, false, Val[L])) {
        Refuse("float16 NaN component (its conversion is not documented)");
        return;
      }
    }
    issueLdsDma(W, I, MemInfo{MK::Load, 4, 1}, Addr, Sp, Mask, InstOff, Val);
    return;
  }
  PendingOp *Op = access(W, I, Raw, Addr, Sp, Mask, nullptr, PendingOp::VM,
                         false, Space::Global, nullptr, 0, /*Issue=*/false);
  unsigned Regs = FI.D16 ? (FI.Comps + 1) / 2 : FI.Comps;
  Op->DstCount = uint8_t(Regs);
  if (FI.Hi) {
    Op->DstMask = 0xffff0000u;
    Op->DstShift = 16;
  }
  // d16_x and d16_xyz leave bits 31:16 of their last register as they are
  // (the guide's pseudocode: "VDATA[31:16].b16 is preserved",
  // "VDATA[63:48].b16 is preserved"). One register: a masked write; two:
  // the high half merged now (a write to it while the load is in flight
  // is an in-flight-write violation anyway).
  bool OddD16 = FI.D16 && !FI.Hi && (FI.Comps & 1);
  if (OddD16 && Regs == 1)
    Op->DstMask = 0x0000ffffu;
  const uint32_t *Keep =
      OddD16 && Regs > 1 ? W.vslot(Op->DstReg + Regs - 1) : nullptr;
  bool NaN = false;
  for (uint64_t Bits = Mask; Bits; Bits &= Bits - 1) {
    unsigned L = __builtin_ctzll(Bits);
    uint8_t Buf[16] = {};
    if (Bytes < 4)
      std::memcpy(Buf, &Op->Data[L], Bytes);
    else
      for (unsigned K = 0; K < Bytes / 4; ++K)
        std::memcpy(Buf + 4 * K, &Op->Data[K * 64 + L], 4);
    uint32_t C[4];
    for (unsigned K = 0; K < 4; ++K) {
      if (K >= DF.Comps) {
        C[K] = defaultComponent(K, Nfmt, FI.D16);
        continue;
      }
      uint32_t R = 0;
      std::memcpy(&R, Buf + K * DF.Bits / 8, DF.Bits / 8);
      if (!loadComponent(R, DF.Bits, Nfmt, FI.D16, C[K]))
        NaN = true;
    }
    for (unsigned K = 0; K < Regs; ++K)
      Op->Data[K * 64 + L] =
          FI.D16 && !FI.Hi
              ? C[2 * K] | (2 * K + 1 < FI.Comps ? C[2 * K + 1] << 16 : 0)
              : C[K];
    if (Keep)
      Op->Data[(Regs - 1) * 64 + L] |= Keep[L] & 0xffff0000u;
  }
  if (NaN)
    Refuse("float16 NaN component (its conversion is not documented)");
  M.issue(W, Op);
}

/// DS_* (ISA 11: address = vaddr + offset; read2/write2 scale the two
/// 8-bit offsets by the element size, ST64 by 64 elements).
void execDS(Wave &W, const DInst &I) {
  const MemInfo &MI = *static_cast<const MemInfo *>(I.Info);
  uint64_t Mask = W.exec();
  const Operand &AddrO = I.Src[0];
  alignas(64) uint64_t Addr[64];
  Space Sp[64];
  uint32_t Off = uint32_t(I.Imm[0]) & 0xffff;
  for (unsigned L = 0; L < 64; ++L) {
    Addr[L] = uint32_t(W.vreg(AddrO)[L] + Off);
    Sp[L] = Space::LDS;
  }
  const Operand *Data = I.NumSrcs > 1 ? &I.Src[1] : nullptr;
  access(W, I, MI, Addr, Sp, Mask, Data, PendingOp::LGKM, false, Space::LDS);
}

/// DS_WRXCHG2_RTN_B32/B64 (and ST64): two exchanges at the read2/write2
/// addresses; the old values return as {old0, old1}.
/// A returning DS operation writing \p Dwords registers of I.Def[0].
static PendingOp *dsReturn(Wave &W, const DInst &I, uint64_t Mask,
                           unsigned Dwords) {
  PendingOp *Op = W.newOp();
  Op->T = PendingOp::LoadV;
  Op->Counters = PendingOp::LGKM;
  Op->IsLDS = true;
  Op->Inst = I.Index;
  Op->Exec = Mask;
  Op->DstFile = 1;
  Op->DstReg = uint16_t(W.slot(I.Def[0]));
  Op->DstCount = uint8_t(Dwords);
  return Op;
}

template <bool ST64> void execDSXchg2(Wave &W, const DInst &I) {
  const MemInfo &MI = *static_cast<const MemInfo *>(I.Info);
  Machine &M = *W.M;
  uint64_t Mask = W.exec();
  unsigned DW = MI.Dwords, ES = 4 * DW;
  uint32_t Off[2] = {uint32_t(I.Imm[0]) & 0xff, uint32_t(I.Imm[1]) & 0xff};
  uint32_t Scale = ST64 ? 64 * ES : ES;
  PendingOp *Op = dsReturn(W, I, Mask, 2 * DW);
  for (unsigned L = 0; L < 64; ++L) {
    if (!((Mask >> L) & 1))
      continue;
    uint32_t Base = W.vreg(I.Src[0])[L];
    for (unsigned H = 0; H < 2; ++H) {
      uint64_t A = uint32_t(Base + Off[H] * Scale);
      uint8_t *P = M.lds(W, I, A, ES, int(L));
      for (unsigned K = 0; K < DW; ++K) {
        uint32_t Old = 0;
        if (P) {
          std::memcpy(&Old, P + 4 * K, 4);
          uint32_t New = dataDword(W, I.Src[1 + H], K, L);
          std::memcpy(P + 4 * K, &New, 4);
        }
        Op->Data[(H * DW + K) * 64 + L] = Old;
      }
    }
  }
  M.issue(W, Op);
}

/// Whether a DS instruction without an address VGPR asks for GDS (its
/// last immediate), which these targets do not have: refused.
static bool refuseGds(Wave &W, const DInst &I) {
  if (I.NumImms >= 2 && I.Imm[1]) {
    W.M->report(W, I, Violation::Unimplemented, -1,
                "GDS form of a DS instruction (no GDS on this target)");
    return true;
  }
  return false;
}


/// DS_APPEND / DS_CONSUME with GDS=0: the LDS dword at the instruction
/// offset gains (loses) the number of active lanes, and every active lane
/// receives its value before the operation (CDNA3 ISA, DS_APPEND: "add
/// count_bits(exec_mask) to the value stored in DS memory at ... instr_offset
/// if LDS. Return the pre-operation value to VGPRs").
template <bool Append> void execDSAppend(Wave &W, const DInst &I) {
  if (refuseGds(W, I))
    return;
  uint64_t Mask = W.exec();
  PendingOp *Op = dsReturn(W, I, Mask, 1);
  uint32_t Off = uint32_t(I.Imm[0]) & 0xffff;
  uint32_t Old = 0;
  // With no active lane nothing is added and nothing returns.
  uint8_t *P = Mask ? W.M->lds(W, I, Off, 4, __builtin_ctzll(Mask)) : nullptr;
  if (P) {
    std::memcpy(&Old, P, 4);
    uint32_t N = uint32_t(__builtin_popcountll(Mask));
    uint32_t New = Append ? Old + N : Old - N;
    std::memcpy(P, &New, 4);
  }
  for (unsigned L = 0; L < 64; ++L)
    Op->Data[L] = Old;
  W.M->issue(W, Op);
}

/// DS_CONDXCHG32_RTN_B64: two conditional exchanges at ADDR0 = (vaddr +
/// offset) & 0xfff8 and ADDR0 + 4; each returns the old dword and, when bit
/// 31 of its data dword is set, writes the data with bit 31 cleared (the
/// guide's pseudocode).
void execDSCondXchg(Wave &W, const DInst &I) {
  if (refuseGds(W, I))
    return;
  Machine &M = *W.M;
  uint64_t Mask = W.exec();
  PendingOp *Op = dsReturn(W, I, Mask, 2);
  uint32_t Off = uint32_t(I.Imm[0]) & 0xffff;
  const uint32_t *A = W.vreg(I.Src[0]);
  for (uint64_t Bits = Mask; Bits; Bits &= Bits - 1) {
    unsigned L = __builtin_ctzll(Bits);
    uint32_t A0 = (A[L] + Off) & 0xfff8u;
    for (unsigned H = 0; H < 2; ++H) {
      uint32_t D = dataDword(W, I.Src[1], H, L), Old = 0;
      if (uint8_t *P = M.lds(W, I, A0 + 4 * H, 4, int(L))) {
        std::memcpy(&Old, P, 4);
        if (D >> 31) {
          uint32_t New = D & 0x7fffffffu;
          std::memcpy(P, &New, 4);
        }
      }
      Op->Data[H * 64 + L] = Old;
    }
  }
  M.issue(W, Op);
}

/// DS_READ_ADDTID_B32 / DS_WRITE_ADDTID_B32: lane L accesses the dword at
/// {offset1, offset0} + M0[15:0] + 4 * L (the guide's pseudocode).
template <bool Write> void execDSAddTid(Wave &W, const DInst &I) {
  if (refuseGds(W, I))
    return;
  const MemInfo &MI = *static_cast<const MemInfo *>(I.Info);
  alignas(64) uint64_t Addr[64];
  Space Sp[64];
  uint32_t Base = (uint32_t(I.Imm[0]) & 0xffff) + (W.S[SgprM0] & 0xffff);
  for (unsigned L = 0; L < 64; ++L) {
    Addr[L] = Base + 4 * L;
    Sp[L] = Space::LDS;
  }
  access(W, I, MI, Addr, Sp, W.exec(), Write ? &I.Src[0] : nullptr,
         PendingOp::LGKM, false, Space::LDS);
}

/// DS_READ2/WRITE2 (and ST64) of 32- or 64-bit elements.
template <bool Write, bool ST64> void execDS2(Wave &W, const DInst &I) {
  const MemInfo &MI = *static_cast<const MemInfo *>(I.Info);
  uint64_t Mask = W.exec();
  unsigned ES = MI.Dwords == 2 ? 8 : 4; // element size
  uint32_t O0 = uint32_t(I.Imm[0]) & 0xff, O1 = uint32_t(I.Imm[1]) & 0xff;
  uint32_t Scale = ST64 ? 64 * ES : ES;
  MemInfo One = MI;
  alignas(64) uint64_t A0[64], A1[64];
  Space Sp[64];
  for (unsigned L = 0; L < 64; ++L) {
    uint32_t Base = W.vreg(I.Src[0])[L];
    A0[L] = uint32_t(Base + O0 * Scale);
    A1[L] = uint32_t(Base + O1 * Scale);
    Sp[L] = Space::LDS;
  }
  // One instruction, one LGKM_CNT event: both halves go into one op.
  if (Write) {
    PendingOp *Op = access(W, I, One, A0, Sp, Mask, &I.Src[1],
                           PendingOp::LGKM, false, Space::LDS, nullptr, 0,
                           /*Issue=*/false);
    access(W, I, One, A1, Sp, Mask, &I.Src[2], PendingOp::LGKM, false,
           Space::LDS, Op, 0, /*Issue=*/true);
  } else {
    PendingOp *Op = access(W, I, One, A0, Sp, Mask, nullptr,
                           PendingOp::LGKM, false, Space::LDS, nullptr, 0,
                           /*Issue=*/false);
    Op->DstCount = uint8_t(2 * MI.Dwords);
    access(W, I, One, A1, Sp, Mask, nullptr, PendingOp::LGKM, false,
           Space::LDS, Op, MI.Dwords, /*Issue=*/true);
  }
}

/// DS_BPERMUTE_B32 / DS_PERMUTE_B32 / DS_SWIZZLE_B32: cross-lane moves
/// through the LDS crossbar (no LDS memory), returning through LGKM_CNT.
template <int Kind> void execDSLane(Wave &W, const DInst &I) {
  uint64_t Exec = W.exec();
  PendingOp *Op = W.newOp();
  Op->T = PendingOp::LoadV;
  Op->Counters = PendingOp::LGKM;
  Op->IsLDS = true;
  Op->Inst = I.Index;
  Op->Exec = Exec;
  Op->DstFile = 1;
  Op->DstReg = uint16_t(W.slot(I.Def[0]));
  Op->DstCount = 1;
  std::memset(Op->Data, 0, 64 * 4);
  uint32_t Off = uint32_t(I.Imm[0]) & 0xffff;
  if (Kind == 2) { // swizzle: src operand 0 is the data
    const uint32_t *Dv = W.vreg(I.Src[0]);
    for (unsigned L = 0; L < 64; ++L) {
      unsigned S;
      if (Off & 0x8000) { // quad permute mode
        S = (L & ~3u) | ((Off >> (2 * (L & 3))) & 3);
      } else { // bitmask mode within 32-lane halves
        unsigned And = Off & 31, Or = (Off >> 5) & 31, Xor = (Off >> 10) & 31;
        S = (L & 32) | ((((L & 31) & And) | Or) ^ Xor);
      }
      Op->Data[L] = ((Exec >> S) & 1) ? Dv[S] : 0;
    }
  } else {
    const uint32_t *Av = W.vreg(I.Src[0]);
    const uint32_t *Dv = W.vreg(I.Src[1]);
    if (Kind == 0) { // bpermute: dst[l] = data[addr[l] / 4]
      for (unsigned L = 0; L < 64; ++L) {
        unsigned S = ((Av[L] + Off) >> 2) & 63;
        Op->Data[L] = ((Exec >> S) & 1) ? Dv[S] : 0;
      }
    } else { // permute: dst[addr[l] / 4] = data[l]
      for (unsigned L = 0; L < 64; ++L)
        if ((Exec >> L) & 1)
          Op->Data[((Av[L] + Off) >> 2) & 63] = Dv[L];
    }
  }
  W.M->issue(W, Op);
}

//===----------------------------------------------------------------------===//
// Scalar memory
//===----------------------------------------------------------------------===//

/// The address of a scalar memory access (ISA 8.2: base + offset, dword
/// aligned). Buffer forms take the base from V# dwords 0-1 (48 bits) and
/// num_records (V# dword 2) as Limit; Off is the offset into the buffer,
/// which the range check compares against Limit.
struct SMEMAddr {
  uint64_t Addr;
  uint64_t Off;
  uint64_t Limit;
};

SMEMAddr smemAddress(Wave &W, const DInst &I, unsigned BIdx, bool IsBuffer) {
  const Operand &Base = I.Src[BIdx];
  SMEMAddr A{0, 0, ~0ull};
  uint64_t BaseAddr;
  if (IsBuffer) {
    uint32_t D0 = W.S[Base.Reg & 127], D1 = W.S[(Base.Reg + 1) & 127];
    BaseAddr = uint64_t(D0) | (uint64_t(D1 & 0xffff) << 32);
    A.Limit = W.S[(Base.Reg + 2) & 127];
  } else {
    BaseAddr = W.scalar64(Base);
  }
  // The _SGPR_IMM form adds its immediate to the SGPR offset (two
  // immediates: offset and cache policy); GFX9 SMEM immediate offsets are
  // 21-bit signed.
  if (I.Flags & FSaddr) {
    A.Off = W.scalar32(I.Src[BIdx + 1]);
    if (I.NumImms >= 2)
      A.Off += uint64_t(SignExtend64<21>(uint64_t(I.Imm[0])));
  } else {
    A.Off = uint64_t(SignExtend64<21>(uint64_t(I.Imm[0])));
  }
  A.Addr = (BaseAddr + A.Off) & ~3ull;
  return A;
}

/// Whether dword \p K of a buffer access lies past num_records.
bool outOfRange(const SMEMAddr &A, unsigned K) {
  return (A.Off & ~3ull) + 4 * K + 4 > A.Limit;
}

/// Stops the wave at a scalar buffer store or atomic outside its V#'s
/// range: out-of-range s_buffer_load dwords read 0, but AMD's ISA guides
/// do not say whether an out-of-range scalar store or atomic is dropped,
/// clamped or performed, so the emulator does not guess.
bool refuseOutOfRange(Wave &W, const DInst &I, const SMEMAddr &A,
                      unsigned Dwords) {
  for (unsigned K = 0; K < Dwords; ++K)
    if (outOfRange(A, K)) {
      const Program &P = W.M->Prog;
      std::string Name = I.Index < P.Text.size() ? P.Text[I.Index].Name : "";
      W.M->report(W, I, Violation::Unimplemented, -1,
                  "instruction " + Name +
                      " not implemented: a scalar buffer store or atomic "
                      "outside num_records (undocumented)");
      W.Running = false;
      return true;
    }
  return false;
}

/// S_LOAD_*, S_BUFFER_LOAD_*, S_STORE_*, S_BUFFER_STORE_* (ISA 8.2).
template <bool IsBuffer, bool IsStore> void execSMEM(Wave &W, const DInst &I) {
  Machine &M = *W.M;
  unsigned N = I.Aux;
  unsigned BIdx = IsStore ? 1 : 0;
  SMEMAddr A = smemAddress(W, I, BIdx, IsBuffer);
  uint64_t Addr = A.Addr;
  if (IsStore) {
    if (IsBuffer && refuseOutOfRange(W, I, A, N))
      return;
    PendingOp *Op = W.newOp();
    Op->T = PendingOp::Store;
    Op->Counters = PendingOp::LGKM;
    Op->IsSMEM = true;
    Op->Inst = I.Index;
    for (unsigned K = 0; K < N; ++K) {
      uint32_t V = W.S[(I.Src[0].Reg + K) & 127];
      if (uint8_t *P = M.global(W, I, Addr + 4 * K, 4, true, -1))
        Op->addWrite(Addr + 4 * K, P, &V, 4);
    }
    M.issue(W, Op);
    return;
  }
  M.flushOwnStores(W, Addr, Addr + 4 * N, false);
  PendingOp *Op = W.newOp();
  Op->T = PendingOp::LoadS;
  Op->Counters = PendingOp::LGKM;
  Op->IsSMEM = true;
  Op->Inst = I.Index;
  Op->DstFile = 0;
  Op->DstReg = I.Def[0].Reg;
  Op->DstCount = uint8_t(N);
  std::memset(Op->Data, 0, 4 * N);
  for (unsigned K = 0; K < N; ++K) {
    if (IsBuffer && outOfRange(A, K))
      continue; // out of range reads 0
    if (uint8_t *P = M.global(W, I, Addr + 4 * K, 4, false, -1))
      std::memcpy(&Op->Data[K], P, 4);
  }
  M.issue(W, Op);
}

/// S_ATOMIC_* (scalar atomics on global memory, ISA 8.3) and
/// S_BUFFER_ATOMIC_* (the same at a V#'s base plus offset).
template <bool IsBuffer> void execSAtomic(Wave &W, const DInst &I) {
  const MemInfo &MI = *static_cast<const MemInfo *>(I.Info);
  Machine &M = *W.M;
  bool Rtn = I.Flags & FRtn;
  // Non-returning: sdata, sbase, soffset; returning: sbase, soffset (sdata
  // is tied to the destination).
  const Operand &Data = Rtn ? I.Def[0] : I.Src[0];
  unsigned BIdx = Rtn ? 0 : 1;
  SMEMAddr SA = smemAddress(W, I, BIdx, IsBuffer);
  uint64_t A = SA.Addr;
  unsigned DW = MI.Wide ? 2 : 1;
  if (IsBuffer && refuseOutOfRange(W, I, SA, DW))
    return;
  uint64_t Src = W.S[Data.Reg & 127];
  if (MI.Wide)
    Src |= uint64_t(W.S[(Data.Reg + 1) & 127]) << 32;
  uint64_t Cmp = 0;
  if (MI.Op == AOp::CmpSwap) {
    Cmp = W.S[(Data.Reg + DW) & 127];
    if (MI.Wide)
      Cmp |= uint64_t(W.S[(Data.Reg + DW + 1) & 127]) << 32;
  }
  M.flushOwnStores(W, A, A + 4 * DW, false);
  uint64_t Old = 0;
  if (uint8_t *P = M.global(W, I, A, 4 * DW, true, -1)) {
    std::memcpy(&Old, P, 4 * DW);
    uint64_t New = atomic64(MI.Op, Old, Src, Cmp, MI.Wide);
    std::memcpy(P, &New, 4 * DW);
  }
  PendingOp *Op = W.newOp();
  Op->Counters = PendingOp::LGKM;
  Op->IsSMEM = true;
  Op->Inst = I.Index;
  if (Rtn) {
    Op->T = PendingOp::LoadS;
    Op->DstFile = 0;
    Op->DstReg = I.Def[0].Reg;
    Op->DstCount = uint8_t(DW);
    Op->Data[0] = uint32_t(Old);
    Op->Data[1] = uint32_t(Old >> 32);
  }
  M.issue(W, Op);
}

void execCacheNop(Wave &W, const DInst &) { W.M->ApproxBits |= AX_CACHE; }

/// BUFFER_WBL2, BUFFER_INV, BUFFER_INVL2, BUFFER_WBINVL1*: no effect on
/// emulated (coherent) memory, but the hardware returns an ACK through
/// vmcnt ("Returns ACK to shader"), so the instruction takes its place in
/// the in-order vmcnt queue: a s_waitcnt vmcnt(N) after it counts it.
void execBufferCacheNop(Wave &W, const DInst &I) {
  W.M->ApproxBits |= AX_CACHE;
  PendingOp *Op = W.newOp();
  Op->T = PendingOp::Nothing;
  Op->Counters = PendingOp::VM;
  Op->Inst = I.Index;
  W.M->issue(W, Op);
}

/// Dword \p A of the wave's private segment as S_SCRATCH_* address it.
/// The segment is interleaved by dword across the 64 lanes (AMDGPUUsage,
/// "Private Segment": buffer, scratch and flat instructions all see it
/// so; the private segment V# is ELEMENT_SIZE 4, INDEX_STRIDE 64), which
/// is why the scalar forms count their SGPR offset in 64-byte units
/// (CDNA4 ISA guide 12.6, S_SCRATCH_LOAD_DWORD): wave byte address A is lane
/// (A / 4) % 64's dword at per-lane byte offset (A / 256) * 4. The
/// emulator's wave scratch base is 0 (FLAT_SCRATCH as the gfx90a prologue
/// computes it from flat_scratch_init and the wave offset, both 0 here;
/// the gfx942 architected FLAT_SCRATCH reads 0 as well).
uint8_t *scalarScratchDword(Wave &W, const DInst &I, uint64_t A) {
  uint64_t N = A >> 2;
  return W.M->scratch(W, I, (N >> 6) * 4, 4, int(N & 63));
}

/// S_SCRATCH_LOAD_* / S_SCRATCH_STORE_* (CDNA4 ISA guide 8.2.1.1: ADDR =
/// SGPR[base] + inst_offset + {SGPR[soffset] or 0} * 64, the two LSBs of
/// each byte component ignored). Private memory belongs to its wave
/// alone, so a store is written at issue as the vector scratch stores
/// are; both count on lgkmcnt.
template <bool IsStore> void execSScratch(Wave &W, const DInst &I) {
  unsigned N = I.Aux;
  unsigned BIdx = IsStore ? 1 : 0;
  uint64_t A = W.scalar64(I.Src[BIdx]) & ~3ull;
  if (I.Flags & FSaddr) {
    A += uint64_t(W.scalar32(I.Src[BIdx + 1])) * 64;
    if (I.NumImms >= 2)
      A += uint64_t(SignExtend64<21>(uint64_t(I.Imm[0]))) & ~3ull;
  } else {
    A += uint64_t(SignExtend64<21>(uint64_t(I.Imm[0]))) & ~3ull;
  }
  PendingOp *Op = W.newOp();
  Op->Counters = PendingOp::LGKM;
  Op->IsSMEM = true;
  Op->Inst = I.Index;
  if (IsStore) {
    for (unsigned K = 0; K < N; ++K)
      if (uint8_t *P = scalarScratchDword(W, I, A + 4 * K))
        std::memcpy(P, &W.S[(I.Src[0].Reg + K) & 127], 4);
  } else {
    Op->T = PendingOp::LoadS;
    Op->DstFile = 0;
    Op->DstReg = I.Def[0].Reg;
    Op->DstCount = uint8_t(N);
    std::memset(Op->Data, 0, 4 * N);
    for (unsigned K = 0; K < N; ++K)
      if (uint8_t *P = scalarScratchDword(W, I, A + 4 * K))
        std::memcpy(&Op->Data[K], P, 4);
  }
  W.M->issue(W, Op);
}

/// S_DCACHE_DISCARD(_X2): drops one (two) dirty 64-byte lines of the
/// scalar data cache without writing them back (CDNA4 ISA guide 12.6); lgkmcnt
/// counts it. The emulator has no scalar cache: scalar stores reach
/// memory when they complete, which is the outcome of a line that had
/// been written back before the discard (the ISA leaves open which of the
/// two a program sees), so memory is left alone.
void execDcacheDiscard(Wave &W, const DInst &I) {
  W.M->ApproxBits |= AX_CACHE;
  PendingOp *Op = W.newOp();
  Op->Counters = PendingOp::LGKM;
  Op->IsSMEM = true;
  Op->Inst = I.Index;
  W.M->issue(W, Op);
}

void execMemtime(Wave &W, const DInst &I) {
  PendingOp *Op = W.newOp();
  Op->T = PendingOp::LoadS;
  Op->Counters = PendingOp::LGKM;
  Op->IsSMEM = true;
  Op->Inst = I.Index;
  Op->DstFile = 0;
  Op->DstReg = I.Def[0].Reg;
  Op->DstCount = 2;
  uint64_t T = W.M->R.Instructions + W.Clock;
  Op->Data[0] = uint32_t(T);
  Op->Data[1] = uint32_t(T >> 32);
  W.M->issue(W, Op);
}

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

std::vector<std::unique_ptr<MemInfo>> &infos() {
  static std::vector<std::unique_ptr<MemInfo>> V;
  return V;
}

const MemInfo *info(MemInfo M) {
  infos().push_back(std::make_unique<MemInfo>(M));
  return infos().back().get();
}

struct ElemName {
  const char *Suffix;
  uint8_t Bytes, Dwords;
  bool Signed;
  uint8_t D16;
};
const ElemName LoadElems[] = {
    {"DWORD", 4, 1, false, 0},        {"DWORDX2", 4, 2, false, 0},
    {"DWORDX3", 4, 3, false, 0},      {"DWORDX4", 4, 4, false, 0},
    {"UBYTE", 1, 1, false, 0},        {"SBYTE", 1, 1, true, 0},
    {"USHORT", 2, 1, false, 0},       {"SSHORT", 2, 1, true, 0},
    {"SHORT_D16", 2, 1, false, 1},    {"SHORT_D16_HI", 2, 1, false, 2},
    {"UBYTE_D16", 1, 1, false, 1},    {"UBYTE_D16_HI", 1, 1, false, 2},
    {"SBYTE_D16", 1, 1, true, 1},     {"SBYTE_D16_HI", 1, 1, true, 2},
};
const ElemName StoreElems[] = {
    {"DWORD", 4, 1, false, 0},   {"DWORDX2", 4, 2, false, 0},
    {"DWORDX3", 4, 3, false, 0}, {"DWORDX4", 4, 4, false, 0},
    {"BYTE", 1, 1, false, 0},    {"SHORT", 2, 1, false, 0},
    {"BYTE_D16_HI", 1, 1, false, 2}, {"SHORT_D16_HI", 2, 1, false, 2},
};
struct AtomicName {
  const char *Name;
  AOp Op;
};
const AtomicName Atomics[] = {
    {"SWAP", AOp::Swap},   {"CMPSWAP", AOp::CmpSwap}, {"ADD", AOp::Add},
    {"SUB", AOp::Sub},     {"SMIN", AOp::SMin},       {"UMIN", AOp::UMin},
    {"SMAX", AOp::SMax},   {"UMAX", AOp::UMax},       {"AND", AOp::And},
    {"OR", AOp::Or},       {"XOR", AOp::Xor},         {"INC", AOp::Inc},
    {"DEC", AOp::Dec},
};

} // namespace

void emu::registerVMEM(SemRegistry &R) {
  const char *Prefixes[] = {"GLOBAL", "FLAT", "SCRATCH", "BUFFER"};
  for (const char *Pf : Prefixes) {
    bool Buf = StringRef(Pf) == "BUFFER";
    ExecFn Fn = Buf ? execBuffer : execFlatFamily;
    for (const ElemName &E : LoadElems) {
      std::string N = std::string(Pf) + "_LOAD_" + E.Suffix;
      R.add(N, SemEntry{Fn, info({MK::Load, E.Bytes, E.Dwords, E.Signed,
                                  E.D16}),
                        FIsVMEM});
    }
    for (const ElemName &E : StoreElems) {
      std::string N = std::string(Pf) + "_STORE_" + E.Suffix;
      R.add(N, SemEntry{Fn, info({MK::Store, E.Bytes, E.Dwords, E.Signed,
                                  E.D16}),
                        FIsVMEM});
    }
    if (StringRef(Pf) == "GLOBAL" || StringRef(Pf) == "SCRATCH") {
      // GLOBAL/SCRATCH_LOAD_LDS_{DWORD,UBYTE,SBYTE,USHORT,SSHORT}: one
      // (extended) dword per lane to LDS (issueLdsDma).
      for (const ElemName &E : LoadElems) {
        if (E.D16 || E.Dwords != 1)
          continue;
        MemInfo MI{MK::Load, E.Bytes, 1, E.Signed};
        MI.LdsDma = true;
        R.add(std::string(Pf) + "_LOAD_LDS_" + E.Suffix,
              SemEntry{Fn, info(MI), FIsVMEM});
      }
    }
    if (StringRef(Pf) == "SCRATCH")
      continue;
    for (const AtomicName &A : Atomics)
      for (bool Wide : {false, true}) {
        std::string N = std::string(Pf) + "_ATOMIC_" + A.Name +
                        (Wide ? "_X2" : "");
        MemInfo MI{MK::Atomic, 4, uint8_t(Wide ? 2 : 1)};
        MI.Op = A.Op;
        MI.Wide = Wide;
        R.add(N, SemEntry{Fn, info(MI), FIsVMEM});
      }
    struct FA {
      const char *N;
      AOp Op;
      bool Wide;
    };
    for (FA F : {FA{"ADD_F32", AOp::AddF32, false},
                 FA{"PK_ADD_F16", AOp::PkAddF16, false},
                 FA{"PK_ADD_BF16", AOp::PkAddBF16, false},
                 FA{"ADD_F64", AOp::AddF64, true},
                 FA{"MIN_F64", AOp::MinF64, true},
                 FA{"MAX_F64", AOp::MaxF64, true}}) {
      MemInfo MI{MK::Atomic, 4, uint8_t(F.Wide ? 2 : 1)};
      MI.Op = F.Op;
      MI.Wide = F.Wide;
      R.add(std::string(Pf) + "_ATOMIC_" + F.N, SemEntry{Fn, info(MI), FIsVMEM});
    }
  }
  // Format (typed) buffer loads and stores, MUBUF and MTBUF.
  static const char *CompNames[] = {"X", "XY", "XYZ", "XYZW"};
  static std::vector<std::unique_ptr<FmtInfo>> FmtInfos;
  auto AddFmt = [&](const std::string &N, FmtInfo F) {
    FmtInfos.push_back(std::make_unique<FmtInfo>(F));
    R.add(N, SemEntry{execFormat, FmtInfos.back().get(), FIsVMEM});
  };
  for (bool Typed : {false, true})
    for (bool St : {false, true}) {
      std::string P = std::string(Typed ? "TBUFFER_" : "BUFFER_") +
                      (St ? "STORE" : "LOAD") + "_FORMAT_";
      for (unsigned C = 1; C <= 4; ++C) {
        AddFmt(P + CompNames[C - 1], FmtInfo{C, St, false, false, Typed});
        AddFmt(P + "D16_" + CompNames[C - 1],
               FmtInfo{C, St, true, false, Typed});
      }
      if (!Typed)
        AddFmt(P + "D16_HI_X", FmtInfo{1, St, true, true, false});
    }
  SemEntry Nop{execBufferCacheNop};
  R.add("BUFFER_WBL2", Nop);
  R.add("BUFFER_INV", Nop);
  R.add("BUFFER_INVL2", Nop);
  R.add("BUFFER_WBINVL1", Nop);
  R.add("BUFFER_WBINVL1_VOL", Nop);
}

void emu::registerDS(SemRegistry &R) {
  struct DSName {
    const char *N;
    MK K;
    uint8_t Bytes, Dwords;
    bool Signed;
    uint8_t D16;
  };
  const DSName Plain[] = {
      {"DS_READ_B32", MK::Load, 4, 1, false, 0},
      {"DS_READ_B64", MK::Load, 4, 2, false, 0},
      {"DS_READ_B96", MK::Load, 4, 3, false, 0},
      {"DS_READ_B128", MK::Load, 4, 4, false, 0},
      {"DS_READ_U8", MK::Load, 1, 1, false, 0},
      {"DS_READ_I8", MK::Load, 1, 1, true, 0},
      {"DS_READ_U16", MK::Load, 2, 1, false, 0},
      {"DS_READ_I16", MK::Load, 2, 1, true, 0},
      {"DS_READ_U8_D16", MK::Load, 1, 1, false, 1},
      {"DS_READ_U8_D16_HI", MK::Load, 1, 1, false, 2},
      {"DS_READ_I8_D16", MK::Load, 1, 1, true, 1},
      {"DS_READ_I8_D16_HI", MK::Load, 1, 1, true, 2},
      {"DS_READ_U16_D16", MK::Load, 2, 1, false, 1},
      {"DS_READ_U16_D16_HI", MK::Load, 2, 1, false, 2},
      {"DS_WRITE_B32", MK::Store, 4, 1, false, 0},
      {"DS_WRITE_B64", MK::Store, 4, 2, false, 0},
      {"DS_WRITE_B96", MK::Store, 4, 3, false, 0},
      {"DS_WRITE_B128", MK::Store, 4, 4, false, 0},
      {"DS_WRITE_B8", MK::Store, 1, 1, false, 0},
      {"DS_WRITE_B16", MK::Store, 2, 1, false, 0},
      {"DS_WRITE_B8_D16_HI", MK::Store, 1, 1, false, 2},
      {"DS_WRITE_B16_D16_HI", MK::Store, 2, 1, false, 2},
  };
  for (const DSName &D : Plain)
    R.add(D.N, SemEntry{execDS,
                        info({D.K, D.Bytes, D.Dwords, D.Signed, D.D16}),
                        FIsDS});
  R.add("DS_READ2_B32", SemEntry{execDS2<false, false>,
                                 info({MK::Load, 4, 1}), FIsDS});
  R.add("DS_READ2_B64", SemEntry{execDS2<false, false>,
                                 info({MK::Load, 4, 2}), FIsDS});
  R.add("DS_READ2ST64_B32", SemEntry{execDS2<false, true>,
                                     info({MK::Load, 4, 1}), FIsDS});
  R.add("DS_READ2ST64_B64", SemEntry{execDS2<false, true>,
                                     info({MK::Load, 4, 2}), FIsDS});
  R.add("DS_WRITE2_B32", SemEntry{execDS2<true, false>,
                                  info({MK::Store, 4, 1}), FIsDS});
  R.add("DS_WRITE2_B64", SemEntry{execDS2<true, false>,
                                  info({MK::Store, 4, 2}), FIsDS});
  R.add("DS_WRITE2ST64_B32", SemEntry{execDS2<true, true>,
                                      info({MK::Store, 4, 1}), FIsDS});
  R.add("DS_WRITE2ST64_B64", SemEntry{execDS2<true, true>,
                                      info({MK::Store, 4, 2}), FIsDS});
  R.add("DS_WRXCHG2_RTN_B32",
        SemEntry{execDSXchg2<false>, info({MK::Atomic, 4, 1}), FIsDS});
  R.add("DS_WRXCHG2_RTN_B64",
        SemEntry{execDSXchg2<false>, info({MK::Atomic, 4, 2}), FIsDS});
  R.add("DS_WRXCHG2ST64_RTN_B32",
        SemEntry{execDSXchg2<true>, info({MK::Atomic, 4, 1}), FIsDS});
  R.add("DS_WRXCHG2ST64_RTN_B64",
        SemEntry{execDSXchg2<true>, info({MK::Atomic, 4, 2}), FIsDS});
  R.add("DS_BPERMUTE_B32", SemEntry{execDSLane<0>, nullptr, FIsDS});
  R.add("DS_PERMUTE_B32", SemEntry{execDSLane<1>, nullptr, FIsDS});
  R.add("DS_SWIZZLE_B32", SemEntry{execDSLane<2>, nullptr, FIsDS});
  struct DSA {
    const char *N;
    AOp Op;
  };
  const DSA DsAtomics[] = {
      {"ADD", AOp::Add},     {"SUB", AOp::Sub},     {"RSUB", AOp::Rsub},
      {"INC", AOp::Inc},     {"DEC", AOp::Dec},     {"MIN_I32", AOp::SMin},
      {"MAX_I32", AOp::SMax}, {"MIN_U32", AOp::UMin}, {"MAX_U32", AOp::UMax},
      {"AND", AOp::And},     {"OR", AOp::Or},       {"XOR", AOp::Xor},
      {"MSKOR", AOp::MskOr}, {"WRXCHG", AOp::Swap}, {"CMPST", AOp::CmpSt},
      {"ADD_F32", AOp::AddF32}, {"MIN_F32", AOp::MinF32},
      {"MAX_F32", AOp::MaxF32}, {"PK_ADD_F16", AOp::PkAddF16},
      {"PK_ADD_BF16", AOp::PkAddBF16}, {"ADD_F64", AOp::AddF64},
      {"MIN_F64", AOp::MinF64}, {"MAX_F64", AOp::MaxF64},
      {"MIN_I64", AOp::SMin}, {"MAX_I64", AOp::SMax}, {"MIN_U64", AOp::UMin},
      {"MAX_U64", AOp::UMax}, {"ADD_U64", AOp::Add}, {"SUB_U64", AOp::Sub},
      {"AND_B64", AOp::And}, {"OR_B64", AOp::Or}, {"XOR_B64", AOp::Xor},
      {"INC_U64", AOp::Inc}, {"DEC_U64", AOp::Dec},
      {"WRXCHG_B64", AOp::Swap}, {"CMPST_B64", AOp::CmpSt},
      {"CMPST_F32", AOp::CmpStF32}, {"CMPST_F64", AOp::CmpStF64},
      {"MSKOR_B64", AOp::MskOr}, {"RSUB_U64", AOp::Rsub},
  };
  for (const DSA &A : DsAtomics) {
    std::string Base = A.N;
    bool Wide = StringRef(Base).ends_with("64");
    // Width suffixes: "ADD" -> DS_ADD_U32, "AND" -> DS_AND_B32 ...
    std::string N32, NRtn;
    auto Reg = [&](const std::string &Name, bool Rtn) {
      MemInfo MI{MK::Atomic, 4, uint8_t(Wide ? 2 : 1)};
      MI.Op = A.Op;
      MI.Wide = Wide;
      R.add(Name, SemEntry{execDS, info(MI), FIsDS | (Rtn ? FRtn : 0u)});
    };
    // The exchange exists only in its returning form (DS_WRXCHG_RTN_B32,
    // DS_WRXCHG_RTN_B64).
    bool RtnOnly = A.Op == AOp::Swap;
    if (StringRef(Base).contains('_')) {
      if (!RtnOnly)
        Reg("DS_" + Base, false);
      StringRef B(Base);
      auto [Op, Ty] = B.rsplit('_');
      Reg(("DS_" + Op + "_RTN_" + Ty).str(), true);
    } else {
      const char *Ty = (A.Op == AOp::Add || A.Op == AOp::Sub ||
                        A.Op == AOp::Rsub || A.Op == AOp::Inc ||
                        A.Op == AOp::Dec)
                           ? "U32"
                           : "B32";
      if (!RtnOnly)
        Reg("DS_" + Base + "_" + Ty, false);
      Reg("DS_" + Base + "_RTN_" + Ty, true);
    }
  }
  {
    MemInfo MI{MK::Atomic, 4, 1};
    MI.Op = AOp::Wrap;
    R.add("DS_WRAP_RTN_B32", SemEntry{execDS, info(MI), FIsDS | FRtn});
  }
  R.add("DS_NOP", SemEntry{[](Wave &, const DInst &) {}, nullptr, FIsDS});
  R.add("DS_APPEND", SemEntry{execDSAppend<true>, nullptr, FIsDS});
  R.add("DS_CONSUME", SemEntry{execDSAppend<false>, nullptr, FIsDS});
  R.add("DS_CONDXCHG32_RTN_B64",
        SemEntry{execDSCondXchg, nullptr, FIsDS});
  R.add("DS_READ_ADDTID_B32",
        SemEntry{execDSAddTid<false>, info({MK::Load, 4, 1}), FIsDS});
  R.add("DS_WRITE_ADDTID_B32",
        SemEntry{execDSAddTid<true>, info({MK::Store, 4, 1}), FIsDS});
}

void emu::registerSMEM(SemRegistry &R) {
  struct SN {
    const char *N;
    unsigned Dw;
  };
  for (SN S : {SN{"DWORD", 1}, SN{"DWORDX2", 2}, SN{"DWORDX4", 4},
               SN{"DWORDX8", 8}, SN{"DWORDX16", 16}}) {
    SemEntry L{execSMEM<false, false>, nullptr, FIsSMEM, S.Dw};
    R.add(std::string("S_LOAD_") + S.N, L);
    SemEntry BL{execSMEM<true, false>, nullptr, FIsSMEM, S.Dw};
    R.add(std::string("S_BUFFER_LOAD_") + S.N, BL);
    if (S.Dw <= 4) {
      SemEntry St{execSMEM<false, true>, nullptr, FIsSMEM, S.Dw};
      R.add(std::string("S_STORE_") + S.N, St);
      SemEntry BSt{execSMEM<true, true>, nullptr, FIsSMEM, S.Dw};
      R.add(std::string("S_BUFFER_STORE_") + S.N, BSt);
    }
  }
  for (const AtomicName &A : Atomics)
    for (bool Wide : {false, true}) {
      MemInfo MI{MK::Atomic, 4, uint8_t(Wide ? 2 : 1)};
      MI.Op = A.Op;
      MI.Wide = Wide;
      std::string Sfx = std::string(A.Name) + (Wide ? "_X2" : "");
      const MemInfo *Info = info(MI);
      R.add("S_ATOMIC_" + Sfx, SemEntry{execSAtomic<false>, Info, FIsSMEM});
      R.add("S_BUFFER_ATOMIC_" + Sfx,
            SemEntry{execSAtomic<true>, Info, FIsSMEM});
    }
  SemEntry Nop{execCacheNop};
  R.add("S_DCACHE_WB", Nop);
  R.add("S_DCACHE_INV", Nop);
  R.add("S_DCACHE_WB_VOL", Nop);
  R.add("S_DCACHE_INV_VOL", Nop);
  for (SN S : {SN{"DWORD", 1}, SN{"DWORDX2", 2}, SN{"DWORDX4", 4}}) {
    R.add(std::string("S_SCRATCH_LOAD_") + S.N,
          SemEntry{execSScratch<false>, nullptr, FIsSMEM, S.Dw});
    R.add(std::string("S_SCRATCH_STORE_") + S.N,
          SemEntry{execSScratch<true>, nullptr, FIsSMEM, S.Dw});
  }
  R.add("S_DCACHE_DISCARD", SemEntry{execDcacheDiscard, nullptr, FIsSMEM});
  R.add("S_DCACHE_DISCARD_X2", SemEntry{execDcacheDiscard, nullptr, FIsSMEM});
  // A probe of the address translation cache: no register, memory or
  // counter effect (LLVM's SMInstructions.td: LGKM_CNT = 0).
  R.add("S_ATC_PROBE", SemEntry{[](Wave &, const DInst &) {}});
  R.add("S_ATC_PROBE_BUFFER", SemEntry{[](Wave &, const DInst &) {}});
  R.add("S_MEMTIME", SemEntry{execMemtime, nullptr, FIsSMEM});
  R.add("S_MEMREALTIME", SemEntry{execMemtime, nullptr, FIsSMEM});
}
