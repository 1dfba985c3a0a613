//===- Report.cpp ---------------------------------------------------------===//
#include "asmevo/Rewrite/Report.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace asmevo {

static std::string speedupText(const ModuleOutcome &M) {
  const GateResult &G = M.Final;
  if (!M.Bytes)
    return "1.000x (unchanged)";
  if (!G.Speed)
    return "not timed";
  return formatv("{0:F3}x [{1:F3}, {2:F3}, {3:F3}]", G.Speed->BaseSpeedup,
                 G.Speed->Min, G.Speed->Median, G.Speed->Max)
      .str();
}

static std::string verdictText(const ModuleOutcome &M) {
  if (M.Bytes)
    return M.Final.Check == "static" ? "accepted (static only)" : "accepted";
  return "unchanged";
}

static void printAttempts(raw_ostream &OS, ArrayRef<Attempt> As,
                          StringRef Indent) {
  for (const Attempt &A : As)
    if (!A.Changed && A.Built)
      OS << Indent << "[" << join(A.Passes, ",") << "] changed nothing\n";
    else
      OS << Indent << "[" << join(A.Passes, ",") << "] "
         << (A.Gate.Accepted ? "accepted" : "rejected") << " by "
         << A.Gate.Check << ": " << A.Gate.Reason << "\n";
}

void printRunReport(raw_ostream &OS, const RunReport &R) {
  OS << R.Tool << ": " << R.Input << " -> "
     << (R.Output.empty() ? "-" : R.Output) << ", pipeline "
     << (R.Pipeline.empty() ? "(none)" : join(R.Pipeline, ","));
  OS << ", " << (R.Spec.empty() ? "no launch spec" : "spec " + R.Spec)
     << "\n";
  for (const ModuleOutcome &M : R.Modules) {
    OS << "\n" << M.Name << " (" << join(M.Kernels, ", ") << ")\n";
    OS << "  verdict:      " << verdictText(M);
    if (M.Patched)
      OS << ", patched in place (" << M.PatchedInstructions
         << " instructions; nothing else changed)";
    OS << "\n";
    OS << "  passes:       "
       << (M.AcceptedPasses.empty() ? "none accepted"
                                    : join(M.AcceptedPasses, ","))
       << "\n";
    OS << "  instructions: " << M.K0Instructions << " -> " << M.K1Instructions
       << "\n";
    OS << "  VGPRs:        " << M.K0VGPRs << " -> " << M.K1VGPRs << "\n";
    if (M.Final.K0Waves)
      OS << "  waves/SIMD:   " << M.Final.K0Waves << " -> " << M.Final.K1Waves
         << "\n";
    if (M.Final.K0Micros > 0)
      OS << formatv("  time:         {0:F3} us -> {1:F3} us, {2}\n",
                    M.Final.K0Micros, M.Final.K1Micros, M.Final.TimeSource);
    OS << "  speedup:      " << speedupText(M);
    if (M.Final.Speed)
      OS << " (base [min, median, max] over " << M.Final.Speed->Sets + 1
         << " parameter sets, " << M.Final.TimeSource << ")";
    OS << "\n";
    OS << "  why:          " << M.Why << "\n";
    for (const PatchedFunction &F : M.PatchedNonSimple)
      OS << "  patched:      '" << F.Name << "' in place (" << F.Instructions
         << " instructions), as it is not simple: " << F.Reason << "\n";
    for (const PassStat &S : M.Stats)
      OS << formatv("  pass {0,-18} functions {1}, added {2}, removed {3}, "
                    "rewritten {4}\n",
                    S.Pass, S.FunctionsChanged, S.Added, S.Removed,
                    S.Rewritten);
    if (M.Units.size() > 1) {
      // The decision per kernel (with the device functions it reaches).
      unsigned Changed = llvm::count_if(
          M.Units, [](const UnitOutcome &U) { return U.changed(); });
      OS << "  per kernel:   " << Changed << " of " << M.Units.size()
         << " changed\n";
      for (const UnitOutcome &U : M.Units) {
        OS << "    " << U.name() << ": ";
        if (U.changed())
          OS << (U.AcceptedPasses.empty() ? join(U.Passes, ",")
                                          : join(U.AcceptedPasses, ","));
        else
          OS << "unchanged";
        OS << " (" << U.Why << ")\n";
        // A few kernels: what each tried, too.
        if (M.Units.size() <= 8 && U.Attempts.size() > 1) {
          OS << "      attempts:\n";
          printAttempts(OS, U.Attempts, "        ");
        }
      }
    } else if (M.Attempts.size() > 1 || (!M.Bytes && !M.Attempts.empty())) {
      OS << "  attempts:\n";
      printAttempts(OS, M.Attempts, "    ");
    }
  }
  for (const PassThroughObject &P : R.PassThrough)
    OS << "\n" << P.Name << "\n  verdict:      passed through unchanged "
       << "(target " << (P.TargetID.empty() ? "unknown" : P.TargetID)
       << " not optimized by AsmEvo: " << P.Reason << ")\n";
  if (R.TrustStatic)
    OS << "\nnote: --trust-static: the kept candidates were not executed or "
          "timed\n";
}

static json::Value gateJSON(const GateResult &G) {
  json::Object O{{"accepted", G.Accepted},
                 {"check", G.Check},
                 {"reason", G.Reason}};
  if (G.V)
    O["verdict"] = verify::verdictName(*G.V).str();
  if (G.K0Micros > 0) {
    O["k0_us"] = G.K0Micros;
    O["k1_us"] = G.K1Micros;
    O["time_source"] = G.TimeSource;
  }
  if (G.K0Waves) {
    O["k0_waves_per_simd"] = G.K0Waves;
    O["k1_waves_per_simd"] = G.K1Waves;
  }
  if (G.Speed)
    O["speedup"] = json::Object{{"base", G.Speed->BaseSpeedup},
                                {"min", G.Speed->Min},
                                {"median", G.Speed->Median},
                                {"max", G.Speed->Max},
                                {"parameter_sets", G.Speed->Sets + 1},
                                {"robust", G.Speed->Robust},
                                {"source", G.TimeSource}};
  return std::move(O);
}

static json::Array strings(ArrayRef<std::string> V) {
  json::Array A;
  for (const std::string &S : V)
    A.push_back(S);
  return A;
}

json::Value runReportJSON(const RunReport &R) {
  json::Array Mods;
  for (const ModuleOutcome &M : R.Modules) {
    json::Array Stats, Attempts;
    for (const PassStat &S : M.Stats)
      Stats.push_back(json::Object{{"pass", S.Pass},
                                   {"functions_changed", S.FunctionsChanged},
                                   {"added", S.Added},
                                   {"removed", S.Removed},
                                   {"rewritten", S.Rewritten}});
    for (const Attempt &A : M.Attempts) {
      json::Object AO{{"passes", strings(A.Passes)},
                      {"kernels", A.Unit},
                      {"changed", A.Changed},
                      {"gate", gateJSON(A.Gate)}};
      Attempts.push_back(std::move(AO));
    }
    json::Array PerKernel;
    for (const UnitOutcome &U : M.Units) {
      json::Object UO{{"kernels", strings(U.Kernels)},
                      {"functions", strings(U.Functions)},
                      {"changed", U.changed()},
                      {"passes", strings(U.Passes)},
                      {"accepted_passes", strings(U.AcceptedPasses)},
                      {"gate", gateJSON(U.Gate)},
                      {"why", U.Why},
                      {"attempts", (int64_t)U.Attempts.size()}};
      if (R.TrustStatic)
        UO["static_cost"] = json::Object{{"k0", U.K0Cost}, {"k1", U.K1Cost}};
      PerKernel.push_back(std::move(UO));
    }
    json::Array NonSimple;
    for (const PatchedFunction &F : M.PatchedNonSimple)
      NonSimple.push_back(
          json::Object{{"function", F.Name},
                       {"not_simple", F.Reason},
                       {"patched_instructions", (int64_t)F.Instructions}});
    Mods.push_back(json::Object{
        {"code_object", M.Name},
        {"kernels", strings(M.Kernels)},
        {"changed", M.Bytes.has_value()},
        {"patched_in_place", M.Patched},
        {"patched_instructions", M.PatchedInstructions},
        {"patched_non_simple", std::move(NonSimple)},
        {"accepted_passes", strings(M.AcceptedPasses)},
        {"instructions", json::Object{{"k0", M.K0Instructions},
                                      {"k1", M.K1Instructions}}},
        {"vgprs", json::Object{{"k0", M.K0VGPRs}, {"k1", M.K1VGPRs}}},
        {"gate", gateJSON(M.Final)},
        {"why", M.Why},
        {"pass_stats", std::move(Stats)},
        {"per_kernel", std::move(PerKernel)},
        {"attempts", std::move(Attempts)}});
  }
  json::Array Passed;
  for (const PassThroughObject &P : R.PassThrough)
    Passed.push_back(json::Object{{"code_object", P.Name},
                                  {"target_id", P.TargetID},
                                  {"reason", P.Reason}});
  return json::Object{{"asmevo_optimize_report", 1},
                      {"input", R.Input},
                      {"output", R.Output},
                      {"spec", R.Spec},
                      {"pipeline", strings(R.Pipeline)},
                      {"trust_static", R.TrustStatic},
                      {"code_objects", std::move(Mods)},
                      {"passed_through", std::move(Passed)}};
}

} // namespace asmevo
