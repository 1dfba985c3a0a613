//===- CheckCommand.cpp - asmevo-verify check -----------------------------===//
//
// asmevo-verify check K0 K1 --spec S.yaml [--address-map K1.map]
//                     [--seeds N] [--random-sizes N] [--accept=CLASS,...]
//                     [--receipt FILE]
// Exit status by verdict: 0 equivalent, 1 different, 2 violation,
// 3 unknown; 4 for inputs that cannot be compared.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/CodeObject/DescriptorFields.h"
#include "asmevo/Emulator/LaunchSpec.h"
#include "asmevo/Verify/HsaBackend.h"
#include "asmevo/Verify/LoadCodeObject.h"
#include "asmevo/Verify/Verifier.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;
using namespace asmevo::verify;

namespace asmevo {
namespace verify_tool {

cl::SubCommand CheckCmd("check",
                        "Check a candidate K1 against the original K0");

static cl::opt<std::string> K0Path(cl::Positional, cl::desc("<K0>"),
                                   cl::Required, cl::sub(CheckCmd));
static cl::opt<std::string> K1Path(cl::Positional, cl::desc("<K1>"),
                                   cl::Required, cl::sub(CheckCmd));
static cl::opt<std::string> SpecPath("spec", cl::desc("Launch spec (YAML)"),
                                     cl::value_desc("file"), cl::Required,
                                     cl::sub(CheckCmd));
static cl::opt<unsigned> Seeds("seeds", cl::desc("Input seeds per size"),
                               cl::init(3), cl::sub(CheckCmd));
static cl::opt<std::string> Receipt("receipt",
                                    cl::desc("Write a JSON receipt here"),
                                    cl::value_desc("file"), cl::sub(CheckCmd));
static cl::opt<unsigned>
    RandomSizes("random-sizes",
                cl::desc("Extra runs with sizes drawn from the spec's ranges"),
                cl::init(8), cl::sub(CheckCmd));
static cl::opt<std::string>
    AddressMapPath("address-map",
                   cl::desc("K1's address map from asmevo-opt --address-map "
                            "(pairs K1's instructions with K0's exactly)"),
                   cl::value_desc("file"), cl::sub(CheckCmd));
static cl::list<std::string>
    Accept("accept", cl::CommaSeparated,
           cl::desc("Accept edits runs cannot judge: cache-policy, "
                    "memory-scope, synchronization, descriptor:FIELD, "
                    "metadata:.KEY"),
           cl::sub(CheckCmd));
static cl::opt<bool> NoDeterminism(
    "no-determinism-check",
    cl::desc("Do not run K0 twice to find nondeterministic buffers"),
    cl::sub(CheckCmd));
static cl::opt<bool>
    NoCoverage("no-coverage-check",
               cl::desc("Do not require every edited instruction to run"),
               cl::sub(CheckCmd));
static cl::opt<std::string> MaxDeviceMemory(
    "max-device-memory", cl::desc(ASMEVO_MAX_DEVICE_MEMORY_DESC),
    cl::value_desc("size"), cl::init("16GiB"), cl::sub(CheckCmd));
enum class CheckBackend { Emu, Hsa };
static cl::opt<CheckBackend> BackendOpt(
    "backend", cl::desc("Where K0 and K1 run"), cl::init(CheckBackend::Emu),
    cl::values(clEnumValN(CheckBackend::Emu, "emu", "the built-in emulator"),
               clEnumValN(CheckBackend::Hsa, "hsa",
                          "an AMD GPU through the HSA runtime (dlopen)")),
    cl::sub(CheckCmd));
static cl::opt<std::string>
    HsaRuntimeLib("hsa-runtime",
                  cl::desc("HSA runtime library to dlopen (default: "
                           "$ASMEVO_HSA_RUNTIME or libhsa-runtime64.so.1)"),
                  cl::value_desc("library"), cl::sub(CheckCmd));
static cl::opt<uint64_t>
    Budget("budget", cl::desc("Instruction budget per launch (all waves)"),
           cl::init(1ull << 34), cl::sub(CheckCmd));

static constexpr int InputErrorExit = 4;

static int inputError(const Twine &Msg) {
  WithColor::error(errs(), "asmevo-verify") << Msg << "\n";
  return InputErrorExit;
}

static Expected<std::string> fileSHA256(StringRef Path) {
  auto MB = MemoryBuffer::getFile(Path, /*IsText=*/false);
  if (!MB)
    return createStringError(MB.getError(), "cannot read '%s'",
                             Path.str().c_str());
  std::array<uint8_t, 32> H = SHA256::hash(
      arrayRefFromStringRef((*MB)->getBuffer()));
  return toHex(H, /*LowerCase=*/true);
}

int checkCommand() {
  auto K0 = loadRunnableCodeObject(K0Path);
  if (!K0)
    return inputError(toString(K0.takeError()));
  auto K1 = loadRunnableCodeObject(K1Path);
  if (!K1)
    return inputError(toString(K1.takeError()));
  auto Spec = emu::LaunchSpec::load(SpecPath);
  if (!Spec)
    return inputError(toString(Spec.takeError()));
  VerifyOptions O;
  O.Seeds = Seeds;
  O.RandomSizes = RandomSizes;
  O.InstructionBudget = Budget;
  auto MaxMem = parseMemorySize(MaxDeviceMemory);
  if (!MaxMem)
    return inputError(toString(MaxMem.takeError()));
  O.MaxDeviceMemory = *MaxMem;
  O.CheckDeterminism = !NoDeterminism;
  O.CheckCoverage = !NoCoverage;
  for (const std::string &A : Accept) {
    StringRef Field = A;
    if (Field.consume_front("descriptor:")) {
      if (!findDescriptorField(Field))
        return inputError("--accept: '" + A + "': no descriptor field '" +
                          Field + "' (docs/verify-receipt.md lists them)");
      O.AcceptedFields.insert(A);
      continue;
    }
    if (Field.consume_front("metadata:")) {
      if (Field.empty())
        return inputError("--accept: '" + A + "' names no metadata key");
      O.AcceptedFields.insert(A);
      continue;
    }
    auto C = parseEditClass(A);
    if (!C || *C == EditClass::Code)
      return inputError("--accept: unknown edit class '" + A +
                        "' (cache-policy, memory-scope, synchronization, "
                        "descriptor:FIELD, metadata:.KEY)");
    O.Accepted.insert(*C);
  }
  std::unique_ptr<HsaDevice> Device;
  if (BackendOpt == CheckBackend::Hsa) {
    auto D = HsaDevice::open((*K0)->target().targetID(), HsaRuntimeLib);
    if (!D)
      return inputError(toString(D.takeError()));
    Device = std::move(*D);
    O.Device = Device.get();
  }
  std::optional<AddressMap> Map;
  if (!AddressMapPath.empty()) {
    auto M = AddressMap::load(AddressMapPath);
    if (!M)
      return inputError(toString(M.takeError()));
    Map = std::move(*M);
    O.Map = &*Map;
  }
  auto Rep = verify::verify(**K0, **K1, *Spec, O);
  if (!Rep)
    return inputError(toString(Rep.takeError()));

  errs() << verdictName(Rep->V) << ": " << K1Path << " vs " << K0Path << ", "
         << Rep->Runs.size() << " runs, " << Rep->Edits.Edits.size()
         << " edited instructions";
  if (!Rep->Reason.empty())
    errs() << ": " << Rep->Reason;
  errs() << "\n";
  // Every descriptor or metadata difference, judged or not: a reviewer
  // must see a K1 that changed how the same code is run.
  for (const ObjectDifference &D : Rep->ObjectDiffs)
    errs() << "  " << D.describe() << "\n";

  if (!Receipt.empty()) {
    json::Value V = Rep->toJSON();
    json::Object &Obj = *V.getAsObject();
    for (auto [Key, Path] : {std::pair("k0", &K0Path), std::pair("k1", &K1Path),
                             std::pair("spec", &SpecPath),
                             std::pair("address_map", &AddressMapPath)}) {
      if (Path->empty())
        continue;
      auto H = fileSHA256(*Path);
      if (!H)
        return inputError(toString(H.takeError()));
      Obj[std::string(Key) + "_sha256"] = *H;
      Obj[std::string(Key) + "_path"] = std::string(*Path);
    }
    std::error_code EC;
    raw_fd_ostream OS(Receipt, EC, sys::fs::OF_Text);
    if (EC)
      return inputError("cannot write '" + Receipt + "': " + EC.message());
    OS << formatv("{0:2}", V) << "\n";
  }
  return verdictExitCode(Rep->V);
}

} // namespace verify_tool
} // namespace asmevo
