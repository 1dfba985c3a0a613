//===- MCPServer.h - The agent tools over the Model Context Protocol -*- C++ -*-//
//
// `asmevo-opt mcp`: JSON-RPC 2.0, one message per line on stdin/stdout
// (nothing but protocol on stdout; logs go to stderr). Two revisions, told
// apart per request:
//  - 2025-11-25: `initialize` negotiates the version, then
//    `notifications/initialized`; `ping`, `tools/list`, `tools/call`.
//  - 2026-07-28 (stateless): every request carries
//    params._meta["io.modelcontextprotocol/protocolVersion"] and
//    [".../clientCapabilities"]; `server/discover` replaces `initialize`;
//    results carry `resultType`; `ping` and `logging/setLevel` are gone.
//    Such a request is judged by what it carries alone, never by what came
//    before it on the connection.
// docs/mcp-server.md describes both as a client sees them.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_AGENT_MCPSERVER_H
#define ASMEVO_AGENT_MCPSERVER_H

#include "asmevo/Agent/ToolSet.h"
#include "asmevo/Agent/WorkDir.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <istream>
#include <optional>
#include <variant>

namespace asmevo {

class MCPServer {
public:
  MCPServer(const WorkDir &Dir, llvm::raw_ostream &Out, llvm::raw_ostream &Log)
      : Dir(Dir), Out(Out), Log(Log) {}

  /// Tools per tools/list page (a small page makes clients page).
  unsigned PageSize = 4;

  /// One message in, at most one response out (none for a notification).
  void handleLine(llvm::StringRef Line);
  /// Until end of input. Returns the process exit status.
  int run(std::istream &In);

  /// The response to \p Message, or nothing for a notification.
  std::optional<llvm::json::Value> handle(const llvm::json::Value &Message);

private:
  struct Failure {
    int Code;
    std::string Message;
    std::optional<llvm::json::Value> Data;
  };
  using Reply = std::variant<llvm::json::Object, Failure>;

  Reply dispatch(llvm::StringRef Method, const llvm::json::Object *Params,
                 bool &Modern);
  Reply initialize(const llvm::json::Object *Params);
  Reply discover();
  Reply listTools(const llvm::json::Object *Params, bool Modern);
  Reply callTool(const llvm::json::Object *Params);
  llvm::json::Object serverInfo() const;
  llvm::json::Object capabilities() const;

  const WorkDir &Dir;
  llvm::raw_ostream &Out;
  llvm::raw_ostream &Log;
  /// 2025-11-25 session state: the version `initialize` agreed on.
  std::string LegacyVersion;
};

} // namespace asmevo

#endif
