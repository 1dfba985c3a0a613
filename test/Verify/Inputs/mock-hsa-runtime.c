// A fake HSA runtime for testing the hsa backend's host side without a GPU:
// one CPU agent, and with MOCK_HSA_GPU=ISA one GPU agent of that ISA. Memory
// pools are malloc, copies are memcpy, and the "packet processor" (run when
// the doorbell is rung) checks the AQL packet and, for the suite's relu
// kernel (x at kernarg 0, y at 8, n at 16), computes y = max(x, 0) on the
// host so the test can compare the bytes with the emulator's. It proves the
// backend's buffer, guard-band, kernarg and packet handling, not that a GPU
// would accept them.
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *gpuISA(void) { return getenv("MOCK_HSA_GPU"); }
static int NAgents(void) { return gpuISA() ? 2 : 1; }

hsa_status_t hsa_init(void) { return HSA_STATUS_SUCCESS; }
hsa_status_t hsa_shut_down(void) {
  fprintf(stderr, "mock: hsa_shut_down\n");
  return HSA_STATUS_SUCCESS;
}
hsa_status_t hsa_status_string(hsa_status_t S, const char **Str) {
  *Str = "HSA_STATUS_ERROR: mock failure";
  return HSA_STATUS_SUCCESS;
}
hsa_status_t hsa_system_get_info(hsa_system_info_t A, void *V) {
  switch (A) {
  case HSA_SYSTEM_INFO_VERSION_MAJOR: *(uint16_t *)V = 1; return 0;
  case HSA_SYSTEM_INFO_VERSION_MINOR: *(uint16_t *)V = 1; return 0;
  case HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY: *(uint64_t *)V = 1000000000; return 0;
  default: return HSA_STATUS_ERROR;
  }
}
hsa_status_t hsa_iterate_agents(hsa_status_t (*CB)(hsa_agent_t, void *),
                                void *D) {
  for (int I = 1; I <= NAgents(); ++I) {
    hsa_agent_t A = {(uint64_t)I};
    CB(A, D);
  }
  return 0;
}
hsa_status_t hsa_agent_get_info(hsa_agent_t A, hsa_agent_info_t W, void *V) {
  int GPU = A.handle == 2;
  switch ((int)W) {
  case HSA_AGENT_INFO_NAME: strcpy(V, GPU ? "gfx-mock" : "Mock CPU"); return 0;
  case HSA_AGENT_INFO_DEVICE:
    *(hsa_device_type_t *)V = GPU ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU;
    return 0;
  case HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT: *(uint32_t *)V = GPU ? 4 : 2; return 0;
  case HSA_AMD_AGENT_INFO_PRODUCT_NAME: strcpy(V, GPU ? "Mock GPU" : "Mock CPU"); return 0;
  case HSA_AGENT_INFO_QUEUE_MAX_SIZE: *(uint32_t *)V = 1024; return 0;
  default: return HSA_STATUS_ERROR;
  }
}
hsa_status_t hsa_agent_iterate_isas(hsa_agent_t A,
                                    hsa_status_t (*CB)(hsa_isa_t, void *),
                                    void *D) {
  if (A.handle != 2)
    return HSA_STATUS_ERROR;
  hsa_isa_t I = {7};
  return CB(I, D);
}
hsa_status_t hsa_isa_get_info_alt(hsa_isa_t I, hsa_isa_info_t W, void *V) {
  if (W == HSA_ISA_INFO_NAME_LENGTH) { *(uint32_t *)V = strlen(gpuISA()) + 1; return 0; }
  if (W == HSA_ISA_INFO_NAME) { strcpy(V, gpuISA()); return 0; }
  return HSA_STATUS_ERROR;
}

// Pools: 10 = host kernarg/fine-grained (on the CPU agent), 20 = device.
hsa_status_t hsa_amd_agent_iterate_memory_pools(
    hsa_agent_t A, hsa_status_t (*CB)(hsa_amd_memory_pool_t, void *), void *D) {
  hsa_amd_memory_pool_t P = {A.handle == 2 ? 20u : 10u};
  return CB(P, D);
}
hsa_status_t hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t P,
                                          hsa_amd_memory_pool_info_t W,
                                          void *V) {
  switch (W) {
  case HSA_AMD_MEMORY_POOL_INFO_SEGMENT: *(hsa_amd_segment_t *)V = HSA_AMD_SEGMENT_GLOBAL; return 0;
  case HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED: *(bool *)V = true; return 0;
  case HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS:
    *(uint32_t *)V = P.handle == 20 ? HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED
                                    : HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT |
                                          HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED;
    return 0;
  default: return HSA_STATUS_ERROR;
  }
}
hsa_status_t hsa_amd_memory_pool_allocate(hsa_amd_memory_pool_t P, size_t Size,
                                          uint32_t Flags, void **Ptr) {
  *Ptr = aligned_alloc(4096, (Size + 4095) & ~(size_t)4095);
  return *Ptr ? HSA_STATUS_SUCCESS : HSA_STATUS_ERROR_OUT_OF_RESOURCES;
}
hsa_status_t hsa_amd_memory_pool_free(void *P) { free(P); return 0; }
hsa_status_t hsa_amd_agents_allow_access(uint32_t N, const hsa_agent_t *A,
                                         const uint32_t *F, const void *P) {
  return 0;
}
hsa_status_t hsa_memory_copy(void *Dst, const void *Src, size_t Size) {
  memcpy(Dst, Src, Size);
  return 0;
}

hsa_status_t hsa_code_object_reader_create_from_memory(
    const void *CO, size_t Size, hsa_code_object_reader_t *R) {
  // An ELF header, nothing more is checked.
  if (Size < 4 || memcmp(CO, "\177ELF", 4))
    return HSA_STATUS_ERROR;
  R->handle = 1;
  return 0;
}
hsa_status_t hsa_code_object_reader_destroy(hsa_code_object_reader_t R) { return 0; }
hsa_status_t hsa_executable_create_alt(hsa_profile_t P,
                                       hsa_default_float_rounding_mode_t M,
                                       const char *O, hsa_executable_t *E) {
  E->handle = 1;
  return 0;
}
hsa_status_t hsa_executable_load_agent_code_object(
    hsa_executable_t E, hsa_agent_t A, hsa_code_object_reader_t R,
    const char *O, hsa_loaded_code_object_t *L) { return 0; }
hsa_status_t hsa_executable_freeze(hsa_executable_t E, const char *O) { return 0; }
hsa_status_t hsa_executable_destroy(hsa_executable_t E) {
  fprintf(stderr, "mock: hsa_executable_destroy\n");
  return 0;
}
hsa_status_t hsa_executable_get_symbol_by_name(hsa_executable_t E,
                                               const char *Name,
                                               const hsa_agent_t *A,
                                               hsa_executable_symbol_t *S) {
  fprintf(stderr, "mock: symbol %s\n", Name);
  S->handle = 1;
  return 0;
}
hsa_status_t hsa_executable_symbol_get_info(hsa_executable_symbol_t S,
                                            hsa_executable_symbol_info_t W,
                                            void *V) {
  switch (W) {
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT: *(uint64_t *)V = 0xC0DE; return 0;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE: *(uint32_t *)V = 20; return 0;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: *(uint32_t *)V = 0; return 0;
  case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE: *(uint32_t *)V = 0; return 0;
  default: return HSA_STATUS_ERROR;
  }
}

// Signals are heap cells holding their value; the doorbell is handle 1.
static hsa_queue_t *TheQueue;
static uint64_t WriteIndex;
hsa_status_t hsa_signal_create(hsa_signal_value_t V, uint32_t N,
                               const hsa_agent_t *C, hsa_signal_t *S) {
  int64_t *Cell = malloc(sizeof(int64_t));
  *Cell = V;
  S->handle = (uint64_t)Cell;
  return 0;
}
hsa_status_t hsa_signal_destroy(hsa_signal_t S) {
  free((void *)S.handle);
  return 0;
}
hsa_signal_value_t hsa_signal_wait_scacquire(hsa_signal_t S,
                                             hsa_signal_condition_t C,
                                             hsa_signal_value_t V, uint64_t T,
                                             hsa_wait_state_t W) {
  return *(int64_t *)S.handle;
}

static void processPacket(uint64_t Index) {
  hsa_kernel_dispatch_packet_t *P =
      (hsa_kernel_dispatch_packet_t *)TheQueue->base_address +
      (Index & (TheQueue->size - 1));
  uint16_t Header = P->header;
  int Type = (Header >> HSA_PACKET_HEADER_TYPE) & 0xFF;
  int Dims = P->setup & 3;
  fprintf(stderr,
          "mock: packet type %d dims %d grid %u,%u,%u block %u,%u,%u "
          "object 0x%llx group %u private %u\n",
          Type, Dims, P->grid_size_x, P->grid_size_y, P->grid_size_z,
          P->workgroup_size_x, P->workgroup_size_y, P->workgroup_size_z,
          (unsigned long long)P->kernel_object, P->group_segment_size,
          P->private_segment_size);
  const uint8_t *Arg = P->kernarg_address;
  const float *X;
  float *Y;
  int N;
  memcpy(&X, Arg, 8);
  memcpy(&Y, Arg + 8, 8);
  memcpy(&N, Arg + 16, 4);
  if (getenv("MOCK_HSA_RELU"))
    for (int I = 0; I < N; ++I) {
      float V = X[I];
      Y[I] = V > 0.0f ? V : 0.0f;
    }
  if (getenv("MOCK_HSA_OVERRUN"))
    Y[N] = 1.0f; // one element past the end: the guard band must notice
  *(int64_t *)P->completion_signal.handle = 0;
}
void hsa_signal_store_screlease(hsa_signal_t S, hsa_signal_value_t V) {
  if (S.handle == 1)
    processPacket((uint64_t)V);
}
hsa_status_t hsa_queue_create(hsa_agent_t A, uint32_t Size,
                              hsa_queue_type32_t T,
                              void (*CB)(hsa_status_t, hsa_queue_t *, void *),
                              void *D, uint32_t P, uint32_t G,
                              hsa_queue_t **Q) {
  // Room for ROCr's amd_queue_t around the hsa_queue_t.
  TheQueue = calloc(1, 1024);
  TheQueue->size = Size;
  TheQueue->base_address = calloc(Size, 64);
  TheQueue->doorbell_signal.handle = 1;
  *Q = TheQueue;
  return 0;
}
hsa_status_t hsa_queue_destroy(hsa_queue_t *Q) {
  fprintf(stderr, "mock: hsa_queue_destroy\n");
  return 0;
}
uint64_t hsa_queue_load_read_index_scacquire(const hsa_queue_t *Q) {
  return WriteIndex - 1;
}
uint64_t hsa_queue_add_write_index_screlease(const hsa_queue_t *Q,
                                             uint64_t N) {
  uint64_t Old = WriteIndex;
  WriteIndex += N;
  return Old;
}
hsa_status_t hsa_amd_profiling_set_profiler_enabled(hsa_queue_t *Q, int E) {
  return 0;
}
hsa_status_t hsa_amd_profiling_get_dispatch_time(
    hsa_agent_t A, hsa_signal_t S, hsa_amd_profiling_dispatch_time_t *T) {
  T->start = 1000;
  T->end = 5250;
  return 0;
}
