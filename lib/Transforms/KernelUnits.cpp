//===- KernelUnits.cpp ----------------------------------------------------===//
#include "asmevo/Transforms/KernelUnits.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/CodeGen/MachineFunction.h"
#include "llvm/IR/Function.h"
#include <map>

using namespace llvm;

namespace asmevo {

std::string KernelUnit::name() const {
  return join(Kernels.empty() ? Functions : Kernels, ", ");
}

/// The MachineIR a pass may edit: a simple function's, or a patch-only
/// one's (edits to it become byte patches).
static const MachineFunction *editable(const LiftedFunction &LF) {
  return LF.MF ? LF.MF : LF.PatchMF;
}

/// Edges of the reference graph: for each editable function (by index),
/// the editable functions its instructions name (calls, and addresses taken
/// with s_getpc + offset, which is how a call target is formed).
static std::vector<std::vector<size_t>> references(const LiftedModule &LM) {
  const auto &Fns = LM.functions();
  DenseMap<const Function *, size_t> Index;
  for (size_t I = 0; I < Fns.size(); ++I)
    if (editable(Fns[I]) && Fns[I].IRFunc)
      Index[Fns[I].IRFunc] = I;
  std::vector<std::vector<size_t>> Out(Fns.size());
  for (size_t I = 0; I < Fns.size(); ++I) {
    if (!editable(Fns[I]))
      continue;
    for (const MachineBasicBlock &MBB : *editable(Fns[I]))
      for (const MachineInstr &MI : MBB)
        for (const MachineOperand &MO : MI.operands())
          if (MO.isGlobal())
            if (const auto *F = dyn_cast<Function>(MO.getGlobal())) {
              auto It = Index.find(F);
              if (It != Index.end() && It->second != I &&
                  !is_contained(Out[I], It->second))
                Out[I].push_back(It->second);
            }
  }
  return Out;
}

std::vector<KernelUnit> kernelUnits(const LiftedModule &LM) {
  const auto &Fns = LM.functions();
  auto Refs = references(LM);
  EquivalenceClasses<size_t> EC;
  for (size_t I = 0; I < Fns.size(); ++I)
    if (editable(Fns[I])) {
      EC.insert(I);
      for (size_t J : Refs[I])
        EC.unionSets(I, J);
    }
  // Leader -> unit, numbered by the first member in file order.
  std::map<size_t, size_t> UnitOf;
  std::vector<KernelUnit> Units;
  for (size_t I = 0; I < Fns.size(); ++I) {
    if (!editable(Fns[I]))
      continue;
    size_t Leader = EC.getLeaderValue(I);
    auto [It, New] = UnitOf.try_emplace(Leader, Units.size());
    if (New)
      Units.emplace_back();
    KernelUnit &U = Units[It->second];
    U.Functions.push_back(Fns[I].Range.Name);
    if (Fns[I].Range.IsKernel)
      U.Kernels.push_back(Fns[I].Range.Name);
  }
  return Units;
}

std::set<std::string> reachedFunctions(const LiftedModule &LM,
                                       ArrayRef<std::string> Kernels) {
  const auto &Fns = LM.functions();
  auto Refs = references(LM);
  std::vector<size_t> Work;
  std::vector<bool> Seen(Fns.size(), false);
  for (size_t I = 0; I < Fns.size(); ++I)
    if (editable(Fns[I]) && Fns[I].Range.IsKernel &&
        is_contained(Kernels, Fns[I].Range.Name)) {
      Seen[I] = true;
      Work.push_back(I);
    }
  std::set<std::string> Out;
  while (!Work.empty()) {
    size_t I = Work.back();
    Work.pop_back();
    Out.insert(Fns[I].Range.Name);
    for (size_t J : Refs[I])
      if (!Seen[J]) {
        Seen[J] = true;
        Work.push_back(J);
      }
  }
  return Out;
}

} // namespace asmevo
