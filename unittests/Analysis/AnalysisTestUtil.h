//===- AnalysisTestUtil.h - Shared helpers for Analysis tests ---*- C++ -*-===//
#ifndef ASMEVO_UNITTESTS_ANALYSIS_UTIL_H
#define ASMEVO_UNITTESTS_ANALYSIS_UTIL_H

#include "asmevo/Analysis/ISAFacts.h"
#include "asmevo/Support/TargetContext.h"
#include "gtest/gtest.h"
#include <map>
#include <memory>
#include <string>

namespace asmevo {
namespace test {

/// One TargetContext + ISAFacts per processor for the whole test run.
struct TestTarget {
  std::unique_ptr<TargetContext> TC;
  std::unique_ptr<ISAFacts> Facts;
  unsigned op(llvm::StringRef Name) const {
    unsigned Opc = TC->opcode(Name);
    EXPECT_NE(Opc, ~0u) << "no opcode " << Name.str();
    return Opc;
  }
  const OpcodeFacts &facts(llvm::StringRef Name) const {
    return Facts->get(op(Name));
  }
  /// Register by assembler name ("s2", "v[0:15]", "vcc"). TargetContext::reg
  /// goes through MCInstPrinter::printRegName, which AMDGPU implements as
  /// the register number, so the tests map names to LLVM's own names.
  llvm::MCRegister reg(llvm::StringRef Asm) const {
    const llvm::MCRegisterInfo &MRI = TC->regInfo();
    std::string Name;
    auto File = [&](char C) {
      return C == 's' ? "SGPR" : C == 'v' ? "VGPR" : "AGPR";
    };
    unsigned Lo, Hi;
    if (Asm.size() > 1 && llvm::StringRef("sva").contains(Asm[0]) &&
        Asm[1] == '[') {
      auto [L, H] = Asm.drop_front(2).drop_back().split(':');
      if (L.getAsInteger(10, Lo) || H.getAsInteger(10, Hi))
        return {};
      for (unsigned I = Lo; I <= Hi; ++I)
        Name += (I == Lo ? "" : "_") + std::string(File(Asm[0])) +
                std::to_string(I);
    } else if (Asm.size() > 1 && llvm::StringRef("sva").contains(Asm[0]) &&
               !Asm.drop_front().getAsInteger(10, Lo)) {
      Name = File(Asm[0]) + std::to_string(Lo);
    } else {
      Name = Asm.upper();
    }
    for (unsigned R = 1; R < MRI.getNumRegs(); ++R)
      if (Name == MRI.getName(R))
        return llvm::MCRegister(R);
    return {};
  }
};

inline TestTarget &target(const std::string &Proc) {
  static std::map<std::string, TestTarget> Cache;
  auto It = Cache.find(Proc);
  if (It != Cache.end())
    return It->second;
  initializeAMDGPUTarget();
  TargetInfo TI;
  TI.Processor = Proc;
  TI.Xnack = TargetFeature::Off;
  auto TC = TargetContext::create(TI);
  if (!TC) {
    ADD_FAILURE() << llvm::toString(TC.takeError());
    std::abort();
  }
  TestTarget &T = Cache[Proc];
  T.TC = std::move(*TC);
  T.Facts = std::make_unique<ISAFacts>(*T.TC);
  return T;
}

} // namespace test
} // namespace asmevo

#endif
