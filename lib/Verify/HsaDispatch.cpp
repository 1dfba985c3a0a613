//===- HsaDispatch.cpp - Running a LaunchSession on an HSA GPU ------------===//
//
// UNTESTED ON HARDWARE: this file compiles against ROCr's headers and
// follows the HSA 1.x Runtime specification (code object readers and
// executables, AQL kernel dispatch packets, "Architected Queuing Language")
// and ROCr's AMD extensions (memory pools, profiling), but no machine it
// was written on had an AMD GPU. Expect to debug it on the first one.
//
// One run: load the code object into a fresh executable; allocate every
// spec buffer in the GPU's memory pool with guard bands on both sides;
// copy initial bytes and guard patterns in through host staging memory;
// per launch, write the kernarg segment into the kernarg pool, submit one
// kernel dispatch packet, wait on its completion signal and read its
// profiling timestamps; finally copy every buffer back and check guards.
//
//===----------------------------------------------------------------------===//
#include "HsaDeviceImpl.h"
#include "asmevo/CodeObject/CodeObject.h"
#include "asmevo/Emulator/Emulator.h"
#include "asmevo/Emulator/KernelMetadata.h"
#include "asmevo/Emulator/LaunchSession.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"
#include <hsa/amd_hsa_queue.h>
#include <chrono>
#include <cstring>
#include <optional>

using namespace llvm;
using namespace asmevo;
using namespace asmevo::emu;
using namespace asmevo::verify;

namespace {

/// Frees whatever a run allocated, on every path out of run().
class RunResources {
public:
  explicit RunResources(HsaRuntime &R) : R(R) {}
  ~RunResources() {
    for (hsa_signal_t S : Signals)
      R.hsa_signal_destroy(S);
    for (void *P : Allocs)
      R.hsa_amd_memory_pool_free(P);
    if (Exec)
      R.hsa_executable_destroy(*Exec);
    if (Reader)
      R.hsa_code_object_reader_destroy(*Reader);
  }

  Expected<uint8_t *> allocate(hsa_amd_memory_pool_t Pool, size_t Size,
                               const Twine &What) {
    void *P = nullptr;
    if (hsa_status_t S =
            R.hsa_amd_memory_pool_allocate(Pool, std::max<size_t>(Size, 1),
                                           0, &P))
      return R.fail("allocating " + What.str() + " (" + std::to_string(Size) +
                        " bytes)",
                    S);
    Allocs.push_back(P);
    return static_cast<uint8_t *>(P);
  }

  HsaRuntime &R;
  std::vector<void *> Allocs;
  std::vector<hsa_signal_t> Signals;
  std::optional<hsa_executable_t> Exec;
  std::optional<hsa_code_object_reader_t> Reader;
};

/// Where one spec buffer lives on the device: [Region, Region + RegionSize)
/// is guard, data at Addr, guard.
struct DeviceBuffer {
  uint8_t *Region = nullptr;
  uint64_t RegionSize = 0;
  uint64_t Addr = 0;
  uint64_t Guard = 0;
  uint8_t GuardByte = 0;
};

/// Kernel-object facts the dispatch packet needs, from the executable.
struct KernelSymbol {
  uint64_t Object = 0;
  uint32_t KernargSize = 0, GroupSize = 0, PrivateSize = 0;
};

Expected<KernelSymbol> findKernel(HsaRuntime &R, hsa_executable_t E,
                                  hsa_agent_t Agent, StringRef CO,
                                  const std::string &Name) {
  std::string Sym = Name + ".kd";
  hsa_executable_symbol_t S;
  if (hsa_status_t St =
          R.hsa_executable_get_symbol_by_name(E, Sym.c_str(), &Agent, &S))
    return R.fail(CO.str() + ": finding kernel symbol '" + Sym + "'", St);
  KernelSymbol K;
  struct {
    hsa_executable_symbol_info_t What;
    void *Out;
    const char *Name;
  } Q[] = {
      {HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &K.Object, "KERNEL_OBJECT"},
      {HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE, &K.KernargSize,
       "KERNARG_SEGMENT_SIZE"},
      {HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE, &K.GroupSize,
       "GROUP_SEGMENT_SIZE"},
      {HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE, &K.PrivateSize,
       "PRIVATE_SEGMENT_SIZE"},
  };
  for (auto &E2 : Q)
    if (hsa_status_t St = R.hsa_executable_symbol_get_info(S, E2.What, E2.Out))
      return R.fail(CO.str() + ": kernel '" + Name + "': symbol info " +
                        E2.Name,
                    St);
  return K;
}

/// The emulator's kernarg holds its own aperture bases and a null queue
/// pointer; on hardware the kernel needs the device's (AMDGPUUsage, "Code
/// Object V5 Metadata", hidden_private_base / hidden_shared_base /
/// hidden_queue_ptr). Only values LaunchSession put there are replaced, so
/// a spec's explicit fields stay as written.
void patchHiddenArgs(const CodeObject &CO, const std::string &Kernel,
                     hsa_queue_t *Q, MutableArrayRef<uint8_t> Seg) {
  const KernelInfo *K = CO.findKernel(Kernel);
  if (!K)
    return;
  auto MD = readKernelMetadata(CO, *K);
  if (!MD) {
    consumeError(MD.takeError());
    return;
  }
  const amd_queue_t *AQ = reinterpret_cast<const amd_queue_t *>(Q);
  for (const KernelArg &A : MD->Args) {
    if (A.Offset + A.Size > Seg.size())
      continue;
    uint8_t *At = Seg.data() + A.Offset;
    auto Replace = [&](uint64_t Emu, uint64_t Dev) {
      uint64_t Cur = 0;
      unsigned N = std::min<unsigned>(A.Size, 8);
      std::memcpy(&Cur, At, N);
      if (Cur == Emu)
        std::memcpy(At, &Dev, N);
    };
    if (A.ValueKind == "hidden_private_base")
      Replace(PrivateApertureBase >> 32, AQ->private_segment_aperture_base_hi);
    else if (A.ValueKind == "hidden_shared_base")
      Replace(SharedApertureBase >> 32, AQ->group_segment_aperture_base_hi);
    else if (A.ValueKind == "hidden_queue_ptr")
      Replace(0, reinterpret_cast<uint64_t>(Q));
  }
}

} // namespace

Expected<HsaRunResult> HsaDevice::run(const CodeObject &CO, LaunchSession &S,
                                      const HsaRunOptions &O) {
  HsaRuntime &R = *P->RT;
  RunResources Res(R);
  std::string CName = CO.name().str();
  P->QueueStatus.store(HSA_STATUS_SUCCESS);

  // The code object: the reader keeps a pointer into CO.image(), which
  // outlives this call.
  ArrayRef<uint8_t> Image = CO.image();
  hsa_code_object_reader_t Reader;
  if (hsa_status_t St = R.hsa_code_object_reader_create_from_memory(
          Image.data(), Image.size(), &Reader))
    return R.fail(CName + ": hsa_code_object_reader_create_from_memory", St);
  Res.Reader = Reader;
  hsa_executable_t Exec;
  if (hsa_status_t St = R.hsa_executable_create_alt(
          HSA_PROFILE_FULL, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, nullptr,
          &Exec))
    return R.fail("hsa_executable_create_alt", St);
  Res.Exec = Exec;
  if (hsa_status_t St = R.hsa_executable_load_agent_code_object(
          Exec, P->Agent, Reader, nullptr, nullptr))
    return R.fail(CName + ": loading the code object on " + P->ISA, St);
  if (hsa_status_t St = R.hsa_executable_freeze(Exec, nullptr))
    return R.fail(CName + ": hsa_executable_freeze", St);

  // Device buffers with guard bands. Pool allocations are page aligned;
  // the extra Align bytes let a larger spec alignment be honoured too.
  std::vector<HostBuffer> &Bufs = S.buffers();
  std::vector<DeviceBuffer> Dev(Bufs.size());
  std::vector<uint64_t> Addrs;
  uint64_t MaxRegion = 0;
  for (size_t I = 0; I < Bufs.size(); ++I) {
    const SpecBuffer &Spec = *Bufs[I].Spec;
    uint64_t Align = std::max<uint64_t>(Spec.Align, 1);
    uint64_t Size = Bufs[I].Initial.size();
    DeviceBuffer &D = Dev[I];
    D.Guard = Spec.Guard;
    D.GuardByte = uint8_t(0xA5 ^ (I * 0x3B)) ? uint8_t(0xA5 ^ (I * 0x3B))
                                             : uint8_t(0x5A);
    auto Base = Res.allocate(P->BufferPool, Size + 2 * D.Guard + Align,
                             "buffer '" + Spec.Name + "'");
    if (!Base)
      return Base.takeError();
    uint64_t B = reinterpret_cast<uint64_t>(*Base);
    D.Addr = alignTo(B + D.Guard, Align);
    D.Region = reinterpret_cast<uint8_t *>(D.Addr - D.Guard);
    D.RegionSize = Size + 2 * D.Guard;
    MaxRegion = std::max(MaxRegion, D.RegionSize);
    Addrs.push_back(D.Addr);
  }
  auto Launches = S.prepareDeviceRun(Addrs);
  if (!Launches)
    return Launches.takeError();

  // hsa_memory_copy wants memory the runtime knows on both sides: staging
  // comes from a host pool the GPU may access.
  auto Staging = Res.allocate(P->HostPool, MaxRegion, "host staging memory");
  if (!Staging)
    return Staging.takeError();
  if (hsa_status_t St = R.hsa_amd_agents_allow_access(1, &P->Agent, nullptr,
                                                      *Staging))
    return R.fail("hsa_amd_agents_allow_access (staging)", St);
  for (size_t I = 0; I < Bufs.size(); ++I) {
    DeviceBuffer &D = Dev[I];
    std::memset(*Staging, D.GuardByte, D.RegionSize);
    if (!Bufs[I].Bytes.empty())
      std::memcpy(*Staging + D.Guard, Bufs[I].Bytes.data(),
                  Bufs[I].Bytes.size());
    if (hsa_status_t St = R.hsa_memory_copy(D.Region, *Staging, D.RegionSize))
      return R.fail("copying buffer '" + Bufs[I].Spec->Name +
                        "' to the device",
                    St);
  }

  HsaRunResult Result;
  Result.Device = P->AgentName + " (" + P->ISA + ")";
  for (size_t LI = 0; LI < Launches->size(); ++LI) {
    DeviceLaunch &L = (*Launches)[LI];
    const LaunchParams &LP = L.Params;
    auto Fail = [&](const Twine &Msg) {
      return createStringError("%s: launch %zu ('%s'): %s", CName.c_str(), LI,
                               LP.Kernel.c_str(), Msg.str().c_str());
    };
    auto K = findKernel(R, Exec, P->Agent, CName, LP.Kernel);
    if (!K)
      return K.takeError();
    uint64_t ArgBytes = alignTo(
        std::max<uint64_t>({L.Kernarg.size(), K->KernargSize, 1}), 64);
    auto Arg = Res.allocate(P->KernargPool, ArgBytes,
                            "the kernarg segment of launch " +
                                std::to_string(LI));
    if (!Arg)
      return Arg.takeError();
    if (hsa_status_t St =
            R.hsa_amd_agents_allow_access(1, &P->Agent, nullptr, *Arg))
      return R.fail("hsa_amd_agents_allow_access (kernarg)", St);
    patchHiddenArgs(CO, LP.Kernel, P->Queue, L.Kernarg);
    std::memset(*Arg, 0, ArgBytes);
    std::memcpy(*Arg, L.Kernarg.data(), L.Kernarg.size());

    uint32_t GridItems[3];
    for (unsigned D = 0; D < 3; ++D) {
      uint64_t G = uint64_t(LP.Grid[D]) * LP.Block[D];
      if (G > UINT32_MAX)
        return Fail("grid of " + Twine(G) + " work-items in dimension " +
                    Twine(D) + " exceeds the dispatch packet's 32 bits");
      GridItems[D] = uint32_t(G);
    }
    unsigned Dims = GridItems[2] > 1 ? 3 : GridItems[1] > 1 ? 2 : 1;
    uint32_t Private = K->PrivateSize;
    auto MDK = CO.findKernel(LP.Kernel);
    if (MDK) {
      auto MD = readKernelMetadata(CO, *MDK);
      // A dynamic stack needs scratch the metadata cannot size; HIP's
      // default stack limit per work-item is 1024 bytes.
      if (MD && MD->UsesDynamicStack)
        Private = std::max<uint32_t>(Private, 1024);
      if (!MD)
        consumeError(MD.takeError());
    }

    hsa_signal_t Done;
    if (hsa_status_t St = R.hsa_signal_create(1, 0, nullptr, &Done))
      return R.fail("hsa_signal_create", St);
    Res.Signals.push_back(Done);

    hsa_queue_t *Q = P->Queue;
    uint64_t Index = R.hsa_queue_add_write_index_screlease(Q, 1);
    while (Index - R.hsa_queue_load_read_index_scacquire(Q) >= Q->size)
      ; // the queue is full: only possible if an earlier packet is stuck
    auto *Pkt = static_cast<hsa_kernel_dispatch_packet_t *>(Q->base_address) +
                (Index & (Q->size - 1));
    // Everything but the header first; the header is published last with
    // release order so the packet processor never sees a half-written one.
    std::memset(reinterpret_cast<uint8_t *>(Pkt) + 4, 0, sizeof(*Pkt) - 4);
    Pkt->workgroup_size_x = uint16_t(LP.Block[0]);
    Pkt->workgroup_size_y = uint16_t(LP.Block[1]);
    Pkt->workgroup_size_z = uint16_t(LP.Block[2]);
    Pkt->grid_size_x = GridItems[0];
    Pkt->grid_size_y = GridItems[1];
    Pkt->grid_size_z = GridItems[2];
    Pkt->private_segment_size = Private;
    Pkt->group_segment_size = K->GroupSize + LP.DynamicLDS;
    Pkt->kernel_object = K->Object;
    Pkt->kernarg_address = *Arg;
    Pkt->completion_signal = Done;
    uint16_t Header =
        (HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
        (1 << HSA_PACKET_HEADER_BARRIER) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
        (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
    uint16_t Setup = uint16_t(Dims << HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS);
    __atomic_store_n(reinterpret_cast<uint32_t *>(Pkt),
                     uint32_t(Header) | (uint32_t(Setup) << 16),
                     __ATOMIC_RELEASE);
    R.hsa_signal_store_screlease(Q->doorbell_signal, hsa_signal_value_t(Index));

    auto Start = std::chrono::steady_clock::now();
    while (R.hsa_signal_wait_scacquire(Done, HSA_SIGNAL_CONDITION_LT, 1,
                                       P->TimestampHz, // about one second
                                       HSA_WAIT_STATE_BLOCKED) >= 1) {
      if (hsa_status_t St = P->QueueStatus.load())
        return Fail("the queue reported an error: " + R.statusString(St));
      double Waited = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - Start)
                          .count();
      if (Waited > O.TimeoutSeconds)
        return Fail("did not complete within " +
                    Twine(unsigned(O.TimeoutSeconds)) +
                    " s (the GPU queue may be hung; discard this device)");
    }
    if (hsa_status_t St = P->QueueStatus.load())
      return Fail("the queue reported an error: " + R.statusString(St));

    hsa_amd_profiling_dispatch_time_t T{};
    if (hsa_status_t St =
            R.hsa_amd_profiling_get_dispatch_time(P->Agent, Done, &T))
      return R.fail("hsa_amd_profiling_get_dispatch_time", St);
    HsaLaunchTime LT;
    LT.Kernel = LP.Kernel;
    LT.StartTicks = T.start;
    LT.EndTicks = T.end;
    LT.Seconds = P->TimestampHz && T.end >= T.start
                     ? double(T.end - T.start) / double(P->TimestampHz)
                     : 0;
    Result.Launches.push_back(LT);
  }

  // Results and guard bands, worded like the emulator's DeviceMemory.
  for (size_t I = 0; I < Bufs.size(); ++I) {
    DeviceBuffer &D = Dev[I];
    HostBuffer &B = Bufs[I];
    if (hsa_status_t St = R.hsa_memory_copy(*Staging, D.Region, D.RegionSize))
      return R.fail("copying buffer '" + B.Spec->Name + "' from the device",
                    St);
    if (!B.Bytes.empty())
      std::memcpy(B.Bytes.data(), *Staging + D.Guard, B.Bytes.size());
    auto Check = [&](uint64_t Begin, uint64_t End, const char *Side) {
      for (uint64_t K = Begin; K < End; ++K)
        if ((*Staging)[K] != D.GuardByte) {
          std::string Msg;
          raw_string_ostream OS(Msg);
          int64_t Off = int64_t(K) - int64_t(D.Guard);
          OS << "guard band " << Side << " 'buffer '" << B.Spec->Name
             << "'' overwritten at byte offset " << Off << " (address "
             << format_hex(D.Addr + Off, 14) << ")";
          Result.GuardErrors.push_back(OS.str());
          return;
        }
    };
    Check(0, D.Guard, "before");
    Check(D.Guard + B.Bytes.size(), D.RegionSize, "after");
  }
  return Result;
}
