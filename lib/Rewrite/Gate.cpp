//===- Gate.cpp -----------------------------------------------------------===//
#include "asmevo/Rewrite/Gate.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Timing/Config.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace asmevo {

static constexpr const char *ModelSource = "model (not measured)";

static emu::SessionOptions timingSession(const GateOptions &O) {
  emu::SessionOptions SO;
  // The spec's timing: entry is the size users care about; verification
  // ran the small sizes.
  SO.Overrides = O.Spec->Timing;
  SO.MaxDeviceMemory = O.Verify.MaxDeviceMemory;
  return SO;
}

Expected<GateResult> timeOnly(const CodeObject &CO, const GateOptions &O) {
  GateResult G;
  if (!O.Spec)
    return G;
  auto C = timing::TimingConfig::load(O.TimingConfig);
  if (!C)
    return C.takeError();
  auto T = timing::traceCodeObject(CO, *O.Spec, timingSession(O), *C,
                                   O.MaxSample);
  if (!T)
    return T.takeError();
  timing::TimingReport R = timing::simulate(T->Run.Launches, *C);
  G.K0Micros = G.K1Micros = R.Microseconds;
  if (!R.Launches.empty())
    G.K0Waves = G.K1Waves = R.Launches.front().WavesPerSIMD;
  G.TimeSource = ModelSource;
  return G;
}

Expected<GateResult> runGate(const CodeObject &K0, const CodeObject &K1,
                             const verify::AddressMap &Map,
                             const GateOptions &O) {
  GateResult G;
  if (!O.Spec) {
    G.Check = "static";
    G.Accepted = O.TrustStatic;
    G.Reason = O.TrustStatic
                   ? "--trust-static: static checks only, nothing executed "
                     "or timed"
                   : "no launch spec: nothing can be executed or timed "
                     "(--spec, or --trust-static)";
    return G;
  }
  verify::VerifyOptions VO = O.Verify;
  VO.Map = &Map;
  VO.CheckCoverage = true;
  auto Rep = verify::verify(K0, K1, *O.Spec, VO);
  if (!Rep)
    return Rep.takeError();
  G.V = Rep->V;
  for (const verify::EditedInstruction &E : Rep->Edits.Edits) {
    std::string L;
    raw_string_ostream OS(L);
    if (E.K0Addr)
      OS << "K0 " << format_hex(*E.K0Addr, 0) << " '" << E.K0Text << "'";
    else
      OS << "(added)";
    OS << " -> ";
    if (E.K == verify::EditedInstruction::Removed)
      OS << "(removed)";
    else
      OS << "K1 " << format_hex(E.K1Addr, 0) << " '" << E.K1Text << "'";
    G.Edits.push_back(L);
  }
  if (Rep->V != verify::Verdict::Equivalent) {
    G.Check = "verify";
    G.Reason = (verify::verdictName(Rep->V) + ": " + Rep->Reason).str();
    return G;
  }
  auto C = timing::TimingConfig::load(O.TimingConfig);
  if (!C)
    return C.takeError();
  emu::SessionOptions SO = timingSession(O);
  auto T0 = timing::traceCodeObject(K0, *O.Spec, SO, *C, O.MaxSample);
  if (!T0)
    return T0.takeError();
  auto T1 = timing::traceCodeObject(K1, *O.Spec, SO, *C, O.MaxSample);
  if (!T1) {
    G.Check = "timing";
    G.Reason = "K1 could not be timed: " + toString(T1.takeError());
    return G;
  }
  timing::TimingReport R0 = timing::simulate(T0->Run.Launches, *C);
  timing::TimingReport R1 = timing::simulate(T1->Run.Launches, *C);
  G.K0Micros = R0.Microseconds;
  G.K1Micros = R1.Microseconds;
  if (!R0.Launches.empty() && !R1.Launches.empty()) {
    G.K0Waves = R0.Launches.front().WavesPerSIMD;
    G.K1Waves = R1.Launches.front().WavesPerSIMD;
  }
  G.TimeSource = ModelSource;
  G.Speed = timing::compare(T0->Run.Launches, T1->Run.Launches, *C,
                            O.Sensitivity, O.SensitivitySeed);
  G.Check = "timing";
  if (!G.Speed->Modelable) {
    G.Reason = "the launch is not modelable (spin-waits or cross-workgroup "
               "atomics decide its time)";
    return G;
  }
  if (!G.Speed->Robust) {
    G.Reason = formatv("not robustly faster: {0:F3}x (min {1:F3}x, max "
                       "{2:F3}x over {3} parameter sets; needs >= 1.01x "
                       "under every one)",
                       G.Speed->BaseSpeedup, G.Speed->Min, G.Speed->Max,
                       G.Speed->Sets + 1)
                   .str();
    return G;
  }
  G.Accepted = true;
  G.Reason = formatv("equivalent, robustly faster: {0:F3}x (min {1:F3}x)",
                     G.Speed->BaseSpeedup, G.Speed->Min)
                 .str();
  return G;
}

} // namespace asmevo
