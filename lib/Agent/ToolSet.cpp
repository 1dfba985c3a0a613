//===- ToolSet.cpp - What an agent may ask the tool to do -----------------===//
#include "asmevo/Agent/ToolSet.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace asmevo;

const std::vector<AgentTool> &asmevo::agentTools() {
  static const std::vector<AgentTool> Tools = [] {
    std::vector<AgentTool> T;
    addInspectTools(T);
    addRunTools(T);
    addSearchTools(T);
    return T;
  }();
  return Tools;
}

const AgentTool *asmevo::findAgentTool(StringRef Name) {
  for (const AgentTool &T : agentTools())
    if (T.Name == Name)
      return &T;
  return nullptr;
}

static StringRef kindOf(const json::Value &V) {
  switch (V.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return "boolean";
  case json::Value::Number:
    return V.getAsInteger() ? "integer" : "number";
  case json::Value::String:
    return "string";
  case json::Value::Array:
    return "array";
  case json::Value::Object:
    return "object";
  }
  return "?";
}

static bool hasType(const json::Value &V, StringRef Type) {
  StringRef K = kindOf(V);
  return K == Type || (Type == "number" && K == "integer");
}

Error asmevo::checkAgainstSchema(const json::Value &V, const json::Value &S,
                                 StringRef Where) {
  const json::Object *SO = S.getAsObject();
  if (!SO)
    return Error::success();
  if (auto Type = SO->getString("type"))
    if (!hasType(V, *Type))
      return createStringError("%s: expected %s, got %s", Where.str().c_str(),
                               Type->str().c_str(), kindOf(V).str().c_str());
  if (const json::Array *Enum = SO->getArray("enum")) {
    bool Found = false;
    for (const json::Value &E : *Enum)
      Found |= E == V;
    if (!Found)
      return createStringError("%s: %s is not one of the allowed values",
                               Where.str().c_str(),
                               formatv("{0}", V).str().c_str());
  }
  if (auto I = V.getAsInteger()) {
    if (auto Min = SO->getInteger("minimum"); Min && *I < *Min)
      return createStringError("%s: %lld is below the minimum %lld",
                               Where.str().c_str(), (long long)*I,
                               (long long)*Min);
    if (auto Max = SO->getInteger("maximum"); Max && *I > *Max)
      return createStringError("%s: %lld is above the maximum %lld",
                               Where.str().c_str(), (long long)*I,
                               (long long)*Max);
  }
  if (const json::Array *A = V.getAsArray())
    if (const json::Value *Items = SO->get("items"))
      for (size_t I = 0; I < A->size(); ++I)
        if (Error E = checkAgainstSchema((*A)[I], *Items,
                                         formatv("{0}[{1}]", Where, I).str()))
          return E;
  const json::Object *O = V.getAsObject();
  if (!O)
    return Error::success();
  const json::Object *Props = SO->getObject("properties");
  if (const json::Array *Req = SO->getArray("required"))
    for (const json::Value &R : *Req)
      if (auto Name = R.getAsString(); Name && !O->get(*Name))
        return createStringError("%s: missing required member '%s'",
                                 Where.str().c_str(), Name->str().c_str());
  bool Closed = SO->getBoolean("additionalProperties") == false;
  for (const auto &[Key, Member] : *O) {
    std::string Sub = (Where + "." + Key.str()).str();
    const json::Value *PS = Props ? Props->get(Key) : nullptr;
    if (!PS) {
      if (Closed)
        return createStringError("%s: unknown member", Sub.c_str());
      continue;
    }
    if (Error E = checkAgainstSchema(Member, *PS, Sub))
      return E;
  }
  return Error::success();
}

json::Value schema::string(StringRef D) {
  return json::Object{{"type", "string"}, {"description", D}};
}
json::Value schema::integer(StringRef D, int64_t Min, int64_t Max) {
  return json::Object{{"type", "integer"},
                      {"description", D},
                      {"minimum", Min},
                      {"maximum", Max}};
}
json::Value schema::boolean(StringRef D) {
  return json::Object{{"type", "boolean"}, {"description", D}};
}
json::Value schema::stringArray(StringRef D) {
  return json::Object{{"type", "array"},
                      {"description", D},
                      {"items", json::Object{{"type", "string"}}}};
}
json::Value schema::anyObject(StringRef D) {
  return json::Object{{"type", "object"}, {"description", D}};
}
json::Value
schema::object(std::vector<std::pair<std::string, json::Value>> Props,
               std::vector<std::string> Required, bool Closed) {
  json::Object P;
  for (auto &[K, V] : Props)
    P[K] = std::move(V);
  json::Array R;
  for (std::string &S : Required)
    R.push_back(std::move(S));
  json::Object O{{"type", "object"}, {"properties", std::move(P)}};
  if (!R.empty())
    O["required"] = std::move(R);
  if (Closed)
    O["additionalProperties"] = false;
  return O;
}
