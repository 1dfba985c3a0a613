//===- HsaBackend.h - Running launch specs on an AMD GPU --------*- C++ -*-===//
//
// The `hsa` backend of asmevo-verify: the same LaunchSession the emulator
// runs (same scalars, same initial buffer bytes, same kernarg layout) is
// dispatched on a real GPU through the HSA runtime, which is loaded with
// dlopen at run time and never linked. Buffers come back as bytes, with
// guard bands checked, plus the kernel time of each launch from the
// runtime's profiling timestamps (a hardware measurement, unlike the
// emulator's host seconds).
//
// HONESTY NOTE: no machine AsmEvo was developed on has an AMD GPU. Against
// the real ROCr, only loading the library and a failing hsa_init have run
// (test/Verify/hsa-no-gpu.test). Agent discovery, pools, buffers, kernarg,
// packet writing and teardown run against a fake runtime
// (test/Verify/hsa-mock-runtime.test), which proves the host side is
// self-consistent, not that ROCr and a GPU accept what it submits. The
// dispatch path has never executed on hardware.
//
// Debian 12's libhsa-runtime64 (ROCr 5.2.3) knows gfx90a but not gfx942;
// on an MI300 point the backend at a ROCm >= 6 runtime with the
// ASMEVO_HSA_RUNTIME environment variable or the tools' --hsa-runtime.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_VERIFY_HSABACKEND_H
#define ASMEVO_VERIFY_HSABACKEND_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace asmevo {
class CodeObject;
namespace emu {
class LaunchSession;
}

namespace verify {

/// $ASMEVO_HSA_RUNTIME if set, else "libhsa-runtime64.so.1": the library
/// every function below loads when it is given "" (a tool's unset
/// --hsa-runtime).
std::string defaultHsaRuntime();

struct HsaAgentInfo {
  std::string Name;    ///< HSA_AGENT_INFO_NAME ("gfx942")
  std::string Product; ///< Marketing name, when the runtime has one.
  bool IsGPU = false;
  unsigned ComputeUnits = 0;
  std::vector<std::string> ISAs; ///< "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"
};

struct HsaSystemInfo {
  std::string Library; ///< The file that was loaded.
  std::string Version; ///< HSA API version, "1.1".
  std::vector<HsaAgentInfo> Agents;
};

/// Loads and initialises the runtime and lists its agents (asmevo-verify
/// hsa-info). Fails only when the runtime cannot be loaded or initialised;
/// a system without a GPU agent is a successful answer.
llvm::Expected<HsaSystemInfo>
queryHsaSystem(llvm::StringRef Library = "");

/// Success when \p Info lists a GPU agent, else the one-line "no AMD GPU
/// found (HSA runtime VERSION, LIBRARY: N agents, none is a GPU)".
llvm::Error requireGPU(const HsaSystemInfo &Info);

/// Whether a device ISA name can run a code object of \p TargetID (same
/// processor; an xnack/sramecc setting of the code object other than "any"
/// must match the device's).
bool isaRunsTarget(llvm::StringRef ISA, llvm::StringRef TargetID);

struct HsaLaunchTime {
  std::string Kernel;
  uint64_t StartTicks = 0, EndTicks = 0; ///< HSA system clock domain.
  double Seconds = 0;                    ///< (End - Start) / frequency.
};

struct HsaRunResult {
  std::string Device; ///< Agent name and ISA.
  std::vector<HsaLaunchTime> Launches;
  /// Guard bands the kernels overwrote (same wording as the emulator's).
  std::vector<std::string> GuardErrors;
  /// Labels the times for receipts: where they come from.
  static constexpr const char *Measurement =
      "hardware: hsa_amd_profiling_get_dispatch_time (GPU packet start to "
      "completion, HSA system clock)";
};

struct HsaRunOptions {
  /// Longest wait for one dispatch before giving up.
  double TimeoutSeconds = 60;
};

/// An initialised runtime and one GPU agent able to run a given target.
class HsaDevice {
public:
  /// Loads \p Library, initialises it and picks the first GPU agent whose
  /// ISA runs \p TargetID. Every failure is one line and is an environment
  /// problem (exit status 4 in the tools): the library cannot be loaded,
  /// hsa_init fails, "no AMD GPU found (...)", or no GPU of that target.
  static llvm::Expected<std::unique_ptr<HsaDevice>>
  open(llvm::StringRef TargetID,
       llvm::StringRef Library = "");
  ~HsaDevice();

  /// Runs every launch of \p S (created for \p CO; its buffers' Initial
  /// bytes are what the device gets, exactly as the emulator would) and
  /// leaves the results in each HostBuffer's Bytes. Fresh device buffers
  /// and a fresh executable every call: nothing is reused between runs.
  llvm::Expected<HsaRunResult> run(const CodeObject &CO,
                                   emu::LaunchSession &S,
                                   const HsaRunOptions &O = {});

  const std::string &agentName() const;
  const std::string &isaName() const;
  const std::string &runtimeVersion() const;

  struct Impl;

private:
  explicit HsaDevice(std::unique_ptr<Impl> P);
  std::unique_ptr<Impl> P;
};

} // namespace verify
} // namespace asmevo

#endif
