//===- MCP.cpp - asmevo-opt mcp -------------------------------------------===//
#include "MCP.h"
#include "asmevo/Agent/MCPServer.h"
#include "llvm/Support/WithColor.h"
#include <iostream>

using namespace llvm;
using namespace asmevo;

cl::SubCommand asmevo::MCPCommand(
    "mcp", "Serve the agent tools over the Model Context Protocol (stdio)");
static cl::opt<std::string>
    WorkDirPath("work-dir",
                cl::desc("The only directory whose files clients may read "
                         "and write (default: the current directory)"),
                cl::init("."), cl::sub(MCPCommand));
static cl::opt<unsigned> PageSize("page-size",
                                  cl::desc("Tools per tools/list page"),
                                  cl::init(4), cl::sub(MCPCommand));

int asmevo::runMCPCommand() {
  auto Dir = WorkDir::open(WorkDirPath);
  if (!Dir) {
    WithColor::error(errs(), "asmevo-opt mcp") << toString(Dir.takeError())
                                               << "\n";
    return 1;
  }
  if (PageSize == 0) {
    WithColor::error(errs(), "asmevo-opt mcp") << "--page-size must be > 0\n";
    return 1;
  }
  errs() << "asmevo-opt mcp: serving on stdio, work directory " << Dir->root()
         << "\n";
  MCPServer S(*Dir, outs(), errs());
  S.PageSize = PageSize;
  return S.run(std::cin);
}
