//===- Timing.cpp - Timing a launch spec; K0/K1 comparisons ---------------===//
#include "asmevo/Timing/Timing.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/Emulator.h"
#include "asmevo/Emulator/LaunchSession.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::timing;

Expected<TracedRun> timing::traceSession(emu::LaunchSession &S,
                                         const TimingConfig &C,
                                         unsigned MaxSample) {
  TracedRun R;
  R.Collector = std::make_unique<TraceCollector>(C, std::max(1u, MaxSample));
  uint64_t Footprint = 0;
  for (const emu::HostBuffer &B : S.buffers())
    Footprint += B.Initial.size();
  R.Collector->setFootprint(Footprint);
  emu::RunOptions RO;
  RO.Sink = R.Collector.get();
  // Hazard and race checks belong to verification; timing needs the
  // functional result only.
  RO.HazardChecks = false;
  RO.RaceChecks = false;
  RO.ResidentGroups = 8;
  auto Out = S.run(RO);
  if (!Out)
    return Out.takeError();
  for (const emu::LaunchOutcome &LO : *Out)
    R.EmulationSeconds += LO.Result.Seconds;
  for (const emu::LaunchOutcome &LO : *Out)
    for (const emu::Violation &V : LO.Result.Violations) {
      std::string Text;
      raw_string_ostream OS(Text);
      V.print(OS);
      if (V.isFatal())
        return createStringError("kernel '%s' cannot be timed: the emulator "
                                 "stopped it: %s",
                                 LO.Kernel.c_str(), OS.str().c_str());
      R.Warnings.push_back(OS.str());
    }
  R.Launches = std::move(R.Collector->launches());
  return std::move(R);
}

Comparison timing::compare(const std::vector<LaunchTrace> &K0,
                           const std::vector<LaunchTrace> &K1,
                           const TimingConfig &C, unsigned N, uint64_t Seed) {
  Comparison Cmp;
  TimingReport R0 = simulate(K0, C), R1 = simulate(K1, C);
  Cmp.Modelable = R0.Modelable && R1.Modelable;
  Cmp.Base0 = R0.Microseconds;
  Cmp.Base1 = R1.Microseconds;
  if (!Cmp.Modelable || Cmp.Base1 <= 0)
    return Cmp;
  Cmp.BaseSpeedup = Cmp.Base0 / Cmp.Base1;
  std::vector<double> All = {Cmp.BaseSpeedup};
  for (unsigned K = 0; K < N; ++K) {
    TimingConfig P = C.perturbed(Seed + K);
    double A = simulate(K0, P).Microseconds, B = simulate(K1, P).Microseconds;
    Cmp.Speedups.push_back(B > 0 ? A / B : 0);
    All.push_back(Cmp.Speedups.back());
  }
  Cmp.Sets = N;
  std::vector<double> Sorted = All;
  std::sort(Sorted.begin(), Sorted.end());
  Cmp.Min = Sorted.front();
  Cmp.Max = Sorted.back();
  Cmp.Median = Sorted.size() % 2
                   ? Sorted[Sorted.size() / 2]
                   : 0.5 * (Sorted[Sorted.size() / 2 - 1] +
                            Sorted[Sorted.size() / 2]);
  Cmp.Robust = N > 0 && Cmp.Min >= 1.01;
  Cmp.RobustlySlower = N > 0 && Cmp.Max <= 1 / 1.01;
  return Cmp;
}

void Comparison::print(raw_ostream &OS) const {
  if (!Modelable) {
    OS << "speedup: not modelable (see the reports above)\n";
    return;
  }
  OS << format("speedup K0/K1: %.4fx (%.3f us -> %.3f us, model (not "
               "measured))\n",
               BaseSpeedup, Base0, Base1);
  if (!Sets) {
    OS << "robustly faster: not assessed (use --sensitivity N)\n";
    return;
  }
  OS << format("sensitivity: %u perturbed parameter sets + the base: min "
               "%.4fx, median %.4fx, max %.4fx\n",
               Sets, Min, Median, Max);
  OS << "robustly faster: " << (Robust ? "yes" : "no")
     << " (needs >= 1% faster under every set)\n";
  if (RobustlySlower)
    OS << "robustly slower: yes (>= 1% slower under every set)\n";
}

void Comparison::writeJSON(json::OStream &J) const {
  J.object([&] {
    J.attribute("modelable", Modelable);
    J.attribute("us_k0", Base0);
    J.attribute("us_k1", Base1);
    J.attribute("speedup", BaseSpeedup);
    J.attribute("sets", Sets);
    J.attributeArray("speedups", [&] {
      for (double S : Speedups)
        J.value(S);
    });
    J.attribute("min", Min);
    J.attribute("median", Median);
    J.attribute("max", Max);
    J.attribute("robustly_faster", Robust);
    J.attribute("robustly_slower", RobustlySlower);
    J.attribute("source", "model (not measured)");
  });
}

Expected<TracedCodeObject>
asmevo::timing::traceCodeObject(const CodeObject &CO, const emu::LaunchSpec &Spec,
                                const emu::SessionOptions &SO,
                                const TimingConfig &C, unsigned MaxSample) {
  TracedCodeObject T;
  auto Emu = emu::Emulator::create(CO);
  if (!Emu)
    return Emu.takeError();
  T.Emu = std::move(*Emu);
  auto S = emu::LaunchSession::create(Spec, *T.Emu, SO);
  if (!S)
    return S.takeError();
  T.Session = std::move(*S);
  auto R = traceSession(*T.Session, C, MaxSample);
  if (!R)
    return createStringError("%s: %s", CO.name().str().c_str(),
                             toString(R.takeError()).c_str());
  T.Run = std::move(*R);
  return std::move(T);
}
