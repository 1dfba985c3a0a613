//===- Expr.cpp - Recursive-descent evaluator for launch-spec expressions -===//
#include "Expr.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include <limits>

using namespace llvm;
using namespace asmevo::suite;

namespace {
class Parser {
public:
  Parser(StringRef Text, NameLookup Lookup) : Text(Text), Lookup(Lookup) {}

  Expected<int64_t> parse() {
    Expected<int64_t> V = sum();
    if (!V)
      return V;
    skipSpace();
    if (Pos != Text.size())
      return error("unexpected '" + Text.substr(Pos, 1) + "'");
    return V;
  }

private:
  StringRef Text;
  NameLookup Lookup;
  size_t Pos = 0;

  Error error(const Twine &Msg) const {
    return createStringError(inconvertibleErrorCode(),
                             "expression '" + Text + "': " + Msg +
                                 " at offset " + Twine(Pos));
  }
  void skipSpace() {
    while (Pos < Text.size() && isSpace(Text[Pos]))
      ++Pos;
  }
  bool consume(char C) {
    skipSpace();
    if (Pos < Text.size() && Text[Pos] == C) {
      ++Pos;
      return true;
    }
    return false;
  }

  Expected<int64_t> sum() {
    Expected<int64_t> L = product();
    if (!L)
      return L;
    int64_t V = *L;
    for (;;) {
      bool Add = consume('+');
      if (!Add && !consume('-'))
        return V;
      Expected<int64_t> R = product();
      if (!R)
        return R;
      V = Add ? (int64_t)((uint64_t)V + (uint64_t)*R)
              : (int64_t)((uint64_t)V - (uint64_t)*R);
    }
  }

  Expected<int64_t> product() {
    Expected<int64_t> L = unary();
    if (!L)
      return L;
    int64_t V = *L;
    for (;;) {
      char Op = 0;
      for (char C : {'*', '/', '%'})
        if (consume(C)) {
          Op = C;
          break;
        }
      if (!Op)
        return V;
      Expected<int64_t> R = unary();
      if (!R)
        return R;
      if (Op == '*') {
        V = (int64_t)((uint64_t)V * (uint64_t)*R);
        continue;
      }
      if (*R == 0)
        return error("division by zero");
      if (V == std::numeric_limits<int64_t>::min() && *R == -1)
        return error("division overflow");
      V = Op == '/' ? V / *R : V % *R;
    }
  }

  Expected<int64_t> unary() {
    if (consume('-')) {
      Expected<int64_t> V = unary();
      if (!V)
        return V;
      return (int64_t)(0 - (uint64_t)*V);
    }
    if (consume('+'))
      return unary();
    return primary();
  }

  Expected<int64_t> primary() {
    skipSpace();
    if (consume('(')) {
      Expected<int64_t> V = sum();
      if (!V)
        return V;
      if (!consume(')'))
        return error("expected ')'");
      return V;
    }
    if (Pos < Text.size() && isDigit(Text[Pos])) {
      size_t Start = Pos;
      while (Pos < Text.size() && isAlnum(Text[Pos]))
        ++Pos;
      StringRef Lit = Text.slice(Start, Pos);
      uint64_t V;
      if (Lit.getAsInteger(0, V)) // decimal or 0x hex
        return error("bad integer literal '" + Lit + "'");
      return (int64_t)V;
    }
    if (Pos < Text.size() && (isAlpha(Text[Pos]) || Text[Pos] == '_')) {
      size_t Start = Pos;
      while (Pos < Text.size() && (isAlnum(Text[Pos]) || Text[Pos] == '_'))
        ++Pos;
      StringRef Name = Text.slice(Start, Pos);
      if (consume('('))
        return call(Name);
      if (std::optional<int64_t> V = Lookup(Name))
        return *V;
      return error("unknown integer scalar '" + Name + "'");
    }
    return error(Pos < Text.size() ? "unexpected '" + Text.substr(Pos, 1) + "'"
                                   : Twine("unexpected end"));
  }

  Expected<int64_t> call(StringRef Fn) {
    Expected<int64_t> A = sum();
    if (!A)
      return A;
    if (!consume(','))
      return error("'" + Fn + "' takes two arguments");
    Expected<int64_t> B = sum();
    if (!B)
      return B;
    if (!consume(')'))
      return error("expected ')'");
    if (Fn == "min")
      return std::min(*A, *B);
    if (Fn == "max")
      return std::max(*A, *B);
    if (Fn == "ceil_div" || Fn == "align") {
      if (*B <= 0)
        return error("'" + Fn + "' needs a positive divisor");
      int64_t Q = *A >= 0 ? (*A + *B - 1) / *B : *A / *B;
      return Fn == "ceil_div" ? Q : Q * *B;
    }
    return error("unknown function '" + Fn + "'");
  }
};
} // namespace

Expected<int64_t> asmevo::suite::evalExpr(StringRef Text, NameLookup Lookup) {
  return Parser(Text, Lookup).parse();
}
