//===- ExprTest.cpp - The launch-spec expression evaluator
//-----------------===//
//
// Every overflow is an error, never a wrapped value or a trap, and nesting
// is bounded (docs/launch-spec.md).
//
//===----------------------------------------------------------------------===//
#include "asmevo/Emulator/LaunchSpec.h"
#include "gtest/gtest.h"
#include <string>

using namespace llvm;
using namespace asmevo::emu;

namespace {

std::string errorOf(StringRef E, const ScalarEnv &Env = {}) {
  auto V = evalExpr(E, Env);
  if (V)
    return "value " + std::to_string(*V);
  return toString(V.takeError());
}

int64_t valueOf(StringRef E, const ScalarEnv &Env = {}) {
  auto V = evalExpr(E, Env);
  EXPECT_TRUE(bool(V)) << (V ? "" : toString(V.takeError()));
  return V ? *V : 0;
}

TEST(Expr, Values) {
  ScalarEnv Env;
  Env["n"] = ScalarValue::ofInt(1000);
  EXPECT_EQ(valueOf("ceil_div(n, 256)", Env), 4);
  EXPECT_EQ(valueOf("align(n, 256)", Env), 1024);
  EXPECT_EQ(valueOf("-(n % 7) * 2", Env), -12);
  EXPECT_EQ(valueOf("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(valueOf("-9223372036854775807 - 1"), INT64_MIN);
  EXPECT_EQ(valueOf("ceil_div(9223372036854775807, 2)"), int64_t(1) << 62);
}

TEST(Expr, OverflowIsAnError) {
  for (const char *E :
       {"(-9223372036854775807 - 1) / -1", "(-9223372036854775807 - 1) % -1",
        "9223372036854775807 + 1", "-9223372036854775807 - 2",
        "4294967296 * 4294967296", "-(-9223372036854775807 - 1)",
        "align(9223372036854775807, 2)", "9223372036854775808"}) {
    std::string Msg = errorOf(E);
    EXPECT_NE(Msg.find("expression '"), std::string::npos) << E << ": " << Msg;
    EXPECT_TRUE(Msg.find("overflows") != std::string::npos ||
                Msg.find("does not fit") != std::string::npos)
        << E << ": " << Msg;
  }
  EXPECT_NE(errorOf("1 % 0").find("division by zero"), std::string::npos);
  EXPECT_NE(errorOf("ceil_div(-1, 2)").find("negative"), std::string::npos);
}

TEST(Expr, NestingIsBounded) {
  auto Nested = [](unsigned D) {
    return std::string(D, '(') + "1" + std::string(D, ')');
  };
  EXPECT_EQ(valueOf(Nested(MaxExprDepth - 1)), 1);
  EXPECT_NE(errorOf(Nested(MaxExprDepth)).find("nested more than"),
            std::string::npos);
  // Deep enough to overflow the stack of a recursive parser without the
  // limit; the error stays one short line.
  std::string Msg = errorOf(Nested(200000));
  EXPECT_NE(Msg.find("nested more than 256 levels deep"), std::string::npos);
  EXPECT_LT(Msg.size(), 300u);
  EXPECT_NE(errorOf(std::string(100000, '-') + "1").find("nested"),
            std::string::npos);
}

} // namespace
