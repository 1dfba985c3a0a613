//===- asmevo-link.cpp - Link code objects; the post-link step ------------===//
//
// asmevo-link A.mir B.o ... -o K.co      link lifted functions into a code
//                                        object (.mir rebuilt, .s assembled)
// asmevo-link --optimize IN -o OUT --specs DIR|MANIFEST [-O2] [--trust-static]
//                                        the post-link step over a HIP
//                                        binary (lib/Rewrite/PostLink.h)
// asmevo-link --list IN [--specs ...]    every code object, target, kernel
//
//===----------------------------------------------------------------------===//
#include "asmevo/Emit/AsmText.h"
#include "asmevo/Emit/Rebuild.h"
#include "asmevo/Lift/LiftedModule.h"
#include "asmevo/Rewrite/Input.h"
#include "asmevo/Rewrite/PostLink.h"
#include "asmevo/Rewrite/Report.h"
#include "asmevo/Transforms/Pass.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"

using namespace llvm;
using namespace asmevo;

static cl::OptionCategory Cat("asmevo-link options");
static cl::list<std::string> Inputs(cl::Positional, cl::OneOrMore,
                                    cl::desc("<inputs>"), cl::cat(Cat));
static cl::opt<std::string> OutputPath("o", cl::desc("Output file"),
                                       cl::cat(Cat));
static cl::opt<bool> Optimize(
    "optimize",
    cl::desc("The post-link step: optimize the kernels a spec covers in a "
             "HIP executable, shared library, bundle or code object"),
    cl::cat(Cat));
static cl::opt<bool> List("list",
                          cl::desc("List every code object, target and "
                                   "kernel, and what covers each"),
                          cl::cat(Cat));
static cl::opt<std::string>
    SpecsPath("specs",
              cl::desc("A directory of launch specs or a spec manifest "
                       "(docs/spec-manifest.md)"),
              cl::value_desc("dir|manifest"), cl::cat(Cat));
static cl::opt<bool> O1("O1", cl::desc("Wait counts and s_nops only"),
                        cl::cat(Cat));
static cl::opt<bool> O2("O2", cl::desc("Every rule-based pass (default)"),
                        cl::cat(Cat));
static cl::opt<std::string> PassesOpt("passes",
                                      cl::desc("Comma-separated pipeline"),
                                      cl::cat(Cat));
static cl::opt<bool> TrustStatic(
    "trust-static",
    cl::desc("Kernels without a launch spec (all of them without --specs) "
             "go through the static gate: nothing is executed or timed"),
    cl::cat(Cat));
static cl::opt<bool> AllowCompress(
    "allow-compress",
    cl::desc("Write an uncompressed bundle that no longer fits compressed "
             "(CCOB version 3) instead of failing"),
    cl::cat(Cat));
static cl::opt<unsigned> Jobs("jobs", cl::desc("Worker processes"),
                              cl::init(1), cl::cat(Cat));
static cl::opt<std::string> ReportPath("report",
                                       cl::desc("Write the report as JSON"),
                                       cl::value_desc("file"), cl::cat(Cat));
static cl::opt<bool> Quiet("quiet", cl::desc("Do not print the report"),
                           cl::cat(Cat));

static int fail(const Twine &Msg) {
  WithColor::error(errs(), "asmevo-link") << Msg << "\n";
  return 1;
}

namespace {
/// Option values taken before lld can reset them (it re-parses its own
/// -mllvm options when it links in-process).
struct DriverOptions {
  std::vector<std::string> Inputs;
  std::string Out, Specs, Report, Pipeline;
  bool Optimize, List, TrustStatic, AllowCompress, Quiet;
  unsigned Jobs;
};
} // namespace

static int link(const DriverOptions &D) {
  if (D.Out.empty())
    return fail("-o is required");
  std::vector<std::string> Objs;
  std::vector<SmallString<128>> Temps;
  for (const std::string &In : D.Inputs) {
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
  StringRef Bytes(reinterpret_cast<const char *>(Linked->data()),
                  Linked->size());
  if (Error E = writeOutputFile(D.Out, Bytes))
    return fail(toString(std::move(E)));
  return 0;
}

static int postLink(const DriverOptions &D) {
  if (D.Inputs.size() != 1)
    return fail("--optimize and --list take one input");
  const std::string &InPath = D.Inputs.front();
  std::optional<SpecManifest> Specs;
  if (!D.Specs.empty()) {
    auto M = SpecManifest::load(D.Specs);
    if (!M)
      return fail(toString(M.takeError()));
    Specs = std::move(*M);
  }
  // --list and --optimize read the code objects; the optimizer lifts its
  // own copy of each.
  LiftOptions LO;
  LO.Functions = false;
  auto In = loadRewriteInput(InPath, LO);
  if (!In)
    return fail(toString(In.takeError()));
  if (D.List) {
    auto L = listBinary(*In, Specs ? &*Specs : nullptr);
    if (!L)
      return fail(toString(L.takeError()));
    printListing(outs(), *L, D.TrustStatic && !Specs);
    return 0;
  }
  if (D.Out.empty())
    return fail("--optimize needs -o OUT (the input is never modified)");
  if (Error E = checkOutputWritable(D.Out))
    return fail(toString(std::move(E)));
  PostLinkOptions O;
  auto Passes = expandPipeline(D.Pipeline);
  if (!Passes)
    return fail(toString(Passes.takeError()));
  O.Passes = *Passes;
  O.Specs = std::move(Specs);
  O.TrustStatic = D.TrustStatic;
  O.AllowCompress = D.AllowCompress;
  O.Jobs = D.Jobs;
  auto R = optimizeBinary(*In, O);
  if (!R)
    return fail(toString(R.takeError()));
  R->Report.Output = D.Out;
  for (const std::string &W : R->Warnings)
    WithColor::warning(errs(), "asmevo-link") << W << "\n";
  if (!D.Quiet)
    printRunReport(errs(), R->Report);
  if (!D.Report.empty()) {
    std::string J;
    raw_string_ostream JOS(J);
    JOS << formatv("{0:2}", runReportJSON(R->Report)) << "\n";
    if (Error E = writeOutputFile(D.Report, J))
      return fail(toString(std::move(E)));
  }
  StringRef Bytes(reinterpret_cast<const char *>(R->Output.data()),
                  R->Output.size());
  if (Error E = writeOutputFile(D.Out, Bytes,
                                In->Kind == InputKind::HostBinary
                                    ? StringRef(InPath)
                                    : StringRef()))
    return fail(toString(std::move(E)));
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(Cat);
  cl::ParseCommandLineOptions(argc, argv, "AsmEvo linker and post-link step\n");
  DriverOptions D;
  D.Inputs.assign(Inputs.begin(), Inputs.end());
  D.Out = OutputPath;
  D.Specs = SpecsPath;
  D.Report = ReportPath;
  D.Optimize = Optimize;
  D.List = List;
  D.TrustStatic = TrustStatic;
  D.AllowCompress = AllowCompress;
  D.Quiet = Quiet;
  D.Jobs = Jobs;
  if (O1 && O2)
    return fail("-O1 and -O2 are exclusive");
  D.Pipeline = O1 ? "O1" : "O2";
  if (!PassesOpt.empty())
    D.Pipeline = PassesOpt;
  if (D.Optimize && D.List)
    return fail("--optimize and --list are exclusive");
  if (D.Optimize || D.List)
    return postLink(D);
  return link(D);
}
