//===- FuzzMCP.cpp - The MCP request handler and agent answers ------------===//
//
// What an MCP client or an agent process sends: each line of the input is a
// message to `asmevo-opt mcp` (both protocol revisions, every tool, with an
// empty work directory so that tool calls fail fast on missing files), and
// the same line read as an agent's answer to a state.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "asmevo/Agent/AgentSession.h"
#include "asmevo/Agent/MCPServer.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;

static const WorkDir &workDir() {
  static const WorkDir D = [] {
    SmallString<128> Path;
    if (sys::fs::createUniqueDirectory("asmevo-fuzz-mcp", Path))
      abort();
    return cantFail(WorkDir::open(Path));
  }();
  return D;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  std::string Out;
  raw_string_ostream OS(Out);
  raw_null_ostream Log;
  MCPServer S(workDir(), OS, Log);
  StringRef Rest = fuzz::asStringRef(Data, Size);
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    S.handleLine(Line);
    fuzz::ignore(parseAgentAnswer(Line));
    Rest = Tail;
  }
  return 0;
}
