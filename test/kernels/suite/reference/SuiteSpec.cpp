//===- SuiteSpec.cpp ------------------------------------------------------===//
#include "SuiteSpec.h"
#include "Expr.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

using namespace llvm;
using namespace asmevo::suite;

namespace {
/// Walks the YAML node tree; every error names the spec file and the key.
class SpecReader {
public:
  explicit SpecReader(StringRef Path) : Path(Path) {}

  Expected<SuiteSpec> read(StringRef Text);

private:
  std::string Path;

  Error fail(const Twine &Where, const Twine &Msg) const {
    return createStringError(inconvertibleErrorCode(),
                             "'" + Path + "': " + Where + ": " + Msg);
  }
  Expected<std::string> scalar(yaml::Node *N, const Twine &Where) const {
    auto *S = dyn_cast_or_null<yaml::ScalarNode>(N);
    if (!S)
      return fail(Where, "expected a scalar");
    SmallString<64> Storage;
    return S->getValue(Storage).str();
  }
  Expected<double> number(yaml::Node *N, const Twine &Where) const {
    Expected<std::string> S = scalar(N, Where);
    if (!S)
      return S.takeError();
    double V;
    if (StringRef(*S).trim().getAsDouble(V))
      return fail(Where, "'" + *S + "' is not a number");
    return V;
  }
  Expected<ElemType> type(yaml::Node *N, const Twine &Where) const {
    Expected<std::string> S = scalar(N, Where);
    if (!S)
      return S.takeError();
    if (std::optional<ElemType> T = parseElemType(*S))
      return *T;
    return fail(Where, "unknown element type '" + *S + "'");
  }
  Error readScalars(yaml::Node *N, SuiteSpec &Spec);
  Error readBuffers(yaml::Node *N, SuiteSpec &Spec);
  Error readInit(yaml::Node *N, const Twine &Where, InitSpec &Init);
  Error readVariants(yaml::Node *N, SuiteSpec &Spec);
  Error readLaunch(yaml::MappingNode *M, SuiteSpec &Spec);
  Error readLaunchKey(yaml::KeyValueNode &KV, SuiteSpec &Spec);
  Expected<std::vector<std::string>> list(yaml::Node *N, const Twine &Where,
                                          bool AllowNonScalars) const;
};
} // namespace

static std::string kernelName(StringRef Name) {
  Name.consume_back(".kd");
  return Name.str();
}

static std::string keyOf(yaml::KeyValueNode &KV) {
  SmallString<32> Storage;
  if (auto *S = dyn_cast_or_null<yaml::ScalarNode>(KV.getKey()))
    return S->getValue(Storage).str();
  return "";
}

Error SpecReader::readScalars(yaml::Node *N, SuiteSpec &Spec) {
  auto *M = dyn_cast_or_null<yaml::MappingNode>(N);
  if (!M)
    return fail("scalars", "expected a mapping");
  for (yaml::KeyValueNode &KV : *M) {
    ScalarSpec S;
    S.Name = keyOf(KV);
    std::string Where = "scalars." + S.Name;
    auto *Fields = dyn_cast_or_null<yaml::MappingNode>(KV.getValue());
    if (!Fields)
      return fail(Where, "expected a mapping");
    bool HaveType = false, HaveValue = false;
    for (yaml::KeyValueNode &F : *Fields) {
      std::string Key = keyOf(F);
      if (Key == "type") {
        Expected<ElemType> T = type(F.getValue(), Where + ".type");
        if (!T)
          return T.takeError();
        S.Type = *T;
        HaveType = true;
      } else if (Key == "value") {
        Expected<std::string> V = scalar(F.getValue(), Where + ".value");
        if (!V)
          return V.takeError();
        S.Value = *V;
        HaveValue = true;
      } else {
        F.skip(); // range, values, multiple_of: for verifiers that draw
      }
    }
    if (!HaveType || !HaveValue)
      return fail(Where, "needs 'type' and 'value'");
    Spec.Scalars.push_back(std::move(S));
  }
  return Error::success();
}

Error SpecReader::readInit(yaml::Node *N, const Twine &Where, InitSpec &Init) {
  if (auto *S = dyn_cast<yaml::ScalarNode>(N)) {
    SmallString<16> Storage;
    StringRef V = S->getValue(Storage);
    if (V == "zeros")
      Init.K = InitSpec::Zeros;
    else if (V == "canary")
      Init.K = InitSpec::Canary;
    else
      return fail(Where, "unknown init '" + V + "'");
    return Error::success();
  }
  auto *M = dyn_cast<yaml::MappingNode>(N);
  if (!M)
    return fail(Where, "expected 'zeros', 'canary' or a mapping");
  StringMap<yaml::Node *> Fields;
  for (yaml::KeyValueNode &F : *M)
    Fields[keyOf(F)] = F.getValue();
  auto Num = [&](StringRef Key, double Default, double &Out) -> Error {
    auto It = Fields.find(Key);
    if (It == Fields.end()) {
      Out = Default;
      return Error::success();
    }
    Expected<double> V = number(It->second, Where + "." + Key);
    if (!V)
      return V.takeError();
    Out = *V;
    return Error::success();
  };
  if (Fields.count("file")) {
    Expected<std::string> P = scalar(Fields["file"], Where + ".file");
    if (!P)
      return P.takeError();
    Init.K = InitSpec::File;
    Init.Path = *P;
    return Error::success();
  }
  if (Fields.count("pointers")) {
    Init.K = InitSpec::Pointers;
    return Error::success();
  }
  if (!Fields.count("dist"))
    return fail(Where, "needs 'dist', 'file' or 'pointers'");
  Expected<std::string> Dist = scalar(Fields["dist"], Where + ".dist");
  if (!Dist)
    return Dist.takeError();
  if (*Dist == "uniform") {
    Init.K = InitSpec::Uniform;
    return joinErrors(Num("min", 0, Init.A), Num("max", 1, Init.B));
  }
  if (*Dist == "normal") {
    Init.K = InitSpec::Normal;
    return joinErrors(Num("mean", 0, Init.A), Num("std", 1, Init.B));
  }
  if (*Dist == "constant") {
    Init.K = InitSpec::Constant;
    return Num("value", 0, Init.A);
  }
  if (*Dist == "iota") {
    Init.K = InitSpec::Iota;
    return joinErrors(Num("start", 0, Init.A), Num("step", 1, Init.B));
  }
  if (*Dist == "special") {
    Init.K = InitSpec::Special;
    return Error::success();
  }
  if (*Dist == "permutation") {
    Init.K = InitSpec::Permutation;
    return Error::success();
  }
  return fail(Where, "unknown distribution '" + *Dist + "'");
}

Error SpecReader::readBuffers(yaml::Node *N, SuiteSpec &Spec) {
  auto *M = dyn_cast_or_null<yaml::MappingNode>(N);
  if (!M)
    return fail("buffers", "expected a mapping");
  for (yaml::KeyValueNode &KV : *M) {
    BufferSpec B;
    B.Name = keyOf(KV);
    std::string Where = "buffers." + B.Name;
    auto *Fields = dyn_cast_or_null<yaml::MappingNode>(KV.getValue());
    if (!Fields)
      return fail(Where, "expected a mapping");
    bool HaveType = false, HaveCount = false, HaveRole = false;
    for (yaml::KeyValueNode &F : *Fields) {
      std::string Key = keyOf(F);
      if (Key == "type") {
        Expected<ElemType> T = type(F.getValue(), Where + ".type");
        if (!T)
          return T.takeError();
        B.Type = *T;
        HaveType = true;
      } else if (Key == "count") {
        Expected<std::string> C = scalar(F.getValue(), Where + ".count");
        if (!C)
          return C.takeError();
        B.Count = *C;
        HaveCount = true;
      } else if (Key == "role") {
        Expected<std::string> R = scalar(F.getValue(), Where + ".role");
        if (!R)
          return R.takeError();
        std::optional<BufferRole> Role =
            StringSwitch<std::optional<BufferRole>>(*R)
                .Case("in", BufferRole::In)
                .Case("out", BufferRole::Out)
                .Case("inout", BufferRole::InOut)
                .Case("temp", BufferRole::Temp)
                .Default(std::nullopt);
        if (!Role)
          return fail(Where + ".role", "unknown role '" + *R + "'");
        B.Role = *Role;
        HaveRole = true;
      } else if (Key == "init") {
        if (Error E = readInit(F.getValue(), Where + ".init", B.Init))
          return E;
      } else if (Key == "compare") {
        Expected<std::string> C = scalar(F.getValue(), Where + ".compare");
        if (!C)
          return C.takeError();
        B.Compare = *C != "false";
      } else {
        F.skip(); // tolerance, guard, align, nondeterministic, patch
      }
    }
    if (!HaveType || !HaveCount || !HaveRole)
      return fail(Where, "needs 'type', 'count' and 'role'");
    Spec.Buffers.push_back(std::move(B));
  }
  return Error::success();
}

Error SpecReader::readVariants(yaml::Node *N, SuiteSpec &Spec) {
  auto *Seq = dyn_cast_or_null<yaml::SequenceNode>(N);
  if (!Seq)
    return fail("variants", "expected a sequence");
  unsigned Index = 0;
  for (yaml::Node &Item : *Seq) {
    auto *M = dyn_cast<yaml::MappingNode>(&Item);
    if (!M)
      return fail("variants[" + Twine(Index) + "]", "expected a mapping");
    std::vector<std::pair<std::string, std::string>> Overrides;
    for (yaml::KeyValueNode &KV : *M) {
      Expected<std::string> V =
          scalar(KV.getValue(), "variants[" + Twine(Index) + "]." + keyOf(KV));
      if (!V)
        return V.takeError();
      Overrides.emplace_back(keyOf(KV), *V);
    }
    Spec.Variants.push_back(std::move(Overrides));
    ++Index;
  }
  return Error::success();
}

Expected<std::vector<std::string>>
SpecReader::list(yaml::Node *N, const Twine &Where,
                 bool AllowNonScalars) const {
  auto *Seq = dyn_cast_or_null<yaml::SequenceNode>(N);
  if (!Seq)
    return fail(Where, "expected a sequence");
  std::vector<std::string> Items;
  for (yaml::Node &Item : *Seq) {
    if (auto *S = dyn_cast<yaml::ScalarNode>(&Item)) {
      SmallString<32> Storage;
      Items.push_back(S->getValue(Storage).str());
      continue;
    }
    if (!AllowNonScalars)
      return fail(Where, "expected scalars");
    Item.skip();
    Items.emplace_back();
  }
  return Items;
}

/// kernel, grid, block and args of a launch (the first one wins).
Error SpecReader::readLaunchKey(yaml::KeyValueNode &KV, SuiteSpec &Spec) {
  std::string Key = keyOf(KV);
  if (Key == "kernel" && Spec.Kernel.empty()) {
    Expected<std::string> K = scalar(KV.getValue(), Key);
    if (!K)
      return K.takeError();
    Spec.Kernel = kernelName(*K);
    return Error::success();
  }
  std::vector<std::string> *Dest = Key == "grid"    ? &Spec.Grid
                                   : Key == "block" ? &Spec.Block
                                   : Key == "args"  ? &Spec.Args
                                                    : nullptr;
  if (!Dest || !Dest->empty()) {
    KV.skip();
    return Error::success();
  }
  Expected<std::vector<std::string>> Items =
      list(KV.getValue(), Key, /*AllowNonScalars=*/Key == "args");
  if (!Items)
    return Items.takeError();
  *Dest = std::move(*Items);
  return Error::success();
}

Error SpecReader::readLaunch(yaml::MappingNode *M, SuiteSpec &Spec) {
  for (yaml::KeyValueNode &KV : *M)
    if (Error E = readLaunchKey(KV, Spec))
      return E;
  return Error::success();
}

Expected<SuiteSpec> SpecReader::read(StringRef Text) {
  SuiteSpec Spec;
  Spec.Path = Path;
  SourceMgr SM;
  std::string Diag;
  SM.setDiagHandler(
      [](const SMDiagnostic &D, void *Ctx) {
        raw_string_ostream OS(*static_cast<std::string *>(Ctx));
        D.print(nullptr, OS, /*ShowColors=*/false);
      },
      &Diag);
  yaml::Stream Stream(Text, SM);
  auto DI = Stream.begin();
  if (DI == Stream.end())
    return fail("top level", "empty file");
  auto *Root = dyn_cast_or_null<yaml::MappingNode>(DI->getRoot());
  if (!Root)
    return fail("top level",
                "expected a mapping" + (Diag.empty() ? "" : ": " + Diag));
  bool HaveVersion = false;
  auto ReadKey = [&](yaml::KeyValueNode &KV) -> Error {
    std::string Key = keyOf(KV);
    if (Key == "asmevo-launch") {
      Expected<std::string> V = scalar(KV.getValue(), Key);
      if (!V)
        return V.takeError();
      if (StringRef(*V).trim() != "1")
        return fail(Key, "format version " + *V +
                             " is not supported (this reader knows 1)");
      HaveVersion = true;
      return Error::success();
    }
    if (Key == "scalars")
      return readScalars(KV.getValue(), Spec);
    if (Key == "buffers")
      return readBuffers(KV.getValue(), Spec);
    if (Key == "variants")
      return readVariants(KV.getValue(), Spec);
    if (Key == "seed") {
      Expected<double> V = number(KV.getValue(), Key);
      if (!V)
        return V.takeError();
      Spec.Seed = (uint64_t)*V;
      return Error::success();
    }
    if (Key == "kernel" || Key == "grid" || Key == "block" || Key == "args")
      return readLaunchKey(KV, Spec);
    if (Key == "launches") {
      auto *Seq = dyn_cast_or_null<yaml::SequenceNode>(KV.getValue());
      if (!Seq)
        return fail(Key, "expected a sequence");
      for (yaml::Node &L : *Seq) {
        auto *M = dyn_cast<yaml::MappingNode>(&L);
        if (!M)
          return fail(Key, "expected mappings");
        if (Error E = readLaunch(M, Spec))
          return E;
      }
      return Error::success();
    }
    KV.skip();
    return Error::success();
  };
  for (yaml::KeyValueNode &KV : *Root)
    if (Error E = ReadKey(KV))
      return std::move(E);
  if (!Diag.empty())
    return fail("YAML", Diag);
  if (!HaveVersion)
    return fail("top level", "missing 'asmevo-launch: 1'");
  if (Spec.Kernel.empty())
    return fail("top level", "no kernel named");
  return Spec;
}

Expected<SuiteSpec> asmevo::suite::readSuiteSpec(StringRef Path) {
  auto MB = MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!MB)
    return createStringError(MB.getError(),
                             "'" + Path + "': " + MB.getError().message());
  return SpecReader(Path).read((*MB)->getBuffer());
}

const BufferSpec *SuiteSpec::buffer(StringRef Name) const {
  for (const BufferSpec &B : Buffers)
    if (B.Name == Name)
      return &B;
  return nullptr;
}

static bool isIntegerType(ElemType T) { return !isFloatType(T); }

Expected<ScalarValues>
asmevo::suite::resolveScalars(const SuiteSpec &Spec, unsigned Variant,
                              ArrayRef<std::string> Overrides) {
  auto Fail = [&](const Twine &Msg) {
    return createStringError(inconvertibleErrorCode(),
                             "'" + Spec.Path + "': " + Msg);
  };
  if (Variant > Spec.Variants.size())
    return Fail("variant " + Twine(Variant) + " requested, the spec has " +
                Twine(Spec.Variants.size()));
  StringMap<std::string> Text;
  for (const ScalarSpec &S : Spec.Scalars)
    Text[S.Name] = S.Value;
  auto Apply = [&](StringRef Name, StringRef Value) -> Error {
    if (!Text.count(Name))
      return Fail("override of unknown scalar '" + Name + "'");
    Text[Name] = Value.str();
    return Error::success();
  };
  if (Variant > 0)
    for (const auto &[Name, Value] : Spec.Variants[Variant - 1])
      if (Error E = Apply(Name, Value))
        return std::move(E);
  for (StringRef O : Overrides) {
    auto [Name, Value] = O.split('=');
    if (Value.empty() && !O.contains('='))
      return Fail("override '" + O + "' is not NAME=VALUE");
    if (Error E = Apply(Name.trim(), Value.trim()))
      return std::move(E);
  }

  ScalarValues Values;
  for (const ScalarSpec &S : Spec.Scalars) {
    ScalarValue V;
    V.Type = S.Type;
    StringRef T = Text[S.Name];
    if (isIntegerType(S.Type)) {
      Expected<int64_t> I = evalExpr(T, [&](StringRef N) {
        auto It = Values.find(N);
        if (It == Values.end() || isFloatType(It->second.Type))
          return std::optional<int64_t>();
        return std::optional<int64_t>(It->second.Int);
      });
      if (!I)
        return Fail("scalars." + S.Name + ": " + toString(I.takeError()));
      V.Int = *I;
      V.Float = (double)*I;
    } else {
      if (T.trim().getAsDouble(V.Float))
        return Fail("scalars." + S.Name + ": '" + T + "' is not a number");
    }
    Values[S.Name] = V;
  }
  return Values;
}

Expected<int64_t> asmevo::suite::evalSpecExpr(const SuiteSpec &Spec,
                                              StringRef Text,
                                              const ScalarValues &Scalars) {
  Expected<int64_t> V = evalExpr(Text, [&](StringRef N) {
    auto It = Scalars.find(N);
    if (It == Scalars.end() || isFloatType(It->second.Type))
      return std::optional<int64_t>();
    return std::optional<int64_t>(It->second.Int);
  });
  if (!V)
    return createStringError(inconvertibleErrorCode(),
                             "'" + Spec.Path + "': " + toString(V.takeError()));
  return V;
}

Expected<uint64_t> asmevo::suite::bufferCount(const SuiteSpec &Spec,
                                              const BufferSpec &B,
                                              const ScalarValues &Scalars) {
  Expected<int64_t> C = evalSpecExpr(Spec, B.Count, Scalars);
  if (!C)
    return createStringError(inconvertibleErrorCode(), toString(C.takeError()) +
                                                           " (buffers." +
                                                           B.Name + ".count)");
  if (*C < 0)
    return createStringError(inconvertibleErrorCode(),
                             "'" + Spec.Path + "': buffers." + B.Name +
                                 ".count is negative (" + Twine(*C) + ")");
  return (uint64_t)*C;
}
