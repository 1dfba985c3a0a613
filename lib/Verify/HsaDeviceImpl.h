//===- HsaDeviceImpl.h - State of an open HSA device ------------*- C++ -*-===//
//
// Shared by HsaBackend.cpp (opening) and HsaDispatch.cpp (running); kept out
// of the public header so nothing outside lib/Verify needs the HSA headers.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_VERIFY_HSADEVICEIMPL_H
#define ASMEVO_LIB_VERIFY_HSADEVICEIMPL_H

#include "HsaRuntime.h"
#include "asmevo/Verify/HsaBackend.h"
#include <atomic>
#include <memory>
#include <vector>

namespace asmevo {
namespace verify {

struct AgentRecord {
  hsa_agent_t Handle;
  HsaAgentInfo Info;
};

/// Every agent of an initialised runtime, with its name, type and ISAs.
llvm::Expected<std::vector<AgentRecord>> listAgents(HsaRuntime &R);

struct HsaDevice::Impl {
  ~Impl();
  std::unique_ptr<HsaRuntime> RT; // destroyed last: shuts the runtime down
  hsa_agent_t Agent{};
  std::vector<hsa_agent_t> CPUs;
  std::string AgentName, ISA, Version;
  hsa_amd_memory_pool_t BufferPool{}; ///< GPU memory for spec buffers.
  hsa_amd_memory_pool_t KernargPool{};
  hsa_amd_memory_pool_t HostPool{};   ///< Staging for copies.
  uint64_t TimestampHz = 0;
  hsa_queue_t *Queue = nullptr;
  /// Set by the queue's error callback (runtime thread).
  std::atomic<hsa_status_t> QueueStatus{HSA_STATUS_SUCCESS};
};

} // namespace verify
} // namespace asmevo

#endif
