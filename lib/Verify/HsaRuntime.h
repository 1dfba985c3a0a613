//===- HsaRuntime.h - The HSA runtime, loaded with dlopen -------*- C++ -*-===//
//
// AsmEvo never links the HSA runtime: most machines it runs on have no AMD
// GPU, and the one that has may carry a newer ROCr than the headers we build
// against (Debian 12's libhsa-runtime 5.2.3 predates gfx942). The functions
// the backend calls are resolved once, by name, into this table; their
// types come from the Debian headers, whose C ABI the HSA 1.x runtimes keep.
//
//===----------------------------------------------------------------------===//
#ifndef ASMEVO_LIB_VERIFY_HSARUNTIME_H
#define ASMEVO_LIB_VERIFY_HSARUNTIME_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <memory>
#include <string>

namespace asmevo {
namespace verify {

// Every runtime entry point the backend uses; one table field each.
#define ASMEVO_HSA_FUNCTIONS(X)                                                \
  X(hsa_init)                                                                  \
  X(hsa_shut_down)                                                             \
  X(hsa_status_string)                                                         \
  X(hsa_system_get_info)                                                       \
  X(hsa_iterate_agents)                                                        \
  X(hsa_agent_get_info)                                                        \
  X(hsa_agent_iterate_isas)                                                    \
  X(hsa_isa_get_info_alt)                                                      \
  X(hsa_queue_create)                                                          \
  X(hsa_queue_destroy)                                                         \
  X(hsa_queue_load_read_index_scacquire)                                       \
  X(hsa_queue_add_write_index_screlease)                                       \
  X(hsa_signal_create)                                                         \
  X(hsa_signal_destroy)                                                        \
  X(hsa_signal_store_screlease)                                                \
  X(hsa_signal_wait_scacquire)                                                 \
  X(hsa_code_object_reader_create_from_memory)                                 \
  X(hsa_code_object_reader_destroy)                                            \
  X(hsa_executable_create_alt)                                                 \
  X(hsa_executable_load_agent_code_object)                                     \
  X(hsa_executable_freeze)                                                     \
  X(hsa_executable_destroy)                                                    \
  X(hsa_executable_get_symbol_by_name)                                         \
  X(hsa_executable_symbol_get_info)                                            \
  X(hsa_memory_copy)                                                           \
  X(hsa_amd_agent_iterate_memory_pools)                                        \
  X(hsa_amd_memory_pool_get_info)                                              \
  X(hsa_amd_memory_pool_allocate)                                              \
  X(hsa_amd_memory_pool_free)                                                  \
  X(hsa_amd_agents_allow_access)                                               \
  X(hsa_amd_profiling_set_profiler_enabled)                                    \
  X(hsa_amd_profiling_get_dispatch_time)

/// A loaded (and, after init(), initialised) HSA runtime.
class HsaRuntime {
public:
  /// dlopen()s \p Library and resolves every function of the table; the
  /// error names the library and dlerror(), or the first missing symbol.
  static llvm::Expected<std::unique_ptr<HsaRuntime>>
  load(llvm::StringRef Library);
  ~HsaRuntime();
  HsaRuntime(const HsaRuntime &) = delete;
  HsaRuntime &operator=(const HsaRuntime &) = delete;

  /// hsa_init(); on failure the error says why no GPU can be used (the
  /// runtime reports a missing kernel driver as a resource error).
  llvm::Error init();
  bool initialised() const { return Initialised; }

  /// "HSA_STATUS_ERROR_...: text" for \p S.
  std::string statusString(hsa_status_t S) const;
  /// An error "\p What failed (STATUS: text)" for a failed call.
  llvm::Error fail(llvm::StringRef What, hsa_status_t S) const;

  /// The file the dynamic loader picked (a versioned path when it can tell).
  const std::string &libraryPath() const { return Path; }
  /// "1.1" from hsa_system_get_info (after init()), else "".
  std::string version() const;

#define ASMEVO_HSA_FIELD(Name) decltype(&::Name) Name = nullptr;
  ASMEVO_HSA_FUNCTIONS(ASMEVO_HSA_FIELD)
#undef ASMEVO_HSA_FIELD

private:
  HsaRuntime() = default;
  void *Handle = nullptr;
  std::string Path;
  bool Initialised = false;
};

} // namespace verify
} // namespace asmevo

#endif
