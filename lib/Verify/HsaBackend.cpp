//===- HsaBackend.cpp - Runtime, agents, memory pools, target matching ----===//
//
// Opening a device: load and initialise the runtime, find the GPU agent for
// the code object's target, and the memory pools the dispatch path
// (HsaDispatch.cpp) allocates from. Everything here is exercised on machines
// without a GPU up to the point where agents are listed; picking pools has
// never run on hardware (see the note in HsaBackend.h).
//
//===----------------------------------------------------------------------===//
#include "HsaDeviceImpl.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include <cstdlib>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::verify;

std::string verify::defaultHsaRuntime() {
  if (const char *E = std::getenv("ASMEVO_HSA_RUNTIME"))
    if (*E)
      return E;
  return "libhsa-runtime64.so.1";
}

namespace {
struct TargetIDParts {
  std::string Processor;
  SmallVector<std::pair<std::string, char>, 2> Features; ///< name, '+'/'-'
};

/// "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-" or "gfx942:xnack-"
/// (AMDGPUUsage, "Target ID").
TargetIDParts parseTargetID(StringRef ID) {
  TargetIDParts P;
  size_t Dash = ID.rfind("--");
  if (Dash != StringRef::npos)
    ID = ID.drop_front(Dash + 2);
  SmallVector<StringRef, 4> Parts;
  ID.split(Parts, ':');
  P.Processor = Parts[0].str();
  for (StringRef F : ArrayRef(Parts).drop_front())
    if (F.size() > 1 && (F.back() == '+' || F.back() == '-'))
      P.Features.push_back({F.drop_back().str(), F.back()});
  return P;
}

std::string agentString(HsaRuntime &R, hsa_agent_t A,
                        hsa_agent_info_t What) {
  // HSA_AGENT_INFO_NAME and the AMD product name are 64-byte fields.
  char Buf[65] = {};
  if (R.hsa_agent_get_info(A, What, Buf) != HSA_STATUS_SUCCESS)
    return "";
  return StringRef(Buf, strnlen(Buf, 64)).trim().str();
}
} // namespace

bool verify::isaRunsTarget(StringRef ISA, StringRef TargetID) {
  TargetIDParts Dev = parseTargetID(ISA), CO = parseTargetID(TargetID);
  if (Dev.Processor != CO.Processor)
    return false;
  for (auto &[Name, Sign] : CO.Features)
    for (auto &[DName, DSign] : Dev.Features)
      if (DName == Name && DSign != Sign)
        return false;
  return true;
}

Expected<std::vector<AgentRecord>> verify::listAgents(HsaRuntime &R) {
  std::vector<hsa_agent_t> Handles;
  auto Collect = [](hsa_agent_t A, void *D) {
    static_cast<std::vector<hsa_agent_t> *>(D)->push_back(A);
    return HSA_STATUS_SUCCESS;
  };
  if (hsa_status_t S = R.hsa_iterate_agents(Collect, &Handles))
    return R.fail("hsa_iterate_agents", S);
  std::vector<AgentRecord> Out;
  for (hsa_agent_t A : Handles) {
    AgentRecord Rec;
    Rec.Handle = A;
    Rec.Info.Name = agentString(R, A, HSA_AGENT_INFO_NAME);
    Rec.Info.Product = agentString(
        R, A, hsa_agent_info_t(HSA_AMD_AGENT_INFO_PRODUCT_NAME));
    hsa_device_type_t Type = HSA_DEVICE_TYPE_CPU;
    if (R.hsa_agent_get_info(A, HSA_AGENT_INFO_DEVICE, &Type) ==
        HSA_STATUS_SUCCESS)
      Rec.Info.IsGPU = Type == HSA_DEVICE_TYPE_GPU;
    uint32_t CUs = 0;
    if (R.hsa_agent_get_info(
            A, hsa_agent_info_t(HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT), &CUs) ==
        HSA_STATUS_SUCCESS)
      Rec.Info.ComputeUnits = CUs;
    struct IsaCtx {
      HsaRuntime *R;
      std::vector<std::string> *Names;
    } Ctx{&R, &Rec.Info.ISAs};
    auto OneIsa = [](hsa_isa_t I, void *D) {
      auto &C = *static_cast<IsaCtx *>(D);
      uint32_t Len = 0;
      if (C.R->hsa_isa_get_info_alt(I, HSA_ISA_INFO_NAME_LENGTH, &Len) ==
              HSA_STATUS_SUCCESS &&
          Len > 0 && Len < 4096) {
        std::string N(Len, '\0');
        if (C.R->hsa_isa_get_info_alt(I, HSA_ISA_INFO_NAME, N.data()) ==
            HSA_STATUS_SUCCESS)
          C.Names->push_back(StringRef(N.c_str()).str());
      }
      return HSA_STATUS_SUCCESS;
    };
    // CPU agents have no ISA in ROCr; a failure here is not an error.
    (void)R.hsa_agent_iterate_isas(A, OneIsa, &Ctx);
    Out.push_back(std::move(Rec));
  }
  return Out;
}

namespace {
/// A loaded, initialised runtime, its agents, and what they say about the
/// system (hsa-info and HsaDevice::open both start here).
struct StartedRuntime {
  std::unique_ptr<HsaRuntime> R;
  std::vector<AgentRecord> Agents;
  HsaSystemInfo Info;
};
} // namespace

static Expected<StartedRuntime> startRuntime(StringRef Library) {
  auto R = HsaRuntime::load(Library.empty() ? StringRef(defaultHsaRuntime())
                                            : Library);
  if (!R)
    return R.takeError();
  if (Error E = (*R)->init())
    return std::move(E);
  auto Agents = listAgents(**R);
  if (!Agents)
    return Agents.takeError();
  StartedRuntime S;
  S.Info.Library = (*R)->libraryPath();
  S.Info.Version = (*R)->version();
  for (const AgentRecord &A : *Agents)
    S.Info.Agents.push_back(A.Info);
  S.R = std::move(*R);
  S.Agents = std::move(*Agents);
  return S;
}

Expected<HsaSystemInfo> verify::queryHsaSystem(StringRef Library) {
  auto S = startRuntime(Library);
  if (!S)
    return S.takeError();
  return std::move(S->Info);
}

Error verify::requireGPU(const HsaSystemInfo &Info) {
  if (any_of(Info.Agents, [](const HsaAgentInfo &A) { return A.IsGPU; }))
    return Error::success();
  return createStringError("no AMD GPU found (HSA runtime %s, %s: %zu "
                           "agents, none is a GPU)",
                           Info.Version.c_str(), Info.Library.c_str(),
                           Info.Agents.size());
}

namespace {
struct PoolQuery {
  HsaRuntime *R;
  bool WantKernarg;
  bool PreferCoarse;
  std::optional<hsa_amd_memory_pool_t> Best;
  bool BestIsPreferred = false;
};

hsa_status_t considerPool(hsa_amd_memory_pool_t Pool, void *D) {
  auto &Q = *static_cast<PoolQuery *>(D);
  hsa_amd_segment_t Seg;
  bool Alloc = false;
  uint32_t Flags = 0;
  if (Q.R->hsa_amd_memory_pool_get_info(Pool, HSA_AMD_MEMORY_POOL_INFO_SEGMENT,
                                        &Seg) != HSA_STATUS_SUCCESS ||
      Seg != HSA_AMD_SEGMENT_GLOBAL)
    return HSA_STATUS_SUCCESS;
  if (Q.R->hsa_amd_memory_pool_get_info(
          Pool, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED, &Alloc) !=
          HSA_STATUS_SUCCESS ||
      !Alloc)
    return HSA_STATUS_SUCCESS;
  if (Q.R->hsa_amd_memory_pool_get_info(
          Pool, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS, &Flags) !=
      HSA_STATUS_SUCCESS)
    return HSA_STATUS_SUCCESS;
  if (Q.WantKernarg && !(Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT))
    return HSA_STATUS_SUCCESS;
  bool Preferred =
      !Q.PreferCoarse || (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED);
  if (!Q.Best || (Preferred && !Q.BestIsPreferred)) {
    Q.Best = Pool;
    Q.BestIsPreferred = Preferred;
  }
  return HSA_STATUS_SUCCESS;
}

std::optional<hsa_amd_memory_pool_t>
findPool(HsaRuntime &R, ArrayRef<AgentRecord> Agents, bool OnGPU,
         hsa_agent_t GPU, bool Kernarg, bool PreferCoarse) {
  PoolQuery Q{&R, Kernarg, PreferCoarse, std::nullopt, false};
  if (OnGPU) {
    R.hsa_amd_agent_iterate_memory_pools(GPU, considerPool, &Q);
    return Q.Best;
  }
  for (const AgentRecord &A : Agents)
    if (!A.Info.IsGPU) {
      R.hsa_amd_agent_iterate_memory_pools(A.Handle, considerPool, &Q);
      if (Q.Best)
        return Q.Best;
    }
  return std::nullopt;
}

void queueError(hsa_status_t S, hsa_queue_t *, void *Data) {
  static_cast<HsaDevice::Impl *>(Data)->QueueStatus.store(S);
}
} // namespace

HsaDevice::HsaDevice(std::unique_ptr<Impl> P) : P(std::move(P)) {}

HsaDevice::Impl::~Impl() {
  if (Queue)
    RT->hsa_queue_destroy(Queue);
  // ~HsaRuntime shuts the runtime down.
}

HsaDevice::~HsaDevice() = default;

const std::string &HsaDevice::agentName() const { return P->AgentName; }
const std::string &HsaDevice::isaName() const { return P->ISA; }
const std::string &HsaDevice::runtimeVersion() const { return P->Version; }

Expected<std::unique_ptr<HsaDevice>> HsaDevice::open(StringRef TargetID,
                                                     StringRef Library) {
  auto Started = startRuntime(Library);
  if (!Started)
    return Started.takeError();
  const HsaSystemInfo &Sys = Started->Info;
  if (Error E = requireGPU(Sys))
    return std::move(E);
  HsaRuntime &RT = *Started->R;
  const std::vector<AgentRecord> &Agents = Started->Agents;
  std::string Version = Sys.Version;
  std::string Runtime = "HSA runtime " + Version + ", " + Sys.Library;
  std::vector<std::string> Found;
  const AgentRecord *Pick = nullptr;
  std::string PickISA;
  for (const AgentRecord &A : Agents) {
    if (!A.Info.IsGPU)
      continue;
    for (const std::string &I : A.Info.ISAs) {
      Found.push_back(I);
      if (!Pick && isaRunsTarget(I, TargetID)) {
        Pick = &A;
        PickISA = I;
      }
    }
    if (A.Info.ISAs.empty())
      Found.push_back(A.Info.Name + " (no ISA reported)");
  }
  if (!Pick)
    return createStringError("no AMD GPU here runs %s (%s; GPU ISAs found: "
                             "%s)",
                             TargetID.str().c_str(), Runtime.c_str(),
                             join(Found, ", ").c_str());

  auto I = std::make_unique<Impl>();
  I->Agent = Pick->Handle;
  I->AgentName = Pick->Info.Name;
  I->ISA = PickISA;
  I->Version = Version;
  auto BufPool = findPool(RT, Agents, true, I->Agent, false, true);
  auto ArgPool = findPool(RT, Agents, false, I->Agent, true, false);
  auto HostPool = findPool(RT, Agents, false, I->Agent, false, false);
  if (!BufPool || !ArgPool || !HostPool)
    return createStringError(
        "GPU %s: the HSA runtime offers no %s memory pool the runtime may "
        "allocate from",
        PickISA.c_str(),
        !BufPool ? "device" : !ArgPool ? "kernarg" : "host");
  I->BufferPool = *BufPool;
  I->KernargPool = *ArgPool;
  I->HostPool = *HostPool;
  for (const AgentRecord &A : Agents)
    if (!A.Info.IsGPU)
      I->CPUs.push_back(A.Handle);
  uint32_t MaxQ = 0;
  if (hsa_status_t S = RT.hsa_agent_get_info(
          I->Agent, HSA_AGENT_INFO_QUEUE_MAX_SIZE, &MaxQ))
    return RT.fail("hsa_agent_get_info(QUEUE_MAX_SIZE)", S);
  if (hsa_status_t S = RT.hsa_system_get_info(
          HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &I->TimestampHz))
    return RT.fail("hsa_system_get_info(TIMESTAMP_FREQUENCY)", S);
  I->RT = std::move(Started->R);
  // One packet in flight at a time; a small queue is enough (the size must
  // be a power of two no larger than the agent's maximum).
  uint32_t QSize = std::min<uint32_t>(MaxQ, 64);
  if (hsa_status_t S = I->RT->hsa_queue_create(
          I->Agent, QSize, HSA_QUEUE_TYPE_SINGLE, queueError, I.get(),
          UINT32_MAX, UINT32_MAX, &I->Queue))
    return I->RT->fail("hsa_queue_create", S);
  if (hsa_status_t S =
          I->RT->hsa_amd_profiling_set_profiler_enabled(I->Queue, 1))
    return I->RT->fail("hsa_amd_profiling_set_profiler_enabled", S);
  return std::unique_ptr<HsaDevice>(new HsaDevice(std::move(I)));
}
