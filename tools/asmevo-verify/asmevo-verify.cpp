//===- asmevo-verify.cpp - The runtime verification tool ------------------===//
//
// asmevo-verify run K.co --spec launch.yaml [--input NAME=FILE ...]
//                       [--output-dir DIR]
//   runs the launches of a spec in the built-in emulator and writes every
//   output buffer.
// asmevo-verify coverage [OBJECTS...]
//   prints how many of the instructions in the given code objects (default:
//   the corpus mnemonic list) the emulator implements.
// asmevo-verify check K0 K1 --spec launch.yaml [--seeds N] [--receipt FILE]
//   runs K0 and K1 on identical inputs and compares every output buffer.
// asmevo-verify hsa-info
//   shows the HSA runtime and GPU agents the hsa backend would use.
// asmevo-verify spec-from-metadata K.co [--kernel NAME] [-o spec.yaml]
//   proposes a launch spec from a kernel's metadata, guesses marked.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo::verify_tool;

int main(int argc, char **argv) {
  InitLLVM X(argc, argv);
  // A mistyped option must not look like a verdict: check's exit statuses
  // 1-3 are verdicts, so command-line errors exit 4 like other input errors.
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "AsmEvo runtime verification tool\n",
                                   &errs()))
    return 4;
  if (RunCmd)
    return runCommand();
  if (CoverageCmd)
    return coverageCommand();
  if (CheckCmd)
    return checkCommand();
  if (HsaInfoCmd)
    return hsaInfoCommand();
  if (SpecFromMetadataCmd)
    return specFromMetadataCommand();
  if (TimeCmd)
    return timeCommand();
  WithColor::error(errs(), "asmevo-verify")
      << "no subcommand given (try 'asmevo-verify run --help')\n";
  return 4;
}
