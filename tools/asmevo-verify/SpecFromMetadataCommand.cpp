//===- SpecFromMetadataCommand.cpp - asmevo-verify spec-from-metadata -----===//
//
// Writes a launch spec proposed from a kernel's metadata (lib/Verify/
// SpecProposal.cpp). Every guessed value is listed at the top of the spec,
// commented where it is used, and printed on stderr, one line each.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "asmevo/Verify/LoadCodeObject.h"
#include "asmevo/Verify/SpecProposal.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

namespace asmevo {
namespace verify_tool {

cl::SubCommand SpecFromMetadataCmd(
    "spec-from-metadata",
    "Propose a launch spec from a kernel's metadata (guesses marked)");

static cl::opt<std::string> Input(cl::Positional, cl::desc("<code object>"),
                                  cl::Required, cl::sub(SpecFromMetadataCmd));
static cl::opt<std::string>
    Kernel("kernel", cl::desc("Kernel name (default: the only kernel)"),
           cl::value_desc("name"), cl::sub(SpecFromMetadataCmd));
static cl::opt<std::string> Output("o", cl::desc("Write the spec here"),
                                   cl::value_desc("file"), cl::init("-"),
                                   cl::sub(SpecFromMetadataCmd));

static int fail(const Twine &Msg) {
  WithColor::error(errs(), "asmevo-verify") << Msg << "\n";
  return 2;
}

int specFromMetadataCommand() {
  auto CO = verify::loadRunnableCodeObject(Input);
  if (!CO)
    return fail(toString(CO.takeError()));
  auto P = verify::proposeLaunchSpec(**CO, Kernel);
  if (!P)
    return fail(toString(P.takeError()));
  std::error_code EC;
  raw_fd_ostream OS(Output, EC, sys::fs::OF_Text);
  if (EC)
    return fail("cannot write '" + Output + "': " + EC.message());
  OS << P->YAML;
  for (const std::string &G : P->Guesses)
    WithColor::warning(errs(), "asmevo-verify") << "guess: " << G << "\n";
  errs() << "asmevo-verify: proposed a spec for '" << P->Kernel << "' with "
         << P->Guesses.size() << " guessed value(s), listed at its top\n";
  return 0;
}

} // namespace verify_tool
} // namespace asmevo
