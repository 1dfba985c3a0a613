//===- Linker.cpp - In-process lld and the address map --------------------===//
#include "asmevo/Emit/Rebuild.h"
#include "PinnedReferences.h"
#include "asmevo/Emit/RelocatableCheck.h"
#include "asmevo/Support/Recover.h"
#include "lld/Common/Driver.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <mutex>

LLD_HAS_DRIVER(elf)

using namespace llvm;
using namespace asmevo;

namespace {
/// A temporary file removed on destruction.
struct TempFile {
  SmallString<128> Path;
  ~TempFile() {
    if (!Path.empty())
      sys::fs::remove(Path);
  }
};
} // namespace

static Error writeTemp(TempFile &F, StringRef Prefix, StringRef Suffix,
                       ArrayRef<uint8_t> Bytes) {
  int FD;
  if (std::error_code EC =
          sys::fs::createTemporaryFile(Prefix, Suffix, FD, F.Path))
    return createStringError(EC, "cannot create temporary file");
  raw_fd_ostream OS(FD, /*shouldClose=*/true);
  OS.write(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  OS.close();
  if (OS.has_error())
    return createStringError(OS.error(), "cannot write " + F.Path);
  return Error::success();
}

static std::mutex LLDMutex; // lld keeps global state per link.
/// Set once lld has aborted: its global state is then undefined.
static bool LLDUnusable = false;

Expected<std::vector<uint8_t>>
asmevo::linkObjects(ArrayRef<std::string> Inputs, ArrayRef<std::string> Extra) {
  TempFile Out;
  if (std::error_code EC =
          sys::fs::createTemporaryFile("asmevo-link", "co", Out.Path))
    return createStringError(EC, "cannot create temporary file");
  // --threads=1: lld's thread pool would not survive a fork() (the
  // optimizer's --jobs workers link too), and code objects are small.
  std::vector<std::string> Args = {"ld.lld",       "-flavor",        "gnu",
                                   "-m",           "elf64_amdgpu",   "--no-undefined",
                                   "-shared",      "--threads=1"};
  for (const std::string &E : Extra)
    Args.push_back(E);
  Args.push_back("-o");
  Args.push_back(Out.Path.str().str());
  for (const std::string &I : Inputs)
    Args.push_back(I);
  // lld trusts its inputs' structure: check each one first.
  for (const std::string &I : Inputs) {
    auto In = MemoryBuffer::getFile(I, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!In)
      return createStringError(In.getError(), "cannot read '%s'", I.c_str());
    if (Error E = checkRelocatable(
            ArrayRef<uint8_t>(
                reinterpret_cast<const uint8_t *>((*In)->getBufferStart()),
                (*In)->getBufferSize()),
            I))
      return std::move(E);
  }
  std::vector<const char *> CArgs;
  for (const std::string &A : Args)
    CArgs.push_back(A.c_str());
  std::string Diag;
  raw_string_ostream ErrOS(Diag);
  lld::Result Res;
  {
    std::lock_guard<std::mutex> Lock(LLDMutex);
    if (LLDUnusable)
      return createStringError("lld aborted on an earlier input in this "
                               "process and cannot link again");
    // What the check above cannot see may still make lld abort: its driver
    // runs in a crash-recovery context, which catches signals only once
    // recovery is enabled, and our handler turns report_fatal_error into a
    // return from that context.
    if (Error E = runRecoverable("lld", [&] {
          Res = lld::lldMain(CArgs, nulls(), ErrOS,
                             {{lld::Gnu, &lld::elf::link}});
        })) {
      LLDUnusable = true;
      return std::move(E);
    }
    if (!Res.canRunAgain) {
      LLDUnusable = true;
      std::string Why = lastRecoveredFatalError();
      if (Why.empty())
        Why = Res.retCode > 128
                  ? "crashed (signal " + std::to_string(Res.retCode - 128) + ")"
                  : "aborted";
      std::string Names;
      for (const std::string &I : Inputs)
        Names += (Names.empty() ? "" : ", ") + I;
      return createStringError("lld on " + Names + ": " + Why);
    }
  }
  if (Res.retCode != 0)
    return createStringError("lld failed:\n" + Diag);
  auto BufOrErr = MemoryBuffer::getFile(Out.Path, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
  if (!BufOrErr)
    return createStringError(BufOrErr.getError(), "cannot read lld output");
  const auto *B =
      reinterpret_cast<const uint8_t *>((*BufOrErr)->getBufferStart());
  return std::vector<uint8_t>(B, B + (*BufOrErr)->getBufferSize());
}

Expected<std::vector<uint8_t>>
asmevo::linkRelocatable(ArrayRef<uint8_t> Obj, ArrayRef<std::string> Extra) {
  TempFile F;
  if (Error E = writeTemp(F, "asmevo", "o", Obj))
    return std::move(E);
  return linkObjects({F.Path.str().str()}, Extra);
}

std::vector<std::string> asmevo::lldArgsFor(const CodeObject &CO) {
  std::vector<std::string> Args;
  for (const ELFNote &N : CO.notes())
    if (N.Name == "GNU" && N.Type == ELF::NT_GNU_BUILD_ID)
      Args.push_back("--build-id=0x" + toHex(N.Desc, /*LowerCase=*/true));
  return Args;
}

Error asmevo::linkCodeObject(const LiftedModule &LM, const RebuildOptions &Opts,
                             RebuildResult &R) {
  const CodeObject &CO = LM.original();
  TempFile Obj;
  if (Error E = writeTemp(Obj, "asmevo", "o", R.Relocatable))
    return E;
  std::vector<std::string> Base = lldArgsFor(CO);
  auto LinkedOrErr = linkObjects({Obj.Path.str().str()}, Base);
  if (!LinkedOrErr)
    return createStringError(CO.name() + ": " +
                             toString(LinkedOrErr.takeError()));
  if (Opts.PinSectionAddresses) {
    // Another linker may have laid the input out differently. When no
    // section changed size, pin the original addresses so that symbol
    // values and PC-relative distances stay the same; when code grew, the
    // default layout is the right one.
    auto OutOrErr = CodeObject::create(ArrayRef<uint8_t>(*LinkedOrErr), "<rebuilt>");
    if (!OutOrErr)
      return OutOrErr.takeError();
    bool SameSizes = true, SameAddrs = true;
    for (const ELFSection &S : CO.sections()) {
      if (!S.isAlloc())
        continue;
      const ELFSection *N = (*OutOrErr)->findSection(S.Name);
      if (!N)
        continue;
      SameSizes &= N->Size == S.Size;
      SameAddrs &= N->Addr == S.Addr;
    }
    if (SameSizes && !SameAddrs) {
      std::vector<std::string> Extra = Base;
      for (const ELFSection &S : CO.sections())
        if (S.isAlloc() && S.Addr && S.Name != ".relro_padding")
          Extra.push_back("--section-start=" + S.Name + "=0x" +
                          utohexstr(S.Addr));
      LinkedOrErr = linkObjects({Obj.Path.str().str()}, Extra);
      if (!LinkedOrErr)
        return createStringError(CO.name() + ": " +
                                 toString(LinkedOrErr.takeError()));
    }
  }
  R.Linked = std::move(*LinkedOrErr);
  // Turn section offsets in the map into final addresses.
  auto OutOrErr = CodeObject::create(ArrayRef<uint8_t>(R.Linked), "<rebuilt>");
  if (!OutOrErr)
    return OutOrErr.takeError();
  uint64_t TextAddr = 0;
  for (const ELFSection &S : (*OutOrErr)->sections())
    if (S.isExec()) {
      TextAddr = S.Addr;
      break;
    }
  for (AddressMapEntry &E : R.AddressMap)
    E.NewAddr += TextAddr;
  return Error::success();
}

Expected<RebuildResult> asmevo::rebuild(const LiftedModule &LM,
                                        const RebuildOptions &Opts) {
  RebuildResult R;
  if (Error E = emitRelocatable(LM, R))
    return std::move(E);
  if (Error E = linkCodeObject(LM, Opts, R))
    return std::move(E);
  if (Error E = checkPinnedReferences(LM, R))
    return createStringError(LM.original().name() + ": " +
                             toString(std::move(E)));
  return std::move(R);
}

bool asmevo::linkedBySameLLD(const CodeObject &Orig, const CodeObject &Rebuilt) {
  // lld adds "Linker: <version>" to .comment (Debian ships no Version.inc to
  // ask): the linkers agree when the rebuild names no linker the input
  // does not.
  auto Linkers = [](const CodeObject &CO) {
    std::vector<std::string> L;
    for (const std::string &P : CO.producers())
      if (StringRef(P).starts_with("Linker: "))
        L.push_back(P);
    return L;
  };
  std::vector<std::string> O = Linkers(Orig), N = Linkers(Rebuilt);
  if (O.empty())
    return false;
  for (const std::string &L : N)
    if (!is_contained(O, L))
      return false;
  return true;
}

void asmevo::writeAddressMap(raw_ostream &OS, const RebuildResult &R) {
  OS << "# new_address original_address function\n";
  for (const AddressMapEntry &E : R.AddressMap) {
    OS << format_hex(E.NewAddr, 10) << " ";
    if (E.OrigAddr)
      OS << format_hex(*E.OrigAddr, 10);
    else
      OS << "new       ";
    OS << " " << E.Function << "\n";
  }
}
