//===- MCPServer.cpp - The agent tools over the Model Context Protocol ----===//
#include "asmevo/Agent/MCPServer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include <string>

using namespace llvm;
using namespace asmevo;

namespace {
constexpr StringLiteral ModernVersion = "2026-07-28";
/// Revisions `initialize` accepts, newest first; a client asking for any
/// other gets the newest and decides whether to go on.
constexpr StringLiteral LegacyVersions[] = {"2025-11-25", "2025-06-18",
                                            "2025-03-26"};
constexpr StringLiteral VersionKey = "io.modelcontextprotocol/protocolVersion";
constexpr StringLiteral CapabilitiesKey =
    "io.modelcontextprotocol/clientCapabilities";
constexpr StringLiteral ServerInfoKey = "io.modelcontextprotocol/serverInfo";

enum Code {
  ParseError = -32700,
  InvalidRequest = -32600,
  MethodNotFound = -32601,
  InvalidParams = -32602,
  UnsupportedProtocolVersion = -32022,
};
} // namespace

json::Object MCPServer::serverInfo() const {
  return json::Object{{"name", "asmevo"},
                      {"title", "AsmEvo post-link optimizer for AMD GPU kernels"},
                      {"version", "0.1"}};
}

json::Object MCPServer::capabilities() const {
  return json::Object{{"tools", json::Object{{"listChanged", false}}}};
}

static const char *Instructions =
    "Tools to recover, analyze, edit, verify and time AMDGPU kernels. Only "
    "a 'verify' verdict of 'equivalent' means a candidate behaves like the "
    "original; times without a GPU come from a cycle model and say so. "
    "Paths are relative to the server's work directory.";

MCPServer::Reply MCPServer::initialize(const json::Object *Params) {
  if (!Params)
    return Failure{InvalidParams, "initialize: missing params", std::nullopt};
  auto Asked = Params->getString("protocolVersion");
  if (!Asked)
    return Failure{InvalidParams, "initialize: missing protocolVersion",
                   std::nullopt};
  LegacyVersion = LegacyVersions[0].str();
  for (StringRef V : LegacyVersions)
    if (*Asked == V)
      LegacyVersion = V.str();
  return json::Object{{"protocolVersion", LegacyVersion},
                      {"capabilities", capabilities()},
                      {"serverInfo", serverInfo()},
                      {"instructions", Instructions}};
}

MCPServer::Reply MCPServer::discover() {
  json::Array Versions{ModernVersion};
  for (StringRef V : LegacyVersions)
    Versions.push_back(V);
  return json::Object{{"supportedVersions", std::move(Versions)},
                      {"capabilities", capabilities()},
                      {"serverInfo", serverInfo()},
                      {"instructions", Instructions},
                      {"ttlMs", 0},
                      {"cacheScope", "private"}};
}

static json::Object toolJSON(const AgentTool &T) {
  return json::Object{{"name", T.Name},
                      {"title", T.Title},
                      {"description", T.Description},
                      {"inputSchema", T.InputSchema},
                      {"outputSchema", T.OutputSchema}};
}

MCPServer::Reply MCPServer::listTools(const json::Object *Params,
                                      bool Modern) {
  const std::vector<AgentTool> &Tools = agentTools();
  size_t First = 0;
  if (Params)
    if (const json::Value *C = Params->get("cursor")) {
      auto S = C->getAsString();
      if (!S || S->getAsInteger(10, First) || First >= Tools.size())
        return Failure{InvalidParams, "tools/list: invalid cursor",
                       std::nullopt};
    }
  json::Array List;
  size_t End = std::min(Tools.size(), First + PageSize);
  for (size_t I = First; I < End; ++I)
    List.push_back(toolJSON(Tools[I]));
  json::Object R{{"tools", std::move(List)}};
  if (End < Tools.size())
    R["nextCursor"] = std::to_string(End);
  if (Modern) {
    R["ttlMs"] = 0;
    R["cacheScope"] = "private";
  }
  return R;
}

MCPServer::Reply MCPServer::callTool(const json::Object *Params) {
  if (!Params)
    return Failure{InvalidParams, "tools/call: missing params", std::nullopt};
  auto Name = Params->getString("name");
  if (!Name)
    return Failure{InvalidParams, "tools/call: missing tool name",
                   std::nullopt};
  const AgentTool *T = findAgentTool(*Name);
  if (!T)
    return Failure{InvalidParams, ("Unknown tool: " + *Name).str(),
                   std::nullopt};
  json::Value Args = json::Object{};
  if (const json::Value *A = Params->get("arguments"))
    Args = *A;
  if (Error E = checkAgainstSchema(Args, T->InputSchema))
    return Failure{InvalidParams,
                   (*Name + ": invalid arguments: " + toString(std::move(E)))
                       .str(),
                   std::nullopt};
  ToolContext Ctx{Dir};
  Log << "asmevo-opt mcp: " << *Name << "\n";
  Expected<json::Object> R = T->Run(*Args.getAsObject(), Ctx);
  if (!R) {
    std::string Msg = toString(R.takeError());
    Log << "asmevo-opt mcp: " << *Name << " failed: " << Msg << "\n";
    return json::Object{
        {"content", json::Array{json::Object{{"type", "text"}, {"text", Msg}}}},
        {"isError", true}};
  }
  std::string Text = formatv("{0:2}", json::Value(json::Object(*R))).str();
  return json::Object{
      {"content", json::Array{json::Object{{"type", "text"}, {"text", Text}}}},
      {"structuredContent", std::move(*R)},
      {"isError", false}};
}

MCPServer::Reply MCPServer::dispatch(StringRef Method,
                                     const json::Object *Params,
                                     bool &Modern) {
  // A 2026-07-28 request says so itself; nothing earlier on the
  // connection (an initialize or its absence) changes how it is handled.
  const json::Object *Meta = Params ? Params->getObject("_meta") : nullptr;
  std::optional<StringRef> Version =
      Meta ? Meta->getString(VersionKey) : std::nullopt;
  Modern = Version.has_value() && Method != "initialize";
  if (Modern) {
    if (*Version != ModernVersion) {
      json::Array Supported{ModernVersion};
      return Failure{UnsupportedProtocolVersion,
                     ("Unsupported protocol version: " + *Version).str(),
                     json::Object{{"supported", std::move(Supported)},
                                  {"requested", *Version}}};
    }
    if (!Meta->getObject(CapabilitiesKey))
      return Failure{InvalidParams,
                     (Method + ": params._meta[\"" + CapabilitiesKey +
                      "\"] is required by protocol version " + ModernVersion)
                         .str(),
                     std::nullopt};
    if (Method == "server/discover")
      return discover();
    if (Method == "tools/list")
      return listTools(Params, /*Modern=*/true);
    if (Method == "tools/call")
      return callTool(Params);
    return Failure{MethodNotFound,
                   ("Method not found: " + Method + " (protocol version " +
                    ModernVersion + ")")
                       .str(),
                   std::nullopt};
  }
  if (Method == "initialize")
    return initialize(Params);
  if (Method == "ping")
    return json::Object{};
  if (Method == "server/discover")
    return Failure{InvalidParams,
                   ("server/discover: params._meta[\"" + VersionKey +
                    "\"] is required")
                       .str(),
                   std::nullopt};
  if (Method != "tools/list" && Method != "tools/call")
    return Failure{MethodNotFound, ("Method not found: " + Method).str(),
                   std::nullopt};
  if (LegacyVersion.empty())
    return Failure{InvalidRequest,
                   (Method + ": send initialize first (protocol version " +
                    LegacyVersions[0] + "), or params._meta[\"" + VersionKey +
                    "\"] (" + ModernVersion + ")")
                       .str(),
                   std::nullopt};
  if (Method == "tools/list")
    return listTools(Params, /*Modern=*/false);
  return callTool(Params);
}

std::optional<json::Value> MCPServer::handle(const json::Value &Message) {
  auto ErrorResponse = [](json::Value Id, const Failure &F) {
    json::Object E{{"code", F.Code}, {"message", F.Message}};
    if (F.Data)
      E["data"] = *F.Data;
    return json::Value(json::Object{
        {"jsonrpc", "2.0"}, {"id", std::move(Id)}, {"error", std::move(E)}});
  };
  const json::Object *M = Message.getAsObject();
  if (!M || M->getString("jsonrpc") != StringRef("2.0"))
    return ErrorResponse(nullptr, {InvalidRequest,
                                   "Invalid Request: not a JSON-RPC 2.0 "
                                   "message",
                                   std::nullopt});
  const json::Value *Id = M->get("id");
  auto Method = M->getString("method");
  if (!Method) {
    // A response to a request we never send, or garbage: nothing to answer
    // unless it claims an id.
    if (Id && !M->get("result") && !M->get("error"))
      return ErrorResponse(*Id, {InvalidRequest,
                                 "Invalid Request: no method", std::nullopt});
    return std::nullopt;
  }
  const json::Value *PV = M->get("params");
  const json::Object *Params = PV ? PV->getAsObject() : nullptr;
  if (PV && !Params && PV->kind() != json::Value::Null) {
    if (!Id)
      return std::nullopt;
    return ErrorResponse(*Id, {InvalidParams, "params must be an object",
                               std::nullopt});
  }
  if (!Id) {
    // Notifications: initialized, cancelled, progress. None is answered.
    return std::nullopt;
  }
  if (Id->kind() != json::Value::String && !Id->getAsInteger())
    return ErrorResponse(nullptr, {InvalidRequest,
                                   "Invalid Request: id must be a string or "
                                   "an integer",
                                   std::nullopt});
  bool Modern = false;
  Reply R = dispatch(*Method, Params, Modern);
  if (auto *F = std::get_if<Failure>(&R))
    return ErrorResponse(*Id, *F);
  json::Object Result = std::move(std::get<json::Object>(R));
  if (Modern) {
    Result["resultType"] = "complete";
    json::Object RMeta;
    RMeta[ServerInfoKey] = serverInfo();
    Result["_meta"] = std::move(RMeta);
  }
  return json::Value(json::Object{
      {"jsonrpc", "2.0"}, {"id", *Id}, {"result", std::move(Result)}});
}

void MCPServer::handleLine(StringRef Line) {
  Line = Line.trim();
  if (Line.empty())
    return;
  std::optional<json::Value> Response;
  if (Expected<json::Value> V = json::parse(Line)) {
    if (V->getAsArray())
      // JSON-RPC batches are not part of MCP since 2025-06-18.
      Response = json::Object{
          {"jsonrpc", "2.0"},
          {"id", nullptr},
          {"error", json::Object{{"code", int(InvalidRequest)},
                                 {"message", "Invalid Request: batches are "
                                             "not supported"}}}};
    else
      Response = handle(*V);
  } else {
    Log << "asmevo-opt mcp: unparsable message: " << toString(V.takeError())
        << "\n";
    Response = json::Object{
        {"jsonrpc", "2.0"},
        {"id", nullptr},
        {"error", json::Object{{"code", int(ParseError)},
                               {"message", "Parse error"}}}};
  }
  if (!Response)
    return;
  Out << *Response << "\n";
  Out.flush();
}

int MCPServer::run(std::istream &In) {
  std::string Line;
  while (std::getline(In, Line))
    handleLine(Line);
  return 0;
}
