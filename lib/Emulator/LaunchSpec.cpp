//===- LaunchSpec.cpp - Parsing launch specs and evaluating expressions ---===//
#include "asmevo/Emulator/LaunchSpec.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "asmevo/Support/YAMLSyntax.h"
#include "llvm/Support/YAMLParser.h"
#include "llvm/Support/raw_ostream.h"
#include <cmath>
#include <set>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

//===----------------------------------------------------------------------===//
// Element types
//===----------------------------------------------------------------------===//

static const struct {
  const char *Name;
  ElemType T;
  unsigned Size;
} TypeTable[] = {
    {"i8", ElemType::I8, 1},     {"u8", ElemType::U8, 1},
    {"i16", ElemType::I16, 2},   {"u16", ElemType::U16, 2},
    {"i32", ElemType::I32, 4},   {"u32", ElemType::U32, 4},
    {"i64", ElemType::I64, 8},   {"u64", ElemType::U64, 8},
    {"f16", ElemType::F16, 2},   {"bf16", ElemType::BF16, 2},
    {"f32", ElemType::F32, 4},   {"f64", ElemType::F64, 8},
    {"fp8", ElemType::FP8, 1},   {"bf8", ElemType::BF8, 1},
    {"ptr", ElemType::Ptr, 8},
};

StringRef emu::elemTypeName(ElemType T) {
  for (auto &E : TypeTable)
    if (E.T == T)
      return E.Name;
  return "?";
}
std::optional<ElemType> emu::parseElemType(StringRef S) {
  for (auto &E : TypeTable)
    if (S == E.Name)
      return E.T;
  return std::nullopt;
}
unsigned emu::elemSize(ElemType T) {
  for (auto &E : TypeTable)
    if (E.T == T)
      return E.Size;
  return 1;
}
bool emu::isFloatType(ElemType T) {
  return T == ElemType::F16 || T == ElemType::BF16 || T == ElemType::F32 ||
         T == ElemType::F64 || T == ElemType::FP8 || T == ElemType::BF8;
}

//===----------------------------------------------------------------------===//
// Expressions
//===----------------------------------------------------------------------===//

namespace {
class ExprParser {
public:
  ExprParser(StringRef S, const ScalarEnv &Env) : S(S), Env(Env) {}
  Expected<int64_t> parse() {
    auto V = sum();
    if (!V)
      return V;
    skip();
    if (Pos != S.size())
      return err("unexpected '" + S.substr(Pos).str() + "'");
    return V;
  }

private:
  Error err(const Twine &Msg) {
    return createStringError("expression '%s': %s", shorten(S).c_str(),
                             shorten(Msg.str()).c_str());
  }
  /// A hostile expression may be megabytes long: keep errors one short line.
  static std::string shorten(StringRef T) {
    return T.size() <= 80 ? T.str() : (T.take_front(77) + "...").str();
  }
  void skip() {
    while (Pos < S.size() && isSpace(S[Pos]))
      ++Pos;
  }
  bool eat(char C) {
    skip();
    if (Pos < S.size() && S[Pos] == C) {
      ++Pos;
      return true;
    }
    return false;
  }
  Expected<int64_t> sum() {
    auto L = product();
    if (!L)
      return L;
    int64_t V = *L;
    while (true) {
      if (eat('+')) {
        auto R = product();
        if (!R)
          return R;
        if (AddOverflow(V, *R, V))
          return overflow("+");
      } else if (eat('-')) {
        auto R = product();
        if (!R)
          return R;
        if (SubOverflow(V, *R, V))
          return overflow("-");
      } else {
        return V;
      }
    }
  }
  Expected<int64_t> product() {
    auto L = unary();
    if (!L)
      return L;
    int64_t V = *L;
    while (true) {
      char Op = 0;
      if (eat('*'))
        Op = '*';
      else if (eat('/'))
        Op = '/';
      else if (eat('%'))
        Op = '%';
      else
        return V;
      auto R = unary();
      if (!R)
        return R;
      if (Op == '*') {
        if (MulOverflow(V, *R, V))
          return overflow("*");
      } else if (*R == 0) {
        return err("division by zero");
      } else if (V == INT64_MIN && *R == -1) {
        // The one quotient that does not fit; the remainder traps too.
        return overflow(Op == '/' ? "/" : "%");
      } else if (Op == '/') {
        V /= *R;
      } else {
        V %= *R;
      }
    }
  }
  Expected<int64_t> unary() {
    // Each nesting level (a unary sign, a parenthesis, a function call)
    // recurses once: bound it, or a hostile spec overflows the stack.
    DepthGuard G(Depth);
    if (Depth > MaxExprDepth)
      return err("nested more than " + Twine(MaxExprDepth) + " levels deep");
    if (eat('-')) {
      auto V = unary();
      if (!V)
        return V;
      if (*V == INT64_MIN)
        return overflow("unary -");
      return -*V;
    }
    if (eat('+'))
      return unary();
    return primary();
  }
  Expected<int64_t> primary() {
    skip();
    if (eat('(')) {
      auto V = sum();
      if (!V)
        return V;
      if (!eat(')'))
        return err("missing ')'");
      return V;
    }
    if (Pos < S.size() && isDigit(S[Pos])) {
      size_t Start = Pos;
      while (Pos < S.size() && (isAlnum(S[Pos])))
        ++Pos;
      StringRef Lit = S.slice(Start, Pos);
      uint64_t V;
      if (Lit.getAsInteger(0, V))
        return err("bad number '" + Lit.str() + "'");
      if (V > uint64_t(INT64_MAX))
        return err("number '" + Lit.str() +
                   "' does not fit in a signed "
                   "64-bit integer");
      return int64_t(V);
    }
    if (Pos < S.size() && (isAlpha(S[Pos]) || S[Pos] == '_')) {
      size_t Start = Pos;
      while (Pos < S.size() && (isAlnum(S[Pos]) || S[Pos] == '_'))
        ++Pos;
      StringRef Id = S.slice(Start, Pos);
      if (eat('(')) {
        auto A = sum();
        if (!A)
          return A;
        if (!eat(','))
          return err("'" + Id.str() + "' takes two arguments");
        auto B = sum();
        if (!B)
          return B;
        if (!eat(')'))
          return err("missing ')'");
        if (Id == "min")
          return std::min(*A, *B);
        if (Id == "max")
          return std::max(*A, *B);
        if (*B == 0)
          return err("division by zero in " + Id.str());
        if (Id == "ceil_div" || Id == "align") {
          if (*A < 0 || *B < 0)
            return err(Id + "(" + Twine(*A) + ", " + Twine(*B) +
                       ") of a negative value");
          // A + B - 1 may not fit; A / B rounded up never overflows.
          int64_t Q = *A / *B + (*A % *B != 0);
          if (Id == "ceil_div")
            return Q;
          int64_t R;
          if (MulOverflow(Q, *B, R))
            return overflow("align");
          return R;
        }
        return err("unknown function '" + Id.str() + "'");
      }
      auto It = Env.find(Id.str());
      if (It == Env.end())
        return err("unknown scalar '" + Id.str() + "'");
      if (It->second.IsFloat)
        return err("scalar '" + Id.str() + "' is a float");
      return It->second.I;
    }
    return err(Pos < S.size() ? "unexpected '" + S.substr(Pos).str() + "'"
                              : "unexpected end");
  }

  Error overflow(StringRef Op) {
    return err("'" + Op + "' overflows signed 64-bit integers");
  }
  struct DepthGuard {
    unsigned &D;
    DepthGuard(unsigned &D) : D(D) { ++D; }
    ~DepthGuard() { --D; }
  };

  StringRef S;
  const ScalarEnv &Env;
  size_t Pos = 0;
  unsigned Depth = 0;
};
} // namespace

Expected<int64_t> emu::evalExpr(StringRef Expr, const ScalarEnv &Env) {
  return ExprParser(Expr, Env).parse();
}

bool SpecScalar::isDerived() const {
  StringRef V = StringRef(Value).trim();
  int64_t I;
  double D;
  // getAsInteger/getAsDouble return true when the text is not a number.
  return V.getAsInteger(0, I) && V.getAsDouble(D);
}

const SpecScalar *LaunchSpec::scalar(StringRef N) const {
  for (const SpecScalar &S : Scalars)
    if (S.Name == N)
      return &S;
  return nullptr;
}
const SpecBuffer *LaunchSpec::buffer(StringRef N) const {
  for (const SpecBuffer &B : Buffers)
    if (B.Name == N)
      return &B;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// YAML
//===----------------------------------------------------------------------===//

namespace {

class SpecParser {
public:
  SpecParser(StringRef Text, StringRef Path) : Path(Path.str()) {
    Buf = MemoryBuffer::getMemBufferCopy(Text, Path);
  }
  Expected<LaunchSpec> run();

private:
  Error err(yaml::Node *N, const Twine &Msg) {
    std::string Loc = Path;
    // Some nodes (an empty value, an alias) carry no location inside the
    // text; SourceMgr must not be asked for one.
    if (N && N->getSourceRange().Start.isValid() &&
        SM.FindBufferContainingLoc(N->getSourceRange().Start)) {
      auto LC = SM.getLineAndColumn(N->getSourceRange().Start);
      Loc += ":" + std::to_string(LC.first) + ":" + std::to_string(LC.second);
    }
    return createStringError("%s: %s", Loc.c_str(), Msg.str().c_str());
  }
  /// Scalar text of \p N (also numbers and bools).
  Expected<std::string> str(yaml::Node *N, StringRef What) {
    if (auto *S = dyn_cast_or_null<yaml::ScalarNode>(N)) {
      SmallString<64> Storage;
      return S->getValue(Storage).str();
    }
    return err(N, What + " must be a scalar");
  }
  Expected<double> num(yaml::Node *N, StringRef What) {
    auto S = str(N, What);
    if (!S)
      return S.takeError();
    StringRef T = StringRef(*S).trim();
    double D;
    if (T == "inf" || T == ".inf")
      return INFINITY;
    if (T == "-inf" || T == "-.inf")
      return -INFINITY;
    if (T == "nan" || T == ".nan")
      return NAN;
    int64_t I;
    if (!T.getAsInteger(0, I))
      return double(I);
    if (T.getAsDouble(D))
      return err(N, What + ": '" + T.str() + "' is not a number");
    return D;
  }
  Expected<uint64_t> uint(yaml::Node *N, StringRef What) {
    auto S = str(N, What);
    if (!S)
      return S.takeError();
    uint64_t V;
    if (StringRef(*S).trim().getAsInteger(0, V))
      return err(N, What + ": '" + *S + "' is not a non-negative integer");
    return V;
  }
  /// Iterates a mapping, checking every key against \p Allowed.
  Error mapping(yaml::Node *N, StringRef What,
                ArrayRef<StringRef> Allowed,
                function_ref<Error(StringRef, yaml::Node *)> F) {
    auto *M = dyn_cast_or_null<yaml::MappingNode>(N);
    if (!M)
      return err(N, What + " must be a mapping");
    std::set<std::string> Seen;
    for (auto &KV : *M) {
      auto K = str(KV.getKey(), "key");
      if (!K)
        return K.takeError();
      if (!Allowed.empty() && !is_contained(Allowed, StringRef(*K)))
        return err(KV.getKey(), "unknown key '" + *K + "' in " + What);
      if (!Seen.insert(*K).second)
        return err(KV.getKey(), "duplicate key '" + *K + "' in " + What);
      // checkYAMLSyntax refused a tree with a missing node; this guards a
      // reader that is handed one anyway.
      if (!KV.getValue())
        return err(KV.getKey(), "key '" + *K + "' has no value");
      if (Error E = F(*K, KV.getValue()))
        return E;
    }
    return Error::success();
  }
  Error sequence(yaml::Node *N, StringRef What,
                 function_ref<Error(yaml::Node *)> F) {
    auto *S = dyn_cast_or_null<yaml::SequenceNode>(N);
    if (!S)
      return err(N, What + " must be a list");
    for (yaml::Node &E : *S)
      if (Error Er = F(&E))
        return Er;
    return Error::success();
  }
  Error dims(yaml::Node *N, StringRef What, std::string (&Out)[3]) {
    if (isa<yaml::ScalarNode>(N)) {
      auto S = str(N, What);
      if (!S)
        return S.takeError();
      Out[0] = *S;
      return Error::success();
    }
    unsigned I = 0;
    if (Error E = sequence(N, What, [&](yaml::Node *X) -> Error {
          if (I >= 3)
            return err(X, What + " has more than 3 dimensions");
          auto S = str(X, What);
          if (!S)
            return S.takeError();
          Out[I++] = *S;
          return Error::success();
        }))
      return E;
    if (I == 0)
      return err(N, What + " is empty");
    return Error::success();
  }
  Error scalars(yaml::Node *N);
  Error buffers(yaml::Node *N);
  Error launch(yaml::Node *N, SpecLaunch &L, bool TopLevel, StringRef Key);
  Error launchKeys(StringRef K, yaml::Node *V, SpecLaunch &L);
  Error init(yaml::Node *N, InitSpec &I);
  Error ptrRef(yaml::Node *N, PtrRef &P);
  Error arg(yaml::Node *N, SpecArg &A, bool Raw);
  Error validate();

  std::string Path;
  std::unique_ptr<MemoryBuffer> Buf;
  SourceMgr SM;
  LaunchSpec Spec;
};

} // namespace

Error SpecParser::ptrRef(yaml::Node *N, PtrRef &P) {
  if (auto *S = dyn_cast<yaml::ScalarNode>(N)) {
    SmallString<32> St;
    StringRef V = S->getValue(St);
    if (V == "null" || V == "~" || V.empty()) {
      P.Null = true;
      return Error::success();
    }
    P.Buffer = V.str();
    return Error::success();
  }
  if (isa<yaml::NullNode>(N)) {
    P.Null = true;
    return Error::success();
  }
  return mapping(N, "pointer", {"buffer", "offset"},
                 [&](StringRef K, yaml::Node *V) -> Error {
                   auto S = str(V, K);
                   if (!S)
                     return S.takeError();
                   if (K == "buffer")
                     P.Buffer = *S;
                   else
                     P.Offset = *S;
                   return Error::success();
                 });
}

Error SpecParser::init(yaml::Node *N, InitSpec &I) {
  if (auto *S = dyn_cast<yaml::ScalarNode>(N)) {
    SmallString<32> St;
    StringRef V = S->getValue(St);
    if (V == "zeros")
      I.K = InitSpec::Zeros;
    else if (V == "canary")
      I.K = InitSpec::Canary;
    else
      return err(N, "init must be 'zeros', 'canary' or a mapping");
    return Error::success();
  }
  bool HaveKind = false;
  std::string Dist;
  double Min = NAN, Max = NAN, Mean = 0, Std = 1, Value = 0, Start = 0,
         Step = 1;
  if (Error E = mapping(
          N, "init",
          {"dist", "min", "max", "mean", "std", "value", "start", "step",
           "file", "pointers"},
          [&](StringRef K, yaml::Node *V) -> Error {
            if (K == "dist") {
              auto S = str(V, K);
              if (!S)
                return S.takeError();
              Dist = *S;
              HaveKind = true;
              return Error::success();
            }
            if (K == "file") {
              auto S = str(V, K);
              if (!S)
                return S.takeError();
              I.K = InitSpec::File;
              I.Path = *S;
              HaveKind = true;
              return Error::success();
            }
            if (K == "pointers") {
              I.K = InitSpec::Pointers;
              HaveKind = true;
              return sequence(V, "pointers", [&](yaml::Node *X) -> Error {
                PtrRef P;
                if (Error E = ptrRef(X, P))
                  return E;
                I.Ptrs.push_back(P);
                return Error::success();
              });
            }
            auto D = num(V, K);
            if (!D)
              return D.takeError();
            if (K == "min")
              Min = *D;
            else if (K == "max")
              Max = *D;
            else if (K == "mean")
              Mean = *D;
            else if (K == "std")
              Std = *D;
            else if (K == "value")
              Value = *D;
            else if (K == "start")
              Start = *D;
            else
              Step = *D;
            return Error::success();
          }))
    return E;
  if (!HaveKind)
    return err(N, "init needs 'dist', 'file' or 'pointers'");
  if (I.K == InitSpec::File || I.K == InitSpec::Pointers)
    return Error::success();
  if (Dist == "uniform") {
    I.K = InitSpec::Uniform;
    I.A = std::isnan(Min) ? -1 : Min;
    I.B = std::isnan(Max) ? 1 : Max;
    if (I.A > I.B)
      return err(N, "uniform: min > max");
  } else if (Dist == "normal") {
    I.K = InitSpec::Normal;
    I.A = Mean;
    I.B = Std;
  } else if (Dist == "constant") {
    I.K = InitSpec::Constant;
    I.A = Value;
  } else if (Dist == "iota") {
    I.K = InitSpec::Iota;
    I.A = Start;
    I.B = Step;
  } else if (Dist == "special") {
    I.K = InitSpec::Special;
  } else if (Dist == "permutation") {
    I.K = InitSpec::Permutation;
  } else {
    return err(N, "unknown distribution '" + Dist + "'");
  }
  return Error::success();
}

Error SpecParser::scalars(yaml::Node *N) {
  return mapping(N, "scalars", {}, [&](StringRef Name, yaml::Node *V) -> Error {
    SpecScalar S;
    S.Name = Name.str();
    bool HaveValue = false;
    if (Error E = mapping(
            V, "scalar '" + S.Name + "'",
            {"type", "value", "range", "values", "multiple_of"},
            [&](StringRef K, yaml::Node *X) -> Error {
              if (K == "type") {
                auto T = str(X, K);
                if (!T)
                  return T.takeError();
                auto ET = parseElemType(*T);
                if (!ET || *ET == ElemType::Ptr || *ET == ElemType::FP8 ||
                    *ET == ElemType::BF8)
                  return err(X, "bad scalar type '" + *T + "'");
                S.Type = *ET;
                return Error::success();
              }
              if (K == "value") {
                auto T = str(X, K);
                if (!T)
                  return T.takeError();
                S.Value = *T;
                HaveValue = true;
                return Error::success();
              }
              if (K == "multiple_of") {
                auto U = uint(X, K);
                if (!U)
                  return U.takeError();
                S.MultipleOf = int64_t(*U);
                return Error::success();
              }
              std::vector<double> L;
              if (Error E = sequence(X, K, [&](yaml::Node *Y) -> Error {
                    auto D = num(Y, K);
                    if (!D)
                      return D.takeError();
                    L.push_back(*D);
                    return Error::success();
                  }))
                return E;
              if (K == "range") {
                if (L.size() != 2 || L[0] > L[1])
                  return err(X, "range must be [lo, hi] with lo <= hi");
                S.Range = std::make_pair(L[0], L[1]);
              } else {
                if (L.empty())
                  return err(X, "values is empty");
                S.Values = L;
              }
              return Error::success();
            }))
      return E;
    if (!HaveValue)
      return err(V, "scalar '" + S.Name + "' has no value");
    Spec.Scalars.push_back(S);
    return Error::success();
  });
}

Error SpecParser::buffers(yaml::Node *N) {
  return mapping(N, "buffers", {}, [&](StringRef Name, yaml::Node *V) -> Error {
    SpecBuffer B;
    B.Name = Name.str();
    bool HaveType = false, HaveCount = false, HaveRole = false;
    if (Error E = mapping(
            V, "buffer '" + B.Name + "'",
            {"type", "count", "role", "init", "tolerance", "guard", "align",
             "compare", "nondeterministic", "patch"},
            [&](StringRef K, yaml::Node *X) -> Error {
              if (K == "init")
                return init(X, B.Init);
              if (K == "tolerance")
                return mapping(X, "tolerance", {"ulp", "rel", "abs"},
                               [&](StringRef TK, yaml::Node *Y) -> Error {
                                 auto D = num(Y, TK);
                                 if (!D)
                                   return D.takeError();
                                 if (*D < 0)
                                   return err(Y, "negative tolerance");
                                 (TK == "ulp"   ? B.Tol.Ulp
                                  : TK == "rel" ? B.Tol.Rel
                                                : B.Tol.Abs) = *D;
                                 return Error::success();
                               });
              if (K == "patch")
                return sequence(X, "patch", [&](yaml::Node *Y) -> Error {
                  SpecBuffer::Patch P;
                  bool HaveAt = false;
                  if (Error E = mapping(
                          Y, "patch", {"at", "buffer", "offset"},
                          [&](StringRef PK, yaml::Node *Z) -> Error {
                            auto S = str(Z, PK);
                            if (!S)
                              return S.takeError();
                            if (PK == "at") {
                              P.At = *S;
                              HaveAt = true;
                            } else if (PK == "buffer") {
                              P.P.Buffer = *S;
                            } else {
                              P.P.Offset = *S;
                            }
                            return Error::success();
                          }))
                    return E;
                  if (!HaveAt || P.P.Buffer.empty())
                    return err(Y, "patch needs 'at' and 'buffer'");
                  B.Patches.push_back(P);
                  return Error::success();
                });
              auto S = str(X, K);
              if (!S)
                return S.takeError();
              if (K == "type") {
                auto T = parseElemType(*S);
                if (!T)
                  return err(X, "unknown element type '" + *S + "'");
                B.Type = *T;
                HaveType = true;
              } else if (K == "count") {
                B.Count = *S;
                HaveCount = true;
              } else if (K == "role") {
                HaveRole = true;
                if (*S == "in")
                  B.R = SpecBuffer::In;
                else if (*S == "out")
                  B.R = SpecBuffer::Out;
                else if (*S == "inout")
                  B.R = SpecBuffer::InOut;
                else if (*S == "temp")
                  B.R = SpecBuffer::Temp;
                else
                  return err(X, "role must be in, out, inout or temp");
              } else if (K == "guard" || K == "align") {
                auto U = uint(X, K);
                if (!U)
                  return U.takeError();
                if (K == "guard")
                  B.Guard = *U;
                else if (*U == 0 || (*U & (*U - 1)))
                  return err(X, "align must be a power of two");
                else
                  B.Align = *U;
              } else if (K == "compare" || K == "nondeterministic") {
                bool V = *S == "true";
                if (!V && *S != "false")
                  return err(X, K + " must be true or false");
                (K == "compare" ? B.Compare : B.Nondeterministic) = V;
              }
              return Error::success();
            }))
      return E;
    if (!HaveType || !HaveCount || !HaveRole)
      return err(V, "buffer '" + B.Name + "' needs type, count and role");
    if (B.Tol.any() && !isFloatType(B.Type))
      return err(V, "buffer '" + B.Name + "': tolerance on a non-float type");
    if (B.Nondeterministic && !B.Tol.any())
      return err(V, "buffer '" + B.Name +
                        "': nondeterministic requires a tolerance");
    Spec.Buffers.push_back(std::move(B));
    return Error::success();
  });
}

Error SpecParser::arg(yaml::Node *N, SpecArg &A, bool Raw) {
  if (!Raw) {
    if (isa<yaml::NullNode>(N)) {
      A.K = SpecArg::Null;
      return Error::success();
    }
    if (auto *S = dyn_cast<yaml::ScalarNode>(N)) {
      SmallString<32> St;
      StringRef V = S->getValue(St);
      if (V == "null" || V == "~") {
        A.K = SpecArg::Null;
        return Error::success();
      }
      A.K = SpecArg::Name;
      A.Ref = V.str();
      return Error::success();
    }
  }
  bool HaveType = false;
  std::string Kinds;
  if (Error E = mapping(
          N, Raw ? "kernarg field" : "argument",
          {"at", "buffer", "offset", "scalar", "value", "type", "hidden",
           "null"},
          [&](StringRef K, yaml::Node *V) -> Error {
            auto S = str(V, K);
            if (!S)
              return S.takeError();
            if (K == "at") {
              if (!Raw)
                return err(V, "'at' is only for kernarg fields");
              A.At = *S;
            } else if (K == "buffer") {
              A.K = SpecArg::BufferAt;
              A.Ref = *S;
              Kinds += "buffer ";
            } else if (K == "offset") {
              A.Offset = *S;
            } else if (K == "scalar") {
              A.K = SpecArg::Name;
              A.Ref = *S;
              Kinds += "scalar ";
            } else if (K == "value") {
              A.K = SpecArg::Literal;
              A.Value = *S;
              Kinds += "value ";
            } else if (K == "type") {
              auto T = parseElemType(*S);
              if (!T || *T == ElemType::FP8 || *T == ElemType::BF8)
                return err(V, "bad argument type '" + *S + "'");
              A.Type = *T;
              HaveType = true;
            } else if (K == "hidden") {
              A.K = SpecArg::Hidden;
              A.Ref = *S;
              Kinds += "hidden ";
            } else {
              A.K = SpecArg::Null;
              Kinds += "null ";
            }
            return Error::success();
          }))
    return E;
  if (StringRef(Kinds).count(' ') != 1)
    return err(N, "an argument needs exactly one of buffer, scalar, value, "
                  "hidden, null");
  if (A.K == SpecArg::Literal && !HaveType)
    return err(N, "a literal argument needs a type");
  if (A.K == SpecArg::BufferAt && A.Offset.empty())
    A.Offset = "0";
  if (Raw && A.At.empty())
    return err(N, "a kernarg field needs 'at'");
  return Error::success();
}

Error SpecParser::launchKeys(StringRef K, yaml::Node *V, SpecLaunch &L) {
  if (K == "kernel") {
    auto S = str(V, K);
    if (!S)
      return S.takeError();
    L.Kernel = StringRef(*S).ends_with(".kd") ? S->substr(0, S->size() - 3)
                                              : *S;
    return Error::success();
  }
  if (K == "grid")
    return dims(V, "grid", L.Grid);
  if (K == "block")
    return dims(V, "block", L.Block);
  if (K == "dynamic_lds") {
    auto S = str(V, K);
    if (!S)
      return S.takeError();
    L.DynamicLDS = *S;
    return Error::success();
  }
  if (K == "args") {
    L.Raw = false;
    return sequence(V, "args", [&](yaml::Node *X) -> Error {
      SpecArg A;
      if (Error E = arg(X, A, false))
        return E;
      L.Args.push_back(A);
      return Error::success();
    });
  }
  // kernarg
  L.Raw = true;
  bool HaveSize = false;
  if (Error E = mapping(
          V, "kernarg", {"size", "fields", "hidden"},
          [&](StringRef FK, yaml::Node *X) -> Error {
            if (FK == "size") {
              auto S = str(X, FK);
              if (!S)
                return S.takeError();
              L.KernargSize = *S;
              HaveSize = true;
              return Error::success();
            }
            if (FK == "hidden") {
              auto S = str(X, FK);
              if (!S)
                return S.takeError();
              if (*S != "auto" && *S != "none")
                return err(X, "hidden must be 'auto' or 'none'");
              L.HiddenAuto = *S == "auto";
              return Error::success();
            }
            return sequence(X, "fields", [&](yaml::Node *Y) -> Error {
              SpecArg A;
              if (Error E = arg(Y, A, true))
                return E;
              L.Args.push_back(A);
              return Error::success();
            });
          }))
    return E;
  if (!HaveSize)
    return err(V, "kernarg needs a size");
  return Error::success();
}

Error SpecParser::launch(yaml::Node *N, SpecLaunch &L, bool, StringRef) {
  bool HaveKernel = false, HaveArgs = false, HaveGrid = false,
       HaveBlock = false;
  if (Error E = mapping(N, "launch",
                        {"kernel", "grid", "block", "dynamic_lds", "args",
                         "kernarg"},
                        [&](StringRef K, yaml::Node *V) -> Error {
                          HaveKernel |= K == "kernel";
                          HaveGrid |= K == "grid";
                          HaveBlock |= K == "block";
                          if (K == "args" || K == "kernarg") {
                            if (HaveArgs)
                              return err(V, "a launch has either args or "
                                            "kernarg, not both");
                            HaveArgs = true;
                          }
                          return launchKeys(K, V, L);
                        }))
    return E;
  if (!HaveKernel || !HaveGrid || !HaveBlock || !HaveArgs)
    return err(N, "a launch needs kernel, grid, block and args or kernarg");
  return Error::success();
}

Error SpecParser::validate() {
  std::set<std::string> Names;
  for (const SpecScalar &S : Spec.Scalars)
    if (!Names.insert(S.Name).second)
      return createStringError("%s: name '%s' is defined twice",
                               Path.c_str(), S.Name.c_str());
  for (const SpecBuffer &B : Spec.Buffers)
    if (!Names.insert(B.Name).second)
      return createStringError("%s: name '%s' is defined twice",
                               Path.c_str(), B.Name.c_str());
  auto Known = [&](const std::string &N) { return Names.count(N) != 0; };
  for (size_t LI = 0; LI < Spec.Launches.size(); ++LI)
    for (const SpecArg &A : Spec.Launches[LI].Args) {
      if ((A.K == SpecArg::Name || A.K == SpecArg::BufferAt) && !Known(A.Ref))
        return createStringError("%s: launch %zu: argument '%s' names no "
                                 "scalar or buffer",
                                 Path.c_str(), LI, A.Ref.c_str());
      if (A.K == SpecArg::BufferAt && !Spec.buffer(A.Ref))
        return createStringError("%s: launch %zu: '%s' is not a buffer",
                                 Path.c_str(), LI, A.Ref.c_str());
    }
  for (const SpecBuffer &B : Spec.Buffers) {
    for (const PtrRef &P : B.Init.Ptrs)
      if (!P.Null && !Spec.buffer(P.Buffer))
        return createStringError("%s: buffer '%s': pointer to unknown "
                                 "buffer '%s'",
                                 Path.c_str(), B.Name.c_str(),
                                 P.Buffer.c_str());
    for (const auto &Pt : B.Patches)
      if (!Spec.buffer(Pt.P.Buffer))
        return createStringError("%s: buffer '%s': patch to unknown buffer "
                                 "'%s'",
                                 Path.c_str(), B.Name.c_str(),
                                 Pt.P.Buffer.c_str());
    if (B.Init.K == InitSpec::Pointers && B.Type != ElemType::Ptr)
      return createStringError("%s: buffer '%s': pointers init needs type "
                               "ptr",
                               Path.c_str(), B.Name.c_str());
  }
  for (const auto &V : Spec.Variants)
    for (const auto &KV : V)
      if (!Spec.scalar(KV.first))
        return createStringError("%s: variant sets unknown scalar '%s'",
                                 Path.c_str(), KV.first.c_str());
  for (const auto &KV : Spec.Timing)
    if (!Spec.scalar(KV.first))
      return createStringError("%s: timing sets unknown scalar '%s'",
                               Path.c_str(), KV.first.c_str());
  if (Spec.Launches.empty())
    return createStringError("%s: no launch", Path.c_str());
  return Error::success();
}

Expected<LaunchSpec> SpecParser::run() {
  Spec.Path = Path;
  yaml::Stream Stream(Buf->getMemBufferRef(), SM);
  auto DI = Stream.begin();
  if (DI == Stream.end() || !DI->getRoot())
    return createStringError("%s: empty launch spec", Path.c_str());
  yaml::Node *Root = DI->getRoot();
  bool HaveVersion = false;
  SpecLaunch Top;
  bool TopUsed = false, HaveLaunches = false;
  Error E = mapping(
      Root, "launch spec",
      {"asmevo-launch", "scalars", "buffers", "launches", "variants", "seed",
       "timing", "kernel", "grid", "block", "dynamic_lds", "args", "kernarg"},
      [&](StringRef K, yaml::Node *V) -> Error {
        if (K == "asmevo-launch") {
          auto U = uint(V, K);
          if (!U)
            return U.takeError();
          if (*U == 0 || *U > LaunchSpecVersion)
            return err(V, "launch spec version " + std::to_string(*U) +
                              " is not supported (this reader knows " +
                              std::to_string(LaunchSpecVersion) + ")");
          Spec.Version = unsigned(*U);
          HaveVersion = true;
          return Error::success();
        }
        if (K == "seed") {
          auto U = uint(V, K);
          if (!U)
            return U.takeError();
          Spec.Seed = *U;
          return Error::success();
        }
        if (K == "scalars")
          return scalars(V);
        if (K == "buffers")
          return buffers(V);
        if (K == "launches") {
          HaveLaunches = true;
          return sequence(V, "launches", [&](yaml::Node *X) -> Error {
            SpecLaunch L;
            if (Error E = launch(X, L, false, ""))
              return E;
            Spec.Launches.push_back(L);
            return Error::success();
          });
        }
        if (K == "timing")
          return mapping(V, "timing", {},
                         [&](StringRef TK, yaml::Node *Y) -> Error {
                           auto S = str(Y, TK);
                           if (!S)
                             return S.takeError();
                           Spec.Timing[TK.str()] = *S;
                           return Error::success();
                         });
        if (K == "variants")
          return sequence(V, "variants", [&](yaml::Node *X) -> Error {
            std::map<std::string, std::string> Var;
            if (Error E = mapping(X, "variant", {},
                                  [&](StringRef VK, yaml::Node *Y) -> Error {
                                    auto S = str(Y, VK);
                                    if (!S)
                                      return S.takeError();
                                    Var[VK.str()] = *S;
                                    return Error::success();
                                  }))
              return E;
            Spec.Variants.push_back(Var);
            return Error::success();
          });
        TopUsed = true;
        return launchKeys(K, V, Top);
      });
  if (E)
    return std::move(E);
  if (!HaveVersion)
    return createStringError("%s: missing 'asmevo-launch: %u' (format "
                             "version)",
                             Path.c_str(), LaunchSpecVersion);
  if (TopUsed) {
    if (HaveLaunches)
      return createStringError("%s: top-level launch keys and 'launches' "
                               "cannot be mixed",
                               Path.c_str());
    if (Top.Kernel.empty())
      return createStringError("%s: the launch has no kernel", Path.c_str());
    Spec.Launches.push_back(Top);
  }
  if (Error E2 = validate())
    return std::move(E2);
  return std::move(Spec);
}

Expected<LaunchSpec> LaunchSpec::parse(StringRef Text, StringRef Path) {
  if (Error E = checkYAMLSyntax(Text, Path))
    return std::move(E);
  SpecParser P(Text, Path);
  return P.run();
}

Expected<LaunchSpec> LaunchSpec::load(StringRef Path) {
  auto MB = MemoryBuffer::getFile(Path);
  if (!MB)
    return createStringError(MB.getError(), "cannot read launch spec '%s'",
                             Path.str().c_str());
  return parse((*MB)->getBuffer(), Path);
}
