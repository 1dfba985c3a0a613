//===- RegallocCompact.cpp ------------------------------------------------===//
//
// The renumbering is one map per register file (VGPRs, AGPRs, SGPRs) that
// keeps each index mod 4 and sends distinct quads to distinct quads, so
// it is injective on 32-bit registers and on 16-bit halves: two operands
// overlap after it exactly when they did before. (Without callees it also
// keeps the order of indices; around a callee's quads a longer chain may
// skip a gap a later quad then fills.) Every dependence, and with it
// every hazard and wait the analyses see, is the one the input had; the
// pass still compares the violation sites before and after, because a
// site is named by its register.
//
// Occupancy arithmetic (gfx90a, gfx942, gfx950; LLVM IsaInfo and the
// project's lib/Analysis/Resources.cpp): a SIMD holds at most 8 waves, 512
// unified VGPR slots per lane in granules of 8 and 800 SGPRs given out in
// blocks of 16. VGPRs limit waves below 8 from 65 slots on, so the vector
// granule matters over most of its range. SGPRs limit them only when a
// wave is given 112 (800 / 112 = 7 waves; 96 give 8): the count with VCC,
// FLAT_SCRATCH and XNACK_MASK (6 on gfx942) above 96, i.e. a kernel naming
// s90 or higher. (LLVM's occupancy table, which does not round to 16,
// puts the step above 100.) Such kernels exist (scalar-heavy hand-written
// ones), and the renaming is the VGPRs' own, so SGPRs are compacted on the
// same rule: only when the allocation drops a block, which below 97
// changes no wave count.
//
//===----------------------------------------------------------------------===//
#include "RegallocCompact.h"
#include "EditSupport.h"
#include "ViolationSites.h"
#include "asmevo/Emit/RegisterCounts.h"
#include "asmevo/Lift/DirectCall.h"
#include "asmevo/Lift/InstrKinds.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/CodeGen/TargetInstrInfo.h"
#include "llvm/CodeGen/TargetRegisterInfo.h"
#include "llvm/CodeGen/TargetSubtargetInfo.h"
#include <array>
#include <set>

using namespace llvm;
using namespace asmevo;

namespace {

/// Indices move by whole quads, so that each keeps its value mod 4.
constexpr unsigned QuadSize = 4;
/// Allocation granule of wave64 VGPRs on gfx90a, gfx94x and gfx950.
constexpr unsigned VGPRGranule = 8;
/// gfx9-family waves are given SGPRs in blocks of 16, whatever the
/// descriptor's granule of 8 says (AMDGPUUsage, GFX9
/// GRANULATED_WAVEFRONT_SGPR_COUNT).
constexpr unsigned SGPRBlock = 16;
/// Indices of every file fit (512 VGPRs, 256 AGPRs, 106 SGPRs).
constexpr unsigned FileSize = 512;

enum GPRFile : unsigned { VFile, AFile, SFile, NumFiles };
constexpr const char *FilePrefix[NumFiles] = {"VGPR", "AGPR", "SGPR"};

using IndexMap = std::array<unsigned, FileSize>;
using FileMaps = std::array<IndexMap, NumFiles>;
using FileSets = std::array<BitVector, NumFiles>;

/// File and index of a register-name part "VGPRk", "AGPRk" or "SGPRk".
std::optional<std::pair<GPRFile, unsigned>> gprPart(StringRef Part) {
  for (unsigned F = 0; F < NumFiles; ++F) {
    StringRef P = Part;
    unsigned Idx;
    if (P.consume_front(FilePrefix[F]) && !P.getAsInteger(10, Idx) &&
        Idx < FileSize)
      return std::pair(GPRFile(F), Idx);
  }
  return std::nullopt;
}

bool indexesRegisters(StringRef Name) {
  return Name.starts_with("S_SET_GPR_IDX") || Name.starts_with("V_MOVREL") ||
         Name.starts_with("V_SWAPREL") || Name.starts_with("S_MOVREL");
}

/// Indirect jumps hand registers to code that keeps the old numbers; GPR
/// indexing computes register numbers from data. s_call_b64 is not
/// followed to its target (only s_swappc_b64 calls are), so its callee's
/// registers would be unknown.
std::optional<StringRef> blocksRenumbering(StringRef Name) {
  if (Name.starts_with("S_CALL"))
    return StringRef("it calls a function with s_call_b64 (only "
                     "s_swappc_b64 calls are followed)");
  if (classifyFlow(Name) == FlowKind::Return)
    return StringRef("it has an indirect jump or return");
  if (indexesRegisters(Name))
    return StringRef("it indexes registers (the index is data)");
  return std::nullopt;
}

/// Register names -> registers, and what a renumbering makes of each.
class Renamer {
public:
  Renamer(const MCRegisterInfo &MRI, const FileMaps &Maps)
      : MRI(MRI), Maps(Maps) {
    for (unsigned R = 1; R < MRI.getNumRegs(); ++R)
      ByName[MRI.getName(R)] = MCRegister(R);
  }

  /// \p R with each VGPRk/AGPRk/SGPRk of its name renumbered (halves and
  /// tuples alike); R when it names none; nullopt when no register has the
  /// new name.
  std::optional<MCRegister> operator()(MCRegister R) {
    auto It = Done.find(R);
    if (It != Done.end())
      return It->second;
    SmallVector<StringRef, 8> Parts;
    StringRef(MRI.getName(R)).split(Parts, '_');
    std::string New;
    bool Any = false;
    for (StringRef P : Parts) {
      if (!New.empty())
        New += '_';
      if (auto G = gprPart(P)) {
        New += FilePrefix[G->first] +
               std::to_string(Maps[G->first][G->second]);
        Any = true;
      } else {
        New += P.str();
      }
    }
    std::optional<MCRegister> Out = R;
    if (Any) {
      auto N = ByName.find(New);
      Out = N == ByName.end() ? std::nullopt
                              : std::optional<MCRegister>(N->second);
    }
    Done[R] = Out;
    return Out;
  }

private:
  const MCRegisterInfo &MRI;
  const FileMaps &Maps;
  StringMap<MCRegister> ByName;
  DenseMap<MCRegister, std::optional<MCRegister>> Done;
};

constexpr unsigned NumQuads = FileSize / QuadSize;

/// Marks in \p Used the indices \p R names, per file, and in \p Joined
/// (when given) quad q of a file when R is a tuple running from quad q
/// into quad q + 1: the two must stay adjacent.
void noteIndices(const MCRegisterInfo &MRI, MCRegister R, FileSets &Used,
                 FileSets *Joined = nullptr) {
  SmallVector<StringRef, 8> Parts;
  StringRef(MRI.getName(R)).split(Parts, '_');
  std::optional<std::pair<GPRFile, unsigned>> Prev;
  for (StringRef P : Parts) {
    auto G = gprPart(P);
    if (!G)
      continue;
    Used[G->first].set(G->second);
    if (Joined && Prev && Prev->first == G->first &&
        Prev->second / QuadSize != G->second / QuadSize)
      (*Joined)[G->first].set(std::min(Prev->second, G->second) / QuadSize);
    Prev = G;
  }
}

FileSets emptySets(unsigned Size) {
  FileSets S;
  for (BitVector &B : S)
    B.resize(Size);
  return S;
}

/// One file's renumbering.
struct Compaction {
  IndexMap Map;
  unsigned OldCount = 0, NewCount = 0;
};

/// Quads in \p Fixed stay, and so does every quad the kernel names (in
/// \p Used) that a callee names too (in \p Taken) or that a tuple joins
/// (\p Joined) to one that stays. The other named quads move down by
/// chains (quads tuples join), each chain whole into the lowest run of
/// quads that no fixed quad, no callee and no earlier chain occupies. A
/// chain's own quads are such a run (earlier chains land below it), so
/// nothing moves up. Without callees this is the plain order-keeping
/// compaction: every named quad past the fixed ones moves down past the
/// quads nobody names.
Compaction compact(const BitVector &Used, BitVector Fixed,
                   const BitVector &Taken, const BitVector &Joined) {
  BitVector Named(NumQuads);
  for (unsigned I : Used.set_bits())
    Named.set(I / QuadSize);
  // A register a callee names holds what the call passes in or out (or
  // what the callee saves and restores); the kernel's use of it stays.
  BitVector Also = Taken;
  Also &= Named;
  Fixed |= Also;
  for (bool Grew = true; Grew;) {
    Grew = false;
    for (unsigned Q = 0; Q + 1 < NumQuads; ++Q)
      if (Joined.test(Q) && Fixed.test(Q) != Fixed.test(Q + 1)) {
        Fixed.set(Q);
        Fixed.set(Q + 1);
        Grew = true;
      }
  }
  BitVector Busy = Fixed;
  Busy |= Taken;
  std::array<unsigned, NumQuads> To;
  for (unsigned Q = 0; Q < NumQuads; ++Q)
    To[Q] = Q;
  for (unsigned Q = 0; Q < NumQuads;) {
    if (!Named.test(Q) || Fixed.test(Q)) {
      ++Q;
      continue;
    }
    unsigned Len = 1;
    while (Q + Len < NumQuads && Joined.test(Q + Len - 1))
      ++Len;
    unsigned S = 0;
    while (Busy.find_first_in(S, S + Len) != -1)
      ++S;
    assert(S <= Q && "a chain's own quads are free");
    for (unsigned I = 0; I < Len; ++I) {
      To[Q + I] = S + I;
      Busy.set(S + I);
    }
    Q += Len;
  }
  Compaction C;
  for (unsigned I = 0; I < FileSize; ++I) {
    C.Map[I] = To[I / QuadSize] * QuadSize + I % QuadSize;
    if (Used.test(I)) {
      C.OldCount = I + 1;
      C.NewCount = std::max(C.NewCount, C.Map[I] + 1);
    }
  }
  return C;
}

/// The quads of a file that hold any index in \p Indices.
BitVector quadsOf(const BitVector &Indices) {
  BitVector Q(NumQuads);
  for (unsigned I : Indices.set_bits())
    Q.set(I / QuadSize);
  return Q;
}

unsigned countOf(const BitVector &Indices) {
  int Last = Indices.find_last();
  return Last < 0 ? 0 : Last + 1;
}

/// What the functions a kernel reaches name, or why they cannot be known.
struct CalleeRegisters {
  FileSets Named = emptySets(FileSize);
  bool NamesVCC = false, NamesFlatScratch = false;
  bool Calls = false;
};

/// The registers every function \p Kernel reaches names, explicitly or
/// implicitly: the call ABI's argument and return registers as the
/// callees read and write them, the callee-saved ones they save, what
/// they clobber. A register no callee names is neither read nor written
/// by a call. Fails (with the reason) when a reached function was not
/// lifted, a call's target is not known, or a callee indexes registers.
Expected<CalleeRegisters> calleeRegisters(const LiftedModule &LM,
                                          const LiftedFunction &Kernel) {
  CalleeRegisters Out;
  std::vector<const LiftedFunction *> Work = {&Kernel};
  std::set<const LiftedFunction *> Seen = {&Kernel};
  auto Refuse = [](const Twine &Why) {
    return createStringError(inconvertibleErrorCode(), Why);
  };
  while (!Work.empty()) {
    const LiftedFunction &F = *Work.back();
    Work.pop_back();
    if (!F.MF)
      return Refuse("it reaches " + F.Range.Name +
                    ", which is not simple (" + F.Reason + ")");
    const TargetInstrInfo &TII = *F.MF->getSubtarget().getInstrInfo();
    const TargetRegisterInfo &TRI = *F.MF->getSubtarget().getRegisterInfo();
    bool IsCallee = &F != &Kernel;
    for (const MachineBasicBlock &MBB : *F.MF) {
      if (IsCallee)
        for (const auto &LI : MBB.liveins())
          noteIndices(TRI, LI.PhysReg, Out.Named);
      for (const MachineInstr &MI : MBB) {
        StringRef N = TII.getName(MI.getOpcode());
        if (classifyFlow(N) == FlowKind::Call) {
          Out.Calls = true;
          if (!directCallee(LM, MI))
            return Refuse("in " + F.Range.Name +
                          ", a call's target is not known (only s_getpc_b64 "
                          "+ s_add_u32/s_addc_u32 of a function is followed)");
        }
        if (IsCallee && (N.starts_with("S_CALL") || indexesRegisters(N)))
          return Refuse("it reaches " + F.Range.Name +
                        ", which indexes registers or calls with "
                        "s_call_b64");
        for (const MachineOperand &MO : MI.operands()) {
          // Any reference to a function, called or only taken, brings it
          // in: its address may be called from elsewhere.
          if (MO.isGlobal())
            for (const LiftedFunction &G : LM.functions())
              if (G.IRFunc && G.IRFunc == MO.getGlobal() &&
                  Seen.insert(&G).second)
                Work.push_back(&G);
          if (!IsCallee)
            continue;
          if (MO.isRegMask())
            return Refuse("it reaches " + F.Range.Name +
                          ", where an operand clobbers a register mask");
          if (!MO.isReg() || !MO.getReg())
            continue;
          noteIndices(TRI, MO.getReg().asMCReg(), Out.Named);
          StringRef RN = TRI.getName(MO.getReg());
          Out.NamesVCC |= RN.starts_with("VCC");
          Out.NamesFlatScratch |= RN.starts_with("FLAT_SCR");
        }
      }
    }
  }
  return Out;
}

void setIdentity(IndexMap &M) {
  for (unsigned I = 0; I < FileSize; ++I)
    M[I] = I;
}

/// Block live-ins, by block, to put back.
using LiveInList = std::vector<MachineBasicBlock::RegisterMaskPair>;

} // namespace

Expected<bool> RegallocCompactPass::run(LiftedModule &LM, LiftedFunction &LF) {
  // The granule arithmetic below is that of the wave64 unified register
  // file; device functions share their registers with their callers.
  const TargetInfo &T = LM.original().target();
  if (!LF.MF || !LF.Range.IsKernel || LF.Range.KernelIndex < 0 ||
      (unsigned)LF.Range.KernelIndex >= LM.descriptors().size() ||
      !(T.isGFX90A() || T.isGFX94X() || T.isGFX950()))
    return false;
  MachineFunction &MF = *LF.MF;
  const TargetInstrInfo &TII = *MF.getSubtarget().getInstrInfo();
  const TargetRegisterInfo &TRI = *MF.getSubtarget().getRegisterInfo();
  const KernelDescriptor &KD = LM.descriptors()[LF.Range.KernelIndex];
  EditableRegion Region(LF);

  FileSets Used = emptySets(FileSize);
  FileSets Joined = emptySets(NumQuads);
  // The SGPRs reserved above the highest one named depend on these, as in
  // the emitter's count.
  bool NamesVCC = false, NamesFlatScratch = false;
  for (MachineBasicBlock &MBB : MF) {
    for (const auto &LI : MBB.liveins())
      noteIndices(TRI, LI.PhysReg, Used, &Joined);
    for (MachineInstr &MI : MBB) {
      if (auto Why = blocksRenumbering(TII.getName(MI.getOpcode()))) {
        note("kept: " + *Why);
        return false;
      }
      for (const MachineOperand &MO : MI.operands()) {
        if (MO.isRegMask()) {
          note("kept: an operand clobbers a register mask");
          return false;
        }
        if (!MO.isReg() || !MO.getReg())
          continue;
        noteIndices(TRI, MO.getReg().asMCReg(), Used, &Joined);
        StringRef N = TRI.getName(MO.getReg());
        NamesVCC |= N.starts_with("VCC");
        NamesFlatScratch |= N.starts_with("FLAT_SCR");
      }
    }
  }

  // The callees keep their numbers: whatever they name stays put in the
  // kernel and no kernel register moves there (see calleeRegisters()).
  Expected<CalleeRegisters> Callees = calleeRegisters(LM, LF);
  if (!Callees) {
    note("kept: " + toString(Callees.takeError()));
    return false;
  }
  FileSets Taken = emptySets(NumQuads);
  for (unsigned F = 0; F < NumFiles; ++F)
    Taken[F] = quadsOf(Callees->Named[F]);
  // The return address s[30:31], the stack pointer s32 and the frame
  // pointer s33 mean what the ABI says at every call, whether or not the
  // callees at hand name them.
  if (Callees->Calls)
    Taken[SFile].set(30 / QuadSize, 33 / QuadSize + 1);
  NamesVCC |= Callees->NamesVCC;
  NamesFlatScratch |= Callees->NamesFlatScratch;

  // Quad 0 of the VGPRs holds the work-item IDs the dispatch writes (v0,
  // or v0..v2 on targets without packed IDs) and stays where it is, used
  // or not; nothing initializes AGPRs; the SGPRs the dispatch writes stay,
  // with the rest of their quad.
  unsigned FixedS = KD.dispatchSGPRs();
  auto Prefix = [](unsigned Quads) {
    BitVector B(NumQuads);
    B.set(0, Quads);
    return B;
  };
  std::array<Compaction, NumFiles> C = {
      compact(Used[VFile], Prefix(1), Taken[VFile], Joined[VFile]),
      compact(Used[AFile], Prefix(0), Taken[AFile], Joined[AFile]),
      compact(Used[SFile], Prefix(divideCeil(FixedS, QuadSize)),
              Taken[SFile], Joined[SFile])};

  // Worth it only when what the emitter would declare drops: without the
  // pass max(declared, used), with it what the code uses. The vector
  // files are one: VGPRs, then the AGPRs from ACCUM_OFFSET on. The
  // callees' registers count towards the kernel's allocation either way.
  std::array<unsigned, NumFiles> CalleeCount;
  for (unsigned F = 0; F < NumFiles; ++F)
    CalleeCount[F] = countOf(Callees->Named[F]);
  auto Count = [&](GPRFile F, bool New) {
    return std::max(New ? C[F].NewCount : C[F].OldCount, CalleeCount[F]);
  };
  unsigned OldV = unifiedVGPRs(T, Count(VFile, false), Count(AFile, false));
  unsigned NewV = unifiedVGPRs(T, Count(VFile, true), Count(AFile, true));
  unsigned BeforeV =
      std::max<unsigned>(alignTo(OldV, VGPRGranule), KD.allocatedVGPRs());
  unsigned Reserved = reservedSGPRs(T, NamesVCC, NamesFlatScratch);
  // The dispatch writes its SGPRs whether the code names them or not, so
  // the allocation covers them (KernelResources does the same).
  unsigned NewS = std::max(Count(SFile, true), FixedS) + Reserved;
  unsigned BeforeS =
      std::max<unsigned>(alignTo(Count(SFile, false) + Reserved, SGPRBlock),
                         alignTo((KD.sgprGranule() + 1) * 8, SGPRBlock));
  std::array<bool, NumFiles> Worth = {};
  Worth[VFile] = Worth[AFile] = alignTo(NewV, VGPRGranule) < BeforeV;
  Worth[SFile] = alignTo(NewS, SGPRBlock) < BeforeS;
  if (!Worth[VFile] && !Worth[SFile]) {
    if (Used[VFile].any() || Used[AFile].any() || Used[SFile].any())
      note("kept: compacted, the VGPR+AGPR count (" + Twine(NewV) +
           (Callees->Calls ? " with the callees'" : "") +
           ") would need as many granules of 8 as the " + Twine(BeforeV) +
           " declared, and the SGPR count (" + Twine(NewS) +
           " with VCC/FLAT_SCRATCH/XNACK_MASK) as many blocks of 16 as " +
           Twine(BeforeS));
    return false;
  }
  FileMaps Maps;
  for (unsigned F = 0; F < NumFiles; ++F) {
    Maps[F] = C[F].Map;
    if (!Worth[F])
      setIdentity(Maps[F]);
  }

  // A register read before any write holds what the dispatch put there
  // (or garbage the code may depend on): it keeps its number, and a file
  // where it would move is left as it is. The preload prologue is never
  // edited.
  auto MovedFiles = [&](MCRegister R) {
    FileSets S;
    for (BitVector &B : S)
      B.resize(FileSize);
    noteIndices(TRI, R, S);
    std::array<bool, NumFiles> Out = {};
    for (unsigned F = 0; F < NumFiles; ++F)
      Out[F] = llvm::any_of(S[F].set_bits(),
                            [&](unsigned I) { return Maps[F][I] != I; });
    return Out;
  };
  auto Pin = [&](MCRegister R, StringRef Why) {
    std::array<bool, NumFiles> M = MovedFiles(R);
    for (unsigned F = 0; F < NumFiles; ++F) {
      if (!M[F])
        continue;
      // VGPRs and AGPRs share ACCUM_OFFSET: one cannot shrink alone
      // without the other's count deciding the granule, so they go
      // together.
      note(Twine(FilePrefix[F]) + "s kept: " + TRI.getName(R) + " " + Why);
      if (F == SFile) {
        setIdentity(Maps[SFile]);
        Worth[SFile] = false;
      } else {
        setIdentity(Maps[VFile]);
        setIdentity(Maps[AFile]);
        Worth[VFile] = Worth[AFile] = false;
      }
    }
  };
  for (MachineBasicBlock *Entry : {&MF.front(), LF.PreloadEntry})
    if (Entry)
      for (const auto &LI : Entry->liveins())
        Pin(LI.PhysReg, "is read before it is written");
  for (MachineBasicBlock &MBB : MF)
    if (Region.inPrologue(MBB))
      for (MachineInstr &MI : MBB)
        for (const MachineOperand &MO : MI.operands())
          if (MO.isReg() && MO.getReg())
            Pin(MO.getReg().asMCReg(), "is named by the preload prologue");
  if (!Worth[VFile] && !Worth[SFile])
    return false;

  // Every new register first, so that a name with no register refuses the
  // kernel before anything changed.
  Renamer Rename(TRI, Maps);
  std::vector<std::pair<MachineOperand *, MCRegister>> Ops;
  // Files where some register actually moves: only their declared counts
  // describe the old numbering.
  std::array<bool, NumFiles> Moved = {};
  for (MachineBasicBlock &MBB : MF) {
    for (const auto &LI : MBB.liveins())
      if (!Rename(LI.PhysReg)) {
        note(Twine("kept: no register for renumbered ") +
             TRI.getName(LI.PhysReg));
        return false;
      }
    for (MachineInstr &MI : MBB)
      for (MachineOperand &MO : MI.operands()) {
        if (!MO.isReg() || !MO.getReg())
          continue;
        std::optional<MCRegister> New = Rename(MO.getReg().asMCReg());
        if (!New) {
          note(Twine("kept: no register for renumbered ") +
               TRI.getName(MO.getReg()));
          return false;
        }
        if (*New == MO.getReg().asMCReg())
          continue;
        Ops.push_back({&MO, *New});
        std::array<bool, NumFiles> M = MovedFiles(MO.getReg().asMCReg());
        for (unsigned F = 0; F < NumFiles; ++F)
          Moved[F] |= M[F];
      }
  }
  if (Ops.empty() || !shouldRewrite())
    return false;

  const ISAFacts &F = Facts.get(LM);
  SiteSet Sites = SiteSet::of(LM, LF, F, /*Advisories=*/true);
  std::vector<std::pair<MachineOperand *, Register>> Undo;
  std::vector<std::pair<MachineBasicBlock *, LiveInList>> OldLiveIns;
  for (auto &[MO, New] : Ops) {
    Undo.push_back({MO, MO->getReg()});
    MO->setReg(New);
  }
  for (MachineBasicBlock &MBB : MF) {
    LiveInList Old(MBB.livein_begin(), MBB.livein_end());
    MBB.clearLiveIns();
    for (const auto &LI : Old)
      MBB.addLiveIn(*Rename(LI.PhysReg), LI.LaneMask);
    MBB.sortUniqueLiveIns();
    OldLiveIns.push_back({&MBB, std::move(Old)});
  }
  // A site is named by its register: one the input had on a register that
  // moved reads as new. Such a kernel is left as it was.
  if (!Sites.noneIntroducedBy(SiteSet::of(LM, LF, F, true))) {
    for (auto &[MO, Old] : Undo)
      MO->setReg(Old);
    for (auto &[MBB, Old] : OldLiveIns) {
      MBB->clearLiveIns();
      for (const auto &LI : Old)
        MBB->addLiveIn(LI.PhysReg, LI.LaneMask);
      MBB->sortUniqueLiveIns();
    }
    note("kept: a hazard or wait site would be named by other registers");
    return false;
  }
  LF.RegistersRenumbered |= Moved[VFile] || Moved[AFile];
  LF.SGPRsRenumbered |= Moved[SFile];
  return true;
}
