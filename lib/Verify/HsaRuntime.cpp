//===- HsaRuntime.cpp - dlopen, symbol table, hsa_init --------------------===//
#include "HsaRuntime.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::verify;

Expected<std::unique_ptr<HsaRuntime>> HsaRuntime::load(StringRef Library) {
  std::string Lib = Library.str();
  dlerror();
  // RTLD_LOCAL: the runtime's own dependencies (libhsakmt, libelf) must not
  // leak symbols into LLVM's.
  void *H = dlopen(Lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!H) {
    const char *Why = dlerror();
    return createStringError("no AMD GPU can be used: cannot load the HSA "
                             "runtime '%s': %s",
                             Lib.c_str(), Why ? Why : "unknown dlopen error");
  }
  std::unique_ptr<HsaRuntime> R(new HsaRuntime());
  R->Handle = H;
  R->Path = Lib;
  struct link_map *LM = nullptr;
  if (dlinfo(H, RTLD_DI_LINKMAP, &LM) == 0 && LM && LM->l_name &&
      *LM->l_name) {
    SmallString<256> Real;
    R->Path = sys::fs::real_path(LM->l_name, Real) ? std::string(LM->l_name)
                                                   : std::string(Real);
  }
#define ASMEVO_HSA_RESOLVE(Name)                                               \
  R->Name = reinterpret_cast<decltype(R->Name)>(dlsym(H, #Name));              \
  if (!R->Name)                                                                \
    return createStringError("the HSA runtime '%s' has no function '%s' (too " \
                             "old?)",                                          \
                             R->Path.c_str(), #Name);
  ASMEVO_HSA_FUNCTIONS(ASMEVO_HSA_RESOLVE)
#undef ASMEVO_HSA_RESOLVE
  return std::move(R);
}

HsaRuntime::~HsaRuntime() {
  if (Initialised)
    hsa_shut_down();
  // The library stays mapped: ROCr registers atexit handlers and thread
  // destructors, and unmapping it under them is unsafe.
}

std::string HsaRuntime::statusString(hsa_status_t S) const {
  const char *Str = nullptr;
  if (hsa_status_string && hsa_status_string(S, &Str) == HSA_STATUS_SUCCESS &&
      Str)
    return Str;
  char Buf[32];
  snprintf(Buf, sizeof(Buf), "HSA status 0x%x", unsigned(S));
  return Buf;
}

Error HsaRuntime::fail(StringRef What, hsa_status_t S) const {
  return createStringError("%s failed (%s)", What.str().c_str(),
                           statusString(S).c_str());
}

Error HsaRuntime::init() {
  hsa_status_t S = hsa_init();
  if (S == HSA_STATUS_SUCCESS) {
    Initialised = true;
    return Error::success();
  }
  // The status text is a paragraph; its first part (the status name) is
  // what fits in a one-line message.
  std::string Name = StringRef(statusString(S)).split(':').first.str();
  // Without the amdgpu kernel driver, ROCr cannot open /dev/kfd and reports
  // HSA_STATUS_ERROR_OUT_OF_RESOURCES, which alone would mislead.
  const char *Kfd = "/dev/kfd";
  std::string Why;
  if (!sys::fs::exists(Kfd))
    Why = "/dev/kfd is missing (no amdgpu kernel driver)";
  else if (access(Kfd, R_OK | W_OK) != 0)
    Why = "/dev/kfd is not readable and writable by this user (is it in the "
          "'render' group?)";
  else
    Why = statusString(S);
  return createStringError("no AMD GPU found: HSA runtime initialisation "
                           "failed (%s): %s",
                           Name.c_str(), Why.c_str());
}

std::string HsaRuntime::version() const {
  if (!Initialised)
    return "";
  uint16_t Major = 0, Minor = 0;
  if (hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MAJOR, &Major) !=
          HSA_STATUS_SUCCESS ||
      hsa_system_get_info(HSA_SYSTEM_INFO_VERSION_MINOR, &Minor) !=
          HSA_STATUS_SUCCESS)
    return "";
  return std::to_string(Major) + "." + std::to_string(Minor);
}
