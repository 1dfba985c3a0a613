//===- FuzzLaunchSpec.cpp - Launch specs and their expressions ------------===//
//
// A launch spec (YAML) is parsed and validated; its scalars' defaults form
// the environment in which every expression it holds (counts, grids,
// offsets) is evaluated. The input's first line is also evaluated as an
// expression on its own, so the evaluator sees arbitrary text too.
//
//===----------------------------------------------------------------------===//
#include "FuzzCommon.h"
#include "asmevo/Emulator/LaunchSpec.h"

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  StringRef Text = fuzz::asStringRef(Data, Size);
  ScalarEnv Env{{"n", ScalarValue::ofInt(1000)},
                {"m", ScalarValue::ofInt(-7)},
                {"x", ScalarValue::ofFloat(2.5)}};
  fuzz::ignore(evalExpr(Text.split('\n').first, Env));
  auto S = LaunchSpec::parse(Text, "fuzz.yaml");
  if (!S) {
    consumeError(S.takeError());
    return 0;
  }
  // In declaration order, as a session binds them; what does not evaluate
  // as an integer (floats) is left out.
  for (const SpecScalar &Sc : S->Scalars)
    if (auto V = evalExpr(Sc.Value, Env))
      Env[Sc.Name] = ScalarValue::ofInt(*V);
    else
      consumeError(V.takeError());
  for (const SpecBuffer &B : S->Buffers)
    fuzz::ignore(evalExpr(B.Count, Env));
  for (const SpecLaunch &L : S->Launches) {
    for (const std::string *E : {&L.Grid[0], &L.Grid[1], &L.Grid[2],
                                 &L.Block[0], &L.Block[1], &L.Block[2],
                                 &L.DynamicLDS, &L.KernargSize})
      fuzz::ignore(evalExpr(*E, Env));
  }
  return 0;
}
