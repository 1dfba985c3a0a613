//===- ToolSet.h - What an agent may ask the tool to do ---------*- C++ -*-===//
//
// The operations an external agent drives (recover, analyze, verify, time,
// diff, apply an edit, hot windows, lineage), each with a JSON Schema for
// its input and output. The MCP server lists and calls them; the JSON-lines
// agent protocol and the drivers reach the same library code, so an agent
// sees exactly what a user of asmevo-opt and asmevo-verify sees.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_AGENT_TOOLSET_H
#define ASMEVO_AGENT_TOOLSET_H

#include "asmevo/Agent/WorkDir.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"
#include <functional>
#include <string>
#include <vector>

namespace asmevo {

struct ToolContext {
  const WorkDir &Dir;
};

struct AgentTool {
  std::string Name;
  std::string Title;
  std::string Description;
  llvm::json::Value InputSchema;
  llvm::json::Value OutputSchema;
  /// Arguments have been checked against InputSchema. A returned Error is
  /// the tool failing (a result with isError), not a protocol error.
  std::function<llvm::Expected<llvm::json::Object>(const llvm::json::Object &,
                                                   ToolContext &)>
      Run;
};

/// Every tool, in the order tools/list gives them.
const std::vector<AgentTool> &agentTools();
const AgentTool *findAgentTool(llvm::StringRef Name);

/// Checks \p V against the subset of JSON Schema our tool schemas use
/// (type, properties, required, additionalProperties: false, items, enum,
/// minimum, maximum). The error names the offending member.
llvm::Error checkAgainstSchema(const llvm::json::Value &V,
                               const llvm::json::Value &Schema,
                               llvm::StringRef Where = "arguments");

namespace schema {
/// Small builders, so that each tool's schema reads as what it accepts.
llvm::json::Value string(llvm::StringRef Description);
llvm::json::Value integer(llvm::StringRef Description, int64_t Min = 0,
                          int64_t Max = INT32_MAX);
llvm::json::Value boolean(llvm::StringRef Description);
llvm::json::Value stringArray(llvm::StringRef Description);
llvm::json::Value anyObject(llvm::StringRef Description);
llvm::json::Value
object(std::vector<std::pair<std::string, llvm::json::Value>> Props,
       std::vector<std::string> Required, bool Closed = true);
} // namespace schema

/// Tool families, registered by agentTools() (one file each).
void addInspectTools(std::vector<AgentTool> &Tools);
void addRunTools(std::vector<AgentTool> &Tools);
void addSearchTools(std::vector<AgentTool> &Tools);

} // namespace asmevo

#endif
