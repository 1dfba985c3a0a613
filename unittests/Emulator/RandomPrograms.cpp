//===- RandomPrograms.cpp - The emulator on random instruction sequences --===//
//
// The emulator's own robustness check (issue 11): sequences of random valid
// instructions, made from every opcode the emulator implements (one
// encoding of each from enumerateISA, its register operands redrawn from
// the operand's register class and encoded again by LLVM's MCCodeEmitter,
// kept only when the disassembler reads back the same opcode), run under an
// instruction budget with EXEC all zero, partial or full. A run may end in
// any violation; it must not crash, hang or touch memory outside the
// emulator's state (run it from an ASan + UBSan build: utils/fuzz/
// run-fuzzers.sh does). Prints how often each opcode was executed and
// exits 1 if an implemented opcode never was.
//
// Each program is patched into one assembled template kernel (the region
// after asmevo_region), so only the first assembly runs llvm-mc and ld.lld.
//
//===----------------------------------------------------------------------===//
#include "AsmHarness.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/DeviceMemory.h"
#include "asmevo/Emulator/ISACoverage.h"
#include "asmevo/Support/TargetContext.h"
#include "llvm/MC/MCCodeEmitter.h"
#include "llvm/MC/MCContext.h"
#include "llvm/MC/MCFixup.h"
#include "llvm/MC/MCInst.h"
#include "llvm/MC/MCInstrInfo.h"
#include "llvm/MC/MCRegisterInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include <cstring>
#include <map>
#include <random>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

static cl::opt<std::string> Isa("isa", cl::desc("gfx942 or gfx90a"),
                                cl::init("gfx942"));
static cl::opt<uint64_t> Seed("seed", cl::desc("Seed of the programs"),
                              cl::init(1));
static cl::opt<unsigned> Rounds(
    "rounds", cl::desc("Programs per implemented opcode (each opcode opens "
                       "this many programs; the rest are drawn at random)"),
    cl::init(1));
static cl::opt<unsigned> Length("length",
                                cl::desc("Instructions per program (<= 64)"),
                                cl::init(12));
static cl::opt<uint64_t> Budget("budget",
                                cl::desc("Instruction budget per launch"),
                                cl::init(20000));
static cl::opt<bool> PrintCounts("print-counts",
                                 cl::desc("Print every opcode's count"));

namespace {

constexpr unsigned RegionSlots = 64; // 16 bytes each: the longest encoding
constexpr unsigned VGPRs = 256, AGPRs = 256, SGPRs = 96;

std::string templateSource(StringRef Arch) {
  std::string S;
  raw_string_ostream OS(S);
  OS << ".amdgcn_target \"amdgcn-amd-amdhsa--" << Arch << "\"\n"
     << ".amdhsa_code_object_version 5\n.text\n.globl k\n.p2align 8\n"
     << ".type k,@function\nk:\n"
     << "  s_load_dwordx4 s[20:23], s[0:1], 0x0\n"
     << "  s_load_dwordx2 s[24:25], s[0:1], 0x10\n"
     << "  s_waitcnt lgkmcnt(0)\n"
     << "  s_mov_b64 exec, s[24:25]\n"
     << ".globl asmevo_region\nasmevo_region:\n"
     << "  .rept " << RegionSlots * 4 << "\n  s_nop 0\n  .endr\n"
     << "  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n"
     << "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
     << "  .amdhsa_next_free_vgpr " << VGPRs + AGPRs << "\n"
     << "  .amdhsa_next_free_sgpr " << SGPRs << "\n"
     << "  .amdhsa_accum_offset " << VGPRs << "\n"
     << "  .amdhsa_group_segment_fixed_size 65536\n"
     << "  .amdhsa_private_segment_fixed_size 256\n"
     << (Arch == "gfx90a"
             ? "  .amdhsa_system_sgpr_private_segment_wavefront_offset 1\n"
             : "  .amdhsa_enable_private_segment 1\n")
     << "  .amdhsa_system_sgpr_workgroup_id_x 1\n.end_amdhsa_kernel\n";
  return S;
}

/// First register number in \p Name ("VGPR8_VGPR9" -> 8) and how many
/// 32-bit registers it spans, for the files a program may use; false for
/// anything else (EXEC, M0, TTMPs, VCC, ...), which is left as it was.
bool regRange(StringRef Name, unsigned &Limit, unsigned &Last) {
  SmallVector<StringRef, 8> Parts;
  Name.split(Parts, '_');
  StringRef File;
  for (StringRef P : {StringRef("VGPR"), StringRef("AGPR"), StringRef("SGPR")})
    if (Name.starts_with(P))
      File = P;
  if (File.empty())
    return false;
  Limit = File == "VGPR" ? VGPRs : File == "AGPR" ? AGPRs : SGPRs;
  Last = 0;
  for (StringRef P : Parts) {
    unsigned N;
    if (P.starts_with(File) && !P.drop_front(4).getAsInteger(10, N))
      Last = std::max(Last, N);
    else if (P.starts_with(File))
      return false; // LO16/HI16 halves: keep
  }
  return Last < Limit;
}

class Generator {
public:
  Generator(const TargetContext &TC)
      : TC(TC), Ctx(TC.triple(), &TC.asmInfo(), &TC.regInfo(),
                    &TC.subtargetInfo()),
        CE(TC.target().createMCCodeEmitter(TC.instrInfo(), Ctx)) {}

  /// \p Sample with its register operands redrawn, or \p Sample itself when
  /// no redrawn encoding decodes back to the same opcode.
  SmallVector<uint8_t, 16> mutate(ArrayRef<uint8_t> Sample,
                                  std::mt19937_64 &R) {
    MCInst MI;
    uint64_t Size;
    SmallVector<uint8_t, 16> Out(Sample.begin(), Sample.end());
    if (TC.disassembler().getInstruction(MI, Size, Sample, 0, nulls()) !=
            MCDisassembler::Success ||
        !CE) {
      ++Kept;
      return Out;
    }
    const MCRegisterInfo &MRI = TC.regInfo();
    const MCInstrDesc &D = TC.instrInfo().get(MI.getOpcode());
    for (int Try = 0; Try < 4; ++Try) {
      MCInst M = MI;
      for (unsigned I = 0; I < M.getNumOperands() && I < D.getNumOperands();
           ++I) {
        MCOperand &Op = M.getOperand(I);
        int16_t RC = D.operands()[I].RegClass;
        unsigned Limit, Last;
        if (!Op.isReg() || RC < 0 ||
            !regRange(MRI.getName(Op.getReg()), Limit, Last))
          continue;
        const MCRegisterClass &C = MRI.getRegClass(RC);
        for (int K = 0; K < 8; ++K) {
          MCRegister Cand = C.getRegister(R() % C.getNumRegs());
          unsigned L2, Last2;
          if (regRange(MRI.getName(Cand), L2, Last2)) {
            Op.setReg(Cand);
            break;
          }
        }
      }
      SmallVector<char, 16> Code;
      SmallVector<MCFixup, 1> Fixups;
      CE->encodeInstruction(M, Code, Fixups, TC.subtargetInfo());
      if (!Fixups.empty() || Code.empty() || Code.size() > 16)
        continue;
      ArrayRef<uint8_t> Bytes(reinterpret_cast<const uint8_t *>(Code.data()),
                              Code.size());
      MCInst Back;
      uint64_t BackSize;
      if (TC.disassembler().getInstruction(Back, BackSize, Bytes, 0,
                                           nulls()) ==
              MCDisassembler::Success &&
          Back.getOpcode() == MI.getOpcode() && BackSize == Code.size()) {
        ++Redrawn;
        return SmallVector<uint8_t, 16>(Bytes.begin(), Bytes.end());
      }
    }
    ++Kept;
    return Out;
  }

  /// Instructions whose operands were redrawn, and those left as sampled.
  uint64_t Redrawn = 0, Kept = 0;

private:
  const TargetContext &TC;
  MCContext Ctx;
  std::unique_ptr<MCCodeEmitter> CE;
};

int fail(const Twine &Msg) {
  errs() << "random-programs: " << Msg << "\n";
  return 2;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  InitializeAllTargetInfos();
  InitializeAllTargetMCs();
  InitializeAllDisassemblers();
  InitializeAllTargets();
  cl::ParseCommandLineOptions(argc, argv,
                              "The emulator on random instruction sequences");
  if (Isa != "gfx942" && Isa != "gfx90a")
    return fail("--isa: '" + Isa + "' is not an emulated target");
  unsigned Len = std::min<unsigned>(std::max<unsigned>(Length, 1), RegionSlots);

  TargetInfo TI;
  TI.Processor = Isa;
  auto TC = TargetContext::create(TI);
  if (!TC)
    return fail(toString(TC.takeError()));
  auto Cov = isaCoverage(**TC, {});
  if (!Cov)
    return fail(toString(Cov.takeError()));
  std::vector<const ISAOpcode *> Ops;
  for (const OpcodeCoverage &C : *Cov)
    if (C.Status == CoverageStatus::ImplementedUntested ||
        C.Status == CoverageStatus::Tested)
      Ops.push_back(&C.Op);

  std::string Err;
  std::string Path = test::assemble(templateSource(Isa), Isa, Err);
  if (Path.empty())
    return fail(Err);
  auto MB = MemoryBuffer::getFile(Path, false);
  if (!MB)
    return fail("cannot read " + Path);
  std::vector<uint8_t> Image((*MB)->getBufferStart(), (*MB)->getBufferEnd());
  uint64_t RegionAddr = 0, RegionOff = 0;
  {
    auto CO = CodeObject::create(ArrayRef<uint8_t>(Image), Path);
    if (!CO)
      return fail(toString(CO.takeError()));
    const ELFSymbol *Sym = (*CO)->findSymbol("asmevo_region");
    const ELFSection *Sec = Sym ? (*CO)->sectionForAddr(Sym->Value) : nullptr;
    if (!Sec)
      return fail("template: no asmevo_region");
    RegionAddr = Sym->Value;
    RegionOff = Sec->Offset + (Sym->Value - Sec->Addr);
  }

  Generator G(**TC);
  std::map<std::string, uint64_t> Count;
  uint64_t Programs = 0, Aborted = 0, Violations = 0, Instructions = 0;
  const uint32_t Nop = 0xbf800000; // s_nop 0
  const uint64_t ExecPatterns[] = {0, ~0ull, 0x00000000ffffffffull,
                                   0x5555aaaa0f0f00ffull};
  std::mt19937_64 R(Seed);
  size_t Total = size_t(Rounds) * Ops.size();
  for (size_t P = 0; P < Total; ++P) {
    // Program P opens with opcode P % N, so every implemented opcode is
    // the first instruction of Rounds programs (the first always runs).
    std::vector<const ISAOpcode *> Seq{Ops[P % Ops.size()]};
    while (Seq.size() < Len)
      Seq.push_back(Ops[R() % Ops.size()]);
    std::vector<uint8_t> Img = Image;
    std::map<uint64_t, const ISAOpcode *> At;
    uint64_t Off = 0;
    for (const ISAOpcode *O : Seq) {
      SmallVector<uint8_t, 16> B = G.mutate(O->Bytes, R);
      std::memcpy(&Img[RegionOff + Off], B.data(), B.size());
      At[RegionAddr + Off] = O;
      Off += B.size();
    }
    for (; Off < RegionSlots * 16; Off += 4)
      std::memcpy(&Img[RegionOff + Off], &Nop, 4);

    auto CO = CodeObject::create(ArrayRef<uint8_t>(Img), "random.co");
    if (!CO)
      return fail("program " + Twine(P) + ": " + toString(CO.takeError()));
    auto Emu = Emulator::create(**CO);
    if (!Emu)
      return fail("program " + Twine(P) + ": " + toString(Emu.takeError()));
    DeviceMemory Mem;
    if (auto Base = (*Emu)->load(Mem); !Base)
      return fail(toString(Base.takeError()));
    uint64_t Out = Mem.allocate("out", 65536);
    uint64_t In = Mem.allocate("in", 65536);
    for (uint32_t I = 0; I < 65536 / 4; ++I) {
      uint32_t V = uint32_t(R());
      std::memcpy(Mem.find(In)->data() + 4 * I, &V, 4);
    }
    uint64_t KA = Mem.allocate("kernarg", 64, 256, 256, true);
    uint64_t Exec = ExecPatterns[P % 4];
    std::memcpy(Mem.find(KA)->data(), &Out, 8);
    std::memcpy(Mem.find(KA)->data() + 8, &In, 8);
    std::memcpy(Mem.find(KA)->data() + 16, &Exec, 8);
    LaunchParams LP;
    LP.Kernel = "k";
    LP.Block = {64, 1, 1};
    LP.KernargAddr = KA;
    LP.KernargSize = 64;
    RunOptions RO;
    RO.Seed = R();
    RO.InstructionBudget = Budget;
    RO.RecordCoverage = true;
    auto Res = (*Emu)->launch(Mem, LP, RO);
    if (!Res)
      return fail("program " + Twine(P) + ": " + toString(Res.takeError()));
    ++Programs;
    Aborted += Res->Aborted;
    Violations += !Res->Violations.empty();
    Instructions += Res->Instructions;
    for (uint64_t A : Res->Executed)
      if (auto It = At.find(A); It != At.end())
        ++Count[It->second->Name];
  }

  unsigned Never = 0;
  for (const ISAOpcode *O : Ops)
    if (!Count.count(O->Name)) {
      if (!Never++)
        outs() << "never executed:\n";
      outs() << "  " << O->Family << " " << O->Name << "\n";
    }
  if (PrintCounts)
    for (const ISAOpcode *O : Ops)
      outs() << "programs that ran " << O->Name << ": " << Count[O->Name]
             << "\n";
  outs() << "random-programs " << Isa << ": " << Programs << " programs of "
         << Len << " instructions (seed " << Seed << "), " << Instructions
         << " instructions executed, " << Violations
         << " ended with a violation (" << Aborted << " aborted); "
         << Ops.size() - Never << " of " << Ops.size()
         << " implemented opcodes executed at least once; operands redrawn "
         << "in " << G.Redrawn << " of " << G.Redrawn + G.Kept
         << " instructions\n";
  return Never ? 1 : 0;
}
