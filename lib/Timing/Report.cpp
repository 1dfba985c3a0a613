//===- Report.cpp - Text and JSON reports of the cycle model --------------===//
#include "asmevo/Timing/Model.h"
#include "llvm/Support/FormatVariadic.h"
#include <algorithm>
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace asmevo;
using namespace asmevo::timing;

const char *const timing::ModelNote = "model (not measured)";

static const char *LevelNames[NumLevels] = {"L1", "L2", "infinity_cache",
                                            "hbm"};

void TimingReport::print(raw_ostream &OS) const {
  OS << "timing: " << ModelNote << ", configuration " << Config
     << (Validated ? "" : " (unvalidated)") << ", "
     << format("%.0f", ClockMHz) << " MHz\n";
  for (size_t I = 0; I < Launches.size(); ++I) {
    const LaunchTiming &L = Launches[I];
    OS << "launch " << I << " '" << L.Kernel << "': ";
    if (!L.Modelable) {
      OS << "not modelable: " << L.NotModelable << "\n";
      continue;
    }
    OS << format("%.0f cycles, %.3f us", L.Cycles, L.Microseconds) << " ("
       << ModelNote << ")\n";
    OS << "  workgroups: " << L.Groups << " on " << L.ActiveCUs
       << " CUs; the modelled CU runs " << L.GroupsOnCU;
    if (L.SampledGroups < L.GroupsOnCU) {
      std::string How =
          L.Extrapolated
              ? std::string("extrapolated at the per-group cost of the "
                            "sample's second half")
              : "scaled by " + formatv("{0:f2}", L.Scale).str();
      OS << ", sampled " << L.SampledGroups << " of them and " << How
         << " (a sample does not show cache-capacity effects across the "
            "whole launch)";
    }
    OS << "\n";
    OS << "  occupancy: " << L.WavesPerSIMD << " waves/SIMD, "
       << L.GroupsPerCU << " workgroups/CU (limited by " << L.Limiter
       << "; " << L.VGPRs << " VGPR+AGPR, " << L.SGPRs << " SGPRs, "
       << L.LdsBytes << " B LDS, " << L.WavesPerGroup << " waves/group)\n";
    double Tot = L.B.total();
    auto Pct = [&](double X) { return Tot > 0 ? 100.0 * X / Tot : 0.0; };
    OS << format("  wave-cycles: issue %.1f%%, dependency %.1f%%, pipeline "
                 "busy %.1f%%, barrier %.1f%%, nop/sleep %.1f%%, taken "
                 "branch %.1f%%\n",
                 Pct(L.B.Issue), Pct(L.B.Dependency), Pct(L.B.Pipeline),
                 Pct(L.B.Barrier), Pct(L.B.NopSleep), Pct(L.B.Branch));
    OS << format("  memory wait: L1 %.1f%%, L2 %.1f%%, Infinity Cache "
                 "%.1f%%, HBM %.1f%%, LDS %.1f%%, scalar %.1f%%\n",
                 Pct(L.B.MemWait[L1]), Pct(L.B.MemWait[L2]),
                 Pct(L.B.MemWait[MALL]), Pct(L.B.MemWait[HBM]),
                 Pct(L.B.LdsWait), Pct(L.B.ScalarWait));
    OS << "  LDS bank-conflict cycles (sample): " << L.LdsConflictCycles
       << "\n";
    OS << format("  lines served (sample): L1 %llu, L2 %llu, Infinity Cache "
                 "%llu, HBM %llu; stores %llu\n",
                 (unsigned long long)L.LevelLines[L1],
                 (unsigned long long)L.LevelLines[L2],
                 (unsigned long long)L.LevelLines[MALL],
                 (unsigned long long)L.LevelLines[HBM],
                 (unsigned long long)L.StoreLines);
    if (L.SharerGroups)
      OS << "  shared L2: " << L.SharedL2Lines << " of the L2 lines were "
         << "fetched by other CUs of the XCD (" << L.SharerGroups
         << " of their workgroups in the sampled rounds traced for "
            "addresses)\n";
    OS << format("  achieved bandwidth: HBM %.2f TB/s, L2 %.2f TB/s (%s)\n",
                 L.HbmTBs, L.L2TBs, ModelNote);
  }
  if (Launches.size() > 1)
    OS << format("total: %.0f cycles, %.3f us (%s)\n", Cycles, Microseconds,
                 ModelNote);
}

void TimingReport::printHotspots(
    raw_ostream &OS, unsigned N,
    function_ref<std::string(uint64_t)> Text) const {
  for (size_t I = 0; I < Launches.size(); ++I) {
    const LaunchTiming &L = Launches[I];
    if (!L.Modelable)
      continue;
    std::vector<InstrCost> V = L.Instrs;
    double Tot = 0;
    for (const InstrCost &C : V)
      Tot += C.Cycles;
    std::sort(V.begin(), V.end(), [](const InstrCost &A, const InstrCost &B) {
      return A.Cycles > B.Cycles;
    });
    OS << "hotspots of launch " << I << " '" << L.Kernel
       << "' (wave-cycles before each instruction issued, modelled CU, "
       << ModelNote << "):\n";
    for (size_t K = 0; K < V.size() && K < N; ++K) {
      const InstrCost &C = V[K];
      OS << format("  0x%06llx %5.1f%% %9llu issued  ", (unsigned long long)C.Addr,
                   Tot > 0 ? 100 * C.Cycles / Tot : 0.0,
                   (unsigned long long)C.Issued);
      std::string R = "-";
      if (!C.Reason.empty())
        R = C.Reason + " " +
            formatv("{0:f0}%", C.Cycles > 0 ? 100 * C.Stalled / C.Cycles : 0.0)
                .str();
      OS << left_justify(R, 22) << " " << Text(C.Addr) << "\n";
    }
  }
}

void TimingReport::writeJSON(json::OStream &J) const {
  J.object([&] {
    J.attribute("source", ModelNote);
    J.attribute("config", Config);
    J.attribute("validated", Validated);
    J.attribute("clock_mhz", ClockMHz);
    J.attribute("modelable", Modelable);
    J.attribute("cycles", Cycles);
    J.attribute("us", Microseconds);
    J.attributeArray("launches", [&] {
      for (const LaunchTiming &L : Launches)
        J.object([&] {
          J.attribute("kernel", L.Kernel);
          J.attribute("modelable", L.Modelable);
          if (!L.Modelable) {
            J.attribute("not_modelable", L.NotModelable);
            return;
          }
          J.attribute("cycles", L.Cycles);
          J.attribute("us", L.Microseconds);
          J.attribute("workgroups", int64_t(L.Groups));
          J.attribute("active_cus", int64_t(L.ActiveCUs));
          J.attribute("groups_on_cu", int64_t(L.GroupsOnCU));
          J.attribute("sampled_groups", int64_t(L.SampledGroups));
          J.attribute("scale", L.Scale);
          J.attribute("extrapolated", L.Extrapolated);
          J.attribute("sharer_groups", int64_t(L.SharerGroups));
          J.attributeObject("occupancy", [&] {
            J.attribute("waves_per_simd", L.WavesPerSIMD);
            J.attribute("groups_per_cu", L.GroupsPerCU);
            J.attribute("limiter", L.Limiter);
          });
          J.attributeObject("wave_cycles", [&] {
            J.attribute("issue", L.B.Issue);
            J.attribute("dependency", L.B.Dependency);
            J.attribute("pipeline", L.B.Pipeline);
            for (unsigned K = 0; K < NumLevels; ++K)
              J.attribute(std::string("mem_") + LevelNames[K],
                          L.B.MemWait[K]);
            J.attribute("lds", L.B.LdsWait);
            J.attribute("scalar", L.B.ScalarWait);
            J.attribute("barrier", L.B.Barrier);
            J.attribute("nop_sleep", L.B.NopSleep);
            J.attribute("branch", L.B.Branch);
          });
          J.attribute("lds_conflict_cycles", int64_t(L.LdsConflictCycles));
          J.attributeObject("lines", [&] {
            for (unsigned K = 0; K < NumLevels; ++K)
              J.attribute(LevelNames[K], int64_t(L.LevelLines[K]));
            J.attribute("stores", int64_t(L.StoreLines));
            J.attribute("L2_shared", int64_t(L.SharedL2Lines));
          });
          J.attribute("hbm_tbs", L.HbmTBs);
          J.attribute("l2_tbs", L.L2TBs);
          J.attribute("instructions_sample", int64_t(L.Instructions));
          J.attributeArray("instructions", [&] {
            for (const InstrCost &C : L.Instrs)
              J.object([&] {
                J.attribute("addr", int64_t(C.Addr));
                J.attribute("issued", int64_t(C.Issued));
                J.attribute("wave_cycles", C.Cycles);
                J.attribute("stalled", C.Stalled);
                J.attribute("reason", C.Reason);
              });
          });
        });
    });
  });
}
