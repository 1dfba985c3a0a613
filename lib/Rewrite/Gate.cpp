//===- Gate.cpp -----------------------------------------------------------===//
#include "asmevo/Rewrite/Gate.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Timing/Config.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;

namespace asmevo {

static constexpr const char *ModelSource = "model (not measured)";

struct GateMemo {
  const CodeObject *K0 = nullptr;
  std::unique_ptr<timing::TracedCodeObject> T0;
  std::optional<timing::TimingReport> R0;
};

std::shared_ptr<GateMemo> makeGateMemo() {
  return std::make_shared<GateMemo>();
}

static emu::SessionOptions timingSession(const GateOptions &O);

/// K0's traced launches and their time, from the memo when it holds them
/// for this K0. The trace is a function of K0, the spec and the options,
/// which do not change during one memo's life.
static Expected<std::pair<const timing::TracedCodeObject *,
                          const timing::TimingReport *>>
tracedK0(const CodeObject &K0, const GateOptions &O,
         const timing::TimingConfig &C,
         std::shared_ptr<GateMemo> &Local) {
  GateMemo *M = O.Memo.get();
  if (!M) {
    Local = makeGateMemo();
    M = Local.get();
  }
  if (M->K0 != &K0) {
    M->T0.reset();
    M->R0.reset();
    M->K0 = &K0;
  }
  if (!M->T0) {
    auto T = timing::traceCodeObject(K0, *O.Spec, timingSession(O), C,
                                     O.MaxSample);
    if (!T)
      return T.takeError();
    M->T0 = std::make_unique<timing::TracedCodeObject>(std::move(*T));
    M->R0 = timing::simulate(M->T0->Run.Launches, C);
  }
  return std::make_pair(M->T0.get(), &*M->R0);
}

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
  std::shared_ptr<GateMemo> Local;
  auto T = tracedK0(CO, O, *C, Local);
  if (!T)
    return T.takeError();
  const timing::TimingReport &R = *T->second;
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
  std::shared_ptr<GateMemo> Local;
  auto K0Trace = tracedK0(K0, O, *C, Local);
  if (!K0Trace)
    return K0Trace.takeError();
  const timing::TracedCodeObject *T0 = K0Trace->first;
  auto T1 = timing::traceCodeObject(K1, *O.Spec, SO, *C, O.MaxSample);
  if (!T1) {
    G.Check = "timing";
    G.Reason = "K1 could not be timed: " + toString(T1.takeError());
    return G;
  }
  const timing::TimingReport &R0 = *K0Trace->second;
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
