//===- MCP.h - asmevo-opt mcp -----------------------------------*- C++ -*-===//
#ifndef ASMEVO_TOOLS_OPT_MCP_H
#define ASMEVO_TOOLS_OPT_MCP_H
#include "llvm/Support/CommandLine.h"
namespace asmevo {
extern llvm::cl::SubCommand MCPCommand;
/// Serves until stdin closes.
int runMCPCommand();
} // namespace asmevo
#endif
