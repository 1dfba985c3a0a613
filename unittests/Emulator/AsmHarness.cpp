//===- AsmHarness.cpp -----------------------------------------------------===//
#include "AsmHarness.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include <cstring>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::emu::test;

// The programs CMake found (cmake/AsmEvoTools.cmake); never whatever PATH
// holds.
static std::string tool(StringRef Name) {
  if (Name == "llvm-mc")
    return ASMEVO_TOOL_LLVM_MC;
  if (Name == "ld.lld")
    return ASMEVO_TOOL_LD_LLD;
  return Name.str();
}

std::string test::assemble(StringRef Source, StringRef Arch,
                           std::string &Err) {
  SmallString<128> Dir;
  if (sys::fs::createUniqueDirectory("asmevo-emu-test", Dir)) {
    Err = "cannot create a temporary directory";
    return "";
  }
  std::string S = (Dir + "/k.s").str(), O = (Dir + "/k.o").str(),
              CO = (Dir + "/k.co").str(), Log = (Dir + "/log").str();
  {
    std::error_code EC;
    raw_fd_ostream OS(S, EC);
    OS << Source;
  }
  std::string Mc = tool("llvm-mc"), Ld = tool("ld.lld");
  std::string Cpu = ("-mcpu=" + Arch).str();
  StringRef McArgs[] = {Mc, "-triple", "amdgcn-amd-amdhsa", Cpu,
                        "-filetype=obj", S, "-o", O};
  std::optional<StringRef> Redir[] = {std::nullopt, StringRef(Log),
                                      StringRef(Log)};
  if (sys::ExecuteAndWait(Mc, McArgs, std::nullopt, Redir) != 0) {
    auto MB = MemoryBuffer::getFile(Log);
    Err = "llvm-mc failed: " + (MB ? (*MB)->getBuffer().str() : "");
    return "";
  }
  StringRef LdArgs[] = {Ld, "-shared", O, "-o", CO};
  if (sys::ExecuteAndWait(Ld, LdArgs, std::nullopt, Redir) != 0) {
    auto MB = MemoryBuffer::getFile(Log);
    Err = "ld.lld failed: " + (MB ? (*MB)->getBuffer().str() : "");
    return "";
  }
  return CO;
}

SnippetResult test::runSnippet(StringRef Body,
                               const std::vector<std::string> &Regs,
                               const SnippetOptions &Opt) {
  SnippetResult Res;
  std::string Src;
  raw_string_ostream OS(Src);
  OS << ".amdgcn_target \"amdgcn-amd-amdhsa--" << Opt.Arch << "\"\n"
     << ".amdhsa_code_object_version 5\n.text\n.globl k\n.p2align 8\n"
     << ".type k,@function\nk:\n"
     << "  s_load_dwordx4 s[20:23], s[0:1], 0x0\n"
     << "  s_waitcnt lgkmcnt(0)\n"
     << "  v_lshlrev_b32 v63, 2, v0\n"
     << Body << "\n";
  // Result stores: one row of BlockSize dwords per register.
  unsigned RowBytes = Opt.BlockSize * 4;
  for (size_t K = 0; K < Regs.size(); ++K) {
    StringRef R = Regs[K];
    std::string V = R.starts_with("v") && !R.starts_with("vcc") ? R.str()
                                                                : "v62";
    // Wait states around the result copy keep the harness hazard-free.
    OS << "  s_nop 4\n";
    if (V == "v62")
      OS << "  v_mov_b32 v62, " << R << "\n  s_nop 4\n";
    OS << "  global_store_dword v63, " << V << ", s[20:21]\n";
    OS << "  s_add_u32 s20, s20, " << RowBytes << "\n  s_addc_u32 s21, s21, 0\n";
  }
  OS << "  s_endpgm\n.rodata\n.p2align 6\n.amdhsa_kernel k\n"
     << "  .amdhsa_user_sgpr_kernarg_segment_ptr 1\n"
     << "  .amdhsa_next_free_vgpr 128\n  .amdhsa_next_free_sgpr 96\n"
     << "  .amdhsa_accum_offset 64\n"
     << "  .amdhsa_group_segment_fixed_size 65536\n"
     << "  .amdhsa_private_segment_fixed_size 256\n"
     << (Opt.Arch == "gfx90a"
             ? "  .amdhsa_system_sgpr_private_segment_wavefront_offset 1\n"
             : "  .amdhsa_enable_private_segment 1\n")
     << "  .amdhsa_float_denorm_mode_32 3\n"
     << "  .amdhsa_float_denorm_mode_16_64 3\n"
     << "  .amdhsa_system_sgpr_workgroup_id_x 1\n"
     << Opt.Directives << ".end_amdhsa_kernel\n";
  OS.flush();
  std::string Err;
  std::string Path = assemble(Src, Opt.Arch, Err);
  if (Path.empty()) {
    Res.Error = Err;
    return Res;
  }
  auto MB = MemoryBuffer::getFile(Path, false);
  if (!MB) {
    Res.Error = "cannot read the code object";
    return Res;
  }
  auto CO = CodeObject::create(std::move(*MB), Path);
  if (!CO) {
    Res.Error = toString(CO.takeError());
    return Res;
  }
  auto Emu = Emulator::create(**CO);
  if (!Emu) {
    Res.Error = toString(Emu.takeError());
    return Res;
  }
  DeviceMemory Mem;
  if (auto Base = (*Emu)->load(Mem); !Base) {
    Res.Error = toString(Base.takeError());
    return Res;
  }
  RowBytes = Opt.BlockSize * 4;
  size_t OutBytes = std::max<size_t>(Regs.size(), 1) * RowBytes;
  uint64_t Out = Mem.allocate("out", OutBytes);
  uint64_t In = Mem.allocate("in", 65536);
  for (uint32_t I = 0; I < 65536 / 4; ++I) {
    uint32_t V = I < Opt.Input.size() ? Opt.Input[I] : 0x1000 + I;
    std::memcpy(Mem.find(In)->data() + 4 * I, &V, 4);
  }
  uint64_t KA = Mem.allocate("kernarg", 64, 256, 256, true);
  std::memcpy(Mem.find(KA)->data(), &Out, 8);
  std::memcpy(Mem.find(KA)->data() + 8, &In, 8);
  LaunchParams P;
  P.Kernel = "k";
  P.Block = {Opt.BlockSize, 1, 1};
  P.KernargAddr = KA;
  P.KernargSize = 64;
  auto R = (*Emu)->launch(Mem, P, Opt.Run);
  if (!R) {
    Res.Error = toString(R.takeError());
    return Res;
  }
  Res.Run = std::move(*R);
  const uint8_t *D = Mem.find(Out)->data();
  for (size_t K = 0; K < Regs.size(); ++K) {
    std::vector<uint32_t> Lanes(64);
    std::memcpy(Lanes.data(), D + K * RowBytes, 256);
    Res.Regs.push_back(std::move(Lanes));
  }
  sys::fs::remove_directories(sys::path::parent_path(Path));
  return Res;
}
