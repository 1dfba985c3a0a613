//===- Gate.h - Accept a candidate only if it is the same and faster -*- C++ -*-//
//
// The gate judges a rebuilt code object K1 against the original K0 on the
// user's launch spec: `equivalent` from the verifier (every edited
// instruction executed), then "robustly faster" from the cycle model under
// its perturbed parameter sets (or, on --backend=hsa, the hardware). The
// static checks (no introduced hazard or waitcnt violation) ran before,
// in the pipeline (PipelineOptions::VerifyEach).
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_REWRITE_GATE_H
#define ASMEVO_REWRITE_GATE_H

#include "asmevo/Timing/Timing.h"
#include "asmevo/Verify/Verifier.h"
#include <memory>
#include <optional>
#include <string>

namespace asmevo {
class CodeObject;
struct GateMemo;

/// What the gate computes from K0 alone (its traced launches at the timing
/// size and their modelled time), kept for the next candidate gated
/// against the same K0 with the same options: the subset search gates
/// many. Owned by the caller, one per K0 (optimizeCodeObject makes one).
std::shared_ptr<GateMemo> makeGateMemo();

struct GateOptions {
  /// None: nothing can be run; candidates pass only with TrustStatic.
  const emu::LaunchSpec *Spec = nullptr;
  bool TrustStatic = false;
  verify::VerifyOptions Verify;
  std::string TimingConfig = "mi300x";
  unsigned Sensitivity = 8;
  uint64_t SensitivitySeed = 1;
  unsigned MaxSample = 16;
  /// K0's trace and time across calls (makeGateMemo); none: computed
  /// afresh each time.
  std::shared_ptr<GateMemo> Memo;
};

struct GateResult {
  bool Accepted = false;
  /// The check that decided: "static", "verify" or "timing".
  std::string Check;
  std::string Reason;
  std::optional<verify::Verdict> V;
  std::optional<timing::Comparison> Speed;
  /// Model figures of K0 and K1 at the spec's timing size.
  double K0Micros = 0, K1Micros = 0;
  unsigned K0Waves = 0, K1Waves = 0; ///< Waves per SIMD (first launch).
  /// The verifier's edited instructions, one line each ("K0 0x.. 'text'
  /// -> K1 0x.. 'text'").
  std::vector<std::string> Edits;
  /// Where the time came from: "model (not measured)", or nothing timed.
  std::string TimeSource;
};

/// K1 against K0 with \p Map (K1 address -> K0 address).
llvm::Expected<GateResult> runGate(const CodeObject &K0, const CodeObject &K1,
                                   const verify::AddressMap &Map,
                                   const GateOptions &O);

/// The model's time of \p CO alone (for kernels the gate left unchanged).
llvm::Expected<GateResult> timeOnly(const CodeObject &CO,
                                    const GateOptions &O);

} // namespace asmevo

#endif
