//===- Main.cpp - AsmEvoEmulatorTests entry -------------------------------===//
//
// --print-tested lists the mnemonics the per-instruction cases cover and
// exits (input of `asmevo-verify coverage --tested`).
//
//===----------------------------------------------------------------------===//
#include "gtest/gtest.h"
#include <cstring>

void printTestedMnemonics();

int main(int argc, char **argv) {
  for (int I = 1; I < argc; ++I)
    if (!std::strcmp(argv[I], "--print-tested")) {
      printTestedMnemonics();
      return 0;
    }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
