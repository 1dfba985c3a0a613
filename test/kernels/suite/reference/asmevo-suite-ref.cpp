//===- asmevo-suite-ref.cpp - Expected outputs of the kernel suite --------===//
//
// Computes on the host what a suite kernel must write, from the same inputs
// the kernel gets, and compares a run's outputs against it:
//
//   asmevo-suite-ref SPEC.yaml [--variant=N] [--set NAME=VALUE]... [--seed=S]
//       [--inputs-dir=DIR | --input NAME=FILE...]   inputs (default: generated
//                                                    from the spec's init)
//       [--write-inputs=DIR]    write the inputs used (to pass to the
//                               emulator with --input NAME=FILE)
//       [--expected-dir=DIR]    write the expected outputs
//       [--check=DIR]           compare DIR/NAME.{npy,bin,raw} with them;
//                               exit code 1 on a mismatch
//       [--print-scalars]       NAME=VALUE lines of the resolved scalars
//       [--print-launch]        kernel, scalars, buffers, grid, block, args
//   asmevo-suite-ref --list     kernels and tolerances
//
//===----------------------------------------------------------------------===//
#include "ArrayFile.h"
#include "Compare.h"
#include "Generate.h"
#include "Reference.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo::suite;

static cl::OptionCategory Cat("asmevo-suite-ref options");
static cl::opt<std::string> SpecPath(cl::Positional, cl::desc("<spec.yaml>"),
                                     cl::cat(Cat));
static cl::opt<bool> List("list", cl::desc("List the kernels and tolerances"),
                          cl::cat(Cat));
static cl::opt<unsigned>
    Variant("variant",
            cl::desc("Problem size: 0 = the spec's scalars, N = variants[N-1]"),
            cl::init(0), cl::cat(Cat));
static cl::list<std::string> Sets("set", cl::desc("Override a scalar"),
                                  cl::value_desc("NAME=VALUE"), cl::cat(Cat));
static cl::opt<uint64_t> Seed("seed",
                              cl::desc("Seed for generated inputs (default: "
                                       "the spec's seed)"),
                              cl::cat(Cat));
static cl::opt<std::string> InputsDir(
    "inputs-dir",
    cl::desc("Read every in/inout buffer from DIR/NAME.{npy,bin,raw}"),
    cl::value_desc("DIR"), cl::cat(Cat));
static cl::list<std::string> Inputs("input",
                                    cl::desc("Read one buffer from a file"),
                                    cl::value_desc("NAME=FILE"), cl::cat(Cat));
static cl::opt<std::string>
    WriteInputs("write-inputs", cl::desc("Write the inputs used to DIR"),
                cl::value_desc("DIR"), cl::cat(Cat));
static cl::opt<std::string>
    ExpectedDir("expected-dir", cl::desc("Write the expected outputs to DIR"),
                cl::value_desc("DIR"), cl::cat(Cat));
static cl::opt<std::string>
    CheckDir("check", cl::desc("Compare the outputs in DIR with the expected"),
             cl::value_desc("DIR"), cl::cat(Cat));
static cl::opt<bool>
    Raw("raw", cl::desc("Write raw little-endian files (default .npy)"),
        cl::cat(Cat));
static cl::opt<bool>
    PrintScalars("print-scalars",
                 cl::desc("Print the resolved scalars as NAME=VALUE lines"),
                 cl::cat(Cat));

static cl::opt<bool> PrintLaunch(
    "print-launch",
    cl::desc("Print the resolved launch: kernel, scalars, buffers, grid, "
             "block and arguments with their sizes in bytes"),
    cl::cat(Cat));

static Error printLaunch(const SuiteSpec &Spec, const ScalarValues &Scalars) {
  raw_ostream &OS = outs();
  OS << "kernel " << Spec.Kernel << "\n";
  for (const ScalarSpec &S : Spec.Scalars) {
    const ScalarValue &V = Scalars.find(S.Name)->second;
    OS << "scalar " << S.Name << " " << elemTypeName(V.Type) << " ";
    if (isFloatType(V.Type))
      OS << format("%.9g", V.Float);
    else
      OS << V.Int;
    OS << "\n";
  }
  for (const BufferSpec &B : Spec.Buffers) {
    Expected<uint64_t> Count = bufferCount(Spec, B, Scalars);
    if (!Count)
      return Count.takeError();
    static const char *Roles[] = {"in", "out", "inout", "temp"};
    OS << "buffer " << B.Name << " " << elemTypeName(B.Type) << " "
       << Roles[(int)B.Role] << " " << *Count << "\n";
  }
  int64_t Groups = 1;
  for (auto [Key, Exprs] :
       {std::pair<StringRef, const std::vector<std::string> *>{"grid",
                                                               &Spec.Grid},
        {"block", &Spec.Block}}) {
    if (Exprs->empty() || Exprs->size() > 3)
      return createStringError(inconvertibleErrorCode(),
                               "'" + Spec.Path + "': '" + Key +
                                   "' needs 1 to 3 entries");
    OS << Key;
    for (size_t I = 0; I < 3; ++I) {
      int64_t V = 1;
      if (I < Exprs->size()) {
        Expected<int64_t> E = evalSpecExpr(Spec, (*Exprs)[I], Scalars);
        if (!E)
          return E.takeError();
        V = *E;
      }
      if (Key == "grid")
        Groups *= V;
      OS << " " << V;
    }
    OS << "\n";
  }
  OS << "groups " << Groups << "\n";
  OS << "variants " << Spec.Variants.size() << "\n";
  for (const std::string &A : Spec.Args) {
    if (Spec.buffer(A)) {
      OS << "arg " << A << " buffer 8\n";
      continue;
    }
    auto It = Scalars.find(A);
    if (It == Scalars.end())
      OS << "arg " << (A.empty() ? "?" : A) << " other 0\n";
    else
      OS << "arg " << A << " scalar " << elemSize(It->second.Type) << "\n";
  }
  return Error::success();
}

static void listKernels() {
  for (const KernelReference &R : kernelReferences()) {
    outs() << R.Name << ": ";
    if (R.Tol.exact())
      outs() << "exact";
    else
      outs() << "rel " << format("%g", R.Tol.Rel) << " abs "
             << format("%g", R.Tol.Abs);
    outs() << " (" << R.Why << ")\n";
  }
}

/// DIR/NAME.npy, .bin, .raw or DIR/NAME, whichever exists first.
static Expected<std::string> findBufferFile(StringRef Dir, StringRef Name) {
  for (StringRef Ext : {".npy", ".bin", ".raw", ""}) {
    SmallString<256> P(Dir);
    sys::path::append(P, Name + Ext);
    if (sys::fs::exists(P))
      return std::string(P);
  }
  return createStringError(inconvertibleErrorCode(),
                           "no file for buffer '" + Name + "' in '" + Dir +
                               "' (tried NAME.npy, .bin, .raw, NAME)");
}

static Error writeBuffer(StringRef Dir, StringRef Name, const HostBuffer &B) {
  if (std::error_code EC = sys::fs::create_directories(Dir))
    return createStringError(EC, "'" + Dir + "': " + EC.message());
  SmallString<256> P(Dir);
  sys::path::append(P, Name + (Raw ? ".bin" : ".npy"));
  return writeArrayFile(P, B, !Raw);
}

static Error run() {
  Expected<SuiteSpec> Spec = readSuiteSpec(SpecPath);
  if (!Spec)
    return Spec.takeError();
  Expected<ScalarValues> Scalars = resolveScalars(*Spec, Variant, Sets);
  if (!Scalars)
    return Scalars.takeError();
  if (PrintLaunch)
    if (Error E = printLaunch(*Spec, *Scalars))
      return E;
  const KernelReference *Ref = findKernelReference(Spec->Kernel);
  if (!Ref)
    return createStringError(inconvertibleErrorCode(),
                             "'" + SpecPath +
                                 "': no host reference for "
                                 "kernel '" +
                                 Spec->Kernel + "'");
  if (PrintScalars)
    for (const ScalarSpec &S : Spec->Scalars) {
      const ScalarValue &V = (*Scalars)[S.Name];
      outs() << S.Name << "=";
      if (isFloatType(V.Type))
        outs() << format("%.9g", V.Float);
      else
        outs() << V.Int;
      outs() << "\n";
    }

  StringMap<std::string> InputFiles;
  for (StringRef I : Inputs) {
    auto [Name, File] = I.split('=');
    if (File.empty())
      return createStringError(inconvertibleErrorCode(),
                               "--input '" + I + "' is not NAME=FILE");
    if (!Spec->buffer(Name))
      return createStringError(inconvertibleErrorCode(),
                               "--input: '" + SpecPath + "' has no buffer '" +
                                   Name + "'");
    InputFiles[Name] = File.str();
  }

  uint64_t TheSeed = Seed.getNumOccurrences() ? Seed : Spec->Seed;
  StringMap<HostBuffer> Buffers;
  for (const BufferSpec &B : Spec->Buffers) {
    if (B.Role != BufferRole::In && B.Role != BufferRole::InOut)
      continue;
    Expected<uint64_t> Count = bufferCount(*Spec, B, *Scalars);
    if (!Count)
      return Count.takeError();
    Expected<HostBuffer> Buf = [&]() -> Expected<HostBuffer> {
      auto It = InputFiles.find(B.Name);
      if (It != InputFiles.end())
        return readArrayFile(It->second, B.Type, *Count);
      if (!InputsDir.empty()) {
        Expected<std::string> P = findBufferFile(InputsDir, B.Name);
        if (!P)
          return P.takeError();
        return readArrayFile(*P, B.Type, *Count);
      }
      return generateBuffer(*Spec, B, *Count, TheSeed, *Scalars);
    }();
    if (!Buf)
      return Buf.takeError();
    if (!WriteInputs.empty())
      if (Error E = writeBuffer(WriteInputs, B.Name, *Buf))
        return E;
    Buffers[B.Name] = std::move(*Buf);
  }

  StringMap<ExpectedBuffer> Expect;
  RefContext Ctx(*Spec, *Scalars, Buffers, Expect);
  if (Error E = Ref->Compute(Ctx))
    return E;

  bool Failed = false;
  for (const BufferSpec &B : Spec->Buffers) {
    if (B.Role != BufferRole::Out && B.Role != BufferRole::InOut)
      continue;
    auto It = Expect.find(B.Name);
    if (It == Expect.end()) {
      if (!B.Compare)
        continue;
      return createStringError(inconvertibleErrorCode(),
                               "'" + SpecPath + "': the reference of '" +
                                   Spec->Kernel + "' does not compute '" +
                                   B.Name + "'");
    }
    const ExpectedBuffer &E = It->second;
    if (!ExpectedDir.empty()) {
      HostBuffer Out(B.Type, E.Values.size());
      for (size_t I = 0; I < E.Values.size(); ++I)
        Out.set(I, E.Values[I]);
      if (Error Err = writeBuffer(ExpectedDir, B.Name, Out))
        return Err;
    }
    if (CheckDir.empty() || !B.Compare)
      continue;
    Expected<std::string> P = findBufferFile(CheckDir, B.Name);
    if (!P)
      return P.takeError();
    Expected<HostBuffer> Got = readArrayFile(*P, B.Type, E.Values.size());
    if (!Got)
      return Got.takeError();
    CompareResult R = compareOutput(B.Name, *Got, E, Ref->Tol, outs());
    outs() << Spec->Kernel << ": " << B.Name << ": " << R.Count << " elements, "
           << R.Mismatches << " mismatches";
    if (!isFloatType(B.Type) || Ref->Tol.exact())
      outs() << " (bitwise)";
    else
      outs() << ", worst " << format("%.3f", R.WorstRatio)
             << " of the tolerance at [" << R.WorstIndex << "]";
    outs() << "\n";
    Failed |= R.Mismatches != 0;
  }
  if (Failed)
    return createStringError(inconvertibleErrorCode(),
                             "'" + SpecPath + "': outputs in '" + CheckDir +
                                 "' do not match the reference of '" +
                                 Spec->Kernel + "'");
  return Error::success();
}

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  cl::HideUnrelatedOptions(Cat);
  cl::ParseCommandLineOptions(argc, argv,
                              "expected outputs of the AsmEvo kernel suite\n");
  if (List) {
    listKernels();
    return 0;
  }
  if (SpecPath.empty()) {
    WithColor::error(errs(), "asmevo-suite-ref") << "no spec given\n";
    return 2;
  }
  if (Error E = run()) {
    outs().flush(); // the report lines come before the verdict
    WithColor::error(errs(), "asmevo-suite-ref")
        << toString(std::move(E)) << "\n";
    return 1;
  }
  return 0;
}
