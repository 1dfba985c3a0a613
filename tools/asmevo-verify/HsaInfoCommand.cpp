//===- HsaInfoCommand.cpp - asmevo-verify hsa-info ------------------------===//
//
// What the `hsa` backend would run on: the HSA runtime that loads and its
// agents. Without a usable GPU this is the one line the backend would fail
// with, and exit status 4 (an environment problem, like a missing input).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "asmevo/Verify/HsaBackend.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

namespace asmevo {
namespace verify_tool {

cl::SubCommand HsaInfoCmd("hsa-info",
                          "Show the HSA runtime and GPU agents the hsa "
                          "backend would use");

static cl::opt<std::string>
    Runtime("hsa-runtime",
            cl::desc("HSA runtime library to dlopen (default: "
                     "$ASMEVO_HSA_RUNTIME or libhsa-runtime64.so.1)"),
            cl::value_desc("library"), cl::sub(HsaInfoCmd));

int hsaInfoCommand() {
  auto Info = verify::queryHsaSystem(Runtime);
  Error E = Info ? verify::requireGPU(*Info) : Info.takeError();
  if (E) {
    WithColor::error(errs(), "asmevo-verify") << toString(std::move(E))
                                              << "\n";
    return 4;
  }
  outs() << "HSA runtime " << Info->Version << ": " << Info->Library << "\n";
  for (size_t I = 0; I < Info->Agents.size(); ++I) {
    const verify::HsaAgentInfo &A = Info->Agents[I];
    outs() << "agent " << I << ": " << (A.IsGPU ? "GPU" : "CPU") << " '"
           << A.Name << "'";
    if (!A.Product.empty() && A.Product != A.Name)
      outs() << " (" << A.Product << ")";
    if (A.ComputeUnits)
      outs() << ", " << A.ComputeUnits << " compute units";
    if (!A.ISAs.empty())
      outs() << ", ISA " << join(A.ISAs, ", ");
    outs() << "\n";
  }
  return 0;
}

} // namespace verify_tool
} // namespace asmevo
