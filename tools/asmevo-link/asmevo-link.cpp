//===- asmevo-link.cpp - Link lifted functions into a code object ---------===//
//
// asmevo-link A.mir B.o ... -o K.co
// .mir inputs are rebuilt and .s inputs assembled to relocatable objects
// first; .o inputs go to lld as they are.
//
//===----------------------------------------------------------------------===//
#include "asmevo/Emit/AsmText.h"
#include "asmevo/Emit/Rebuild.h"
#include "asmevo/Lift/LiftedModule.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace asmevo;

static cl::OptionCategory Cat("asmevo-link options");
static cl::list<std::string> Inputs(cl::Positional, cl::OneOrMore,
                                    cl::desc("<.mir|.s|.o inputs>"), cl::cat(Cat));
static cl::opt<std::string> OutputPath("o", cl::Required,
                                       cl::desc("Output code object"),
                                       cl::cat(Cat));

static int fail(const Twine &Msg) {
  WithColor::error(errs(), "asmevo-link") << Msg << "\n";
  return 1;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(Cat);
  cl::ParseCommandLineOptions(argc, argv, "AsmEvo linker\n");
  // lld resets every cl::opt when it links in-process: take the value now.
  const std::string OutPath = OutputPath;
  std::vector<std::string> Objs;
  std::vector<SmallString<128>> Temps;
  for (const std::string &In : Inputs) {
    bool IsMIR = StringRef(In).ends_with(".mir");
    bool IsAsm = StringRef(In).ends_with(".s");
    if (!IsMIR && !IsAsm) {
      Objs.push_back(In);
      continue;
    }
    auto Buf = MemoryBuffer::getFile(In);
    if (!Buf)
      return fail(In + ": " + Buf.getError().message());
    RebuildResult R;
    if (IsAsm) {
      auto Obj = assemble((*Buf)->getBuffer(), In);
      if (!Obj)
        return fail(toString(Obj.takeError()));
      R.Relocatable = std::move(*Obj);
    } else {
      auto LM = LiftedModule::parseMIR((*Buf)->getBuffer(), In);
      if (!LM)
        return fail(toString(LM.takeError()));
      if (Error E = emitRelocatable(**LM, R))
        return fail(toString(std::move(E)));
    }
    SmallString<128> Tmp;
    int FD;
    if (sys::fs::createTemporaryFile("asmevo-link", "o", FD, Tmp))
      return fail("cannot create a temporary file");
    raw_fd_ostream OS(FD, true);
    OS.write(reinterpret_cast<const char *>(R.Relocatable.data()),
             R.Relocatable.size());
    OS.close();
    Temps.push_back(Tmp);
    Objs.push_back(Tmp.str().str());
  }
  auto Linked = linkObjects(Objs, {});
  for (auto &T : Temps)
    sys::fs::remove(T);
  if (!Linked)
    return fail(toString(Linked.takeError()));
  std::error_code EC;
  ToolOutputFile Out(OutPath, EC, sys::fs::OF_None);
  if (EC)
    return fail(OutPath + ": " + EC.message());
  Out.os().write(reinterpret_cast<const char *>(Linked->data()),
                 Linked->size());
  Out.keep();
  return 0;
}
