// Stores published by an agent-scope release fence and an atomic flag: the
// compiler's release sequence (buffer_wbl2, then s_waitcnt vmcnt(0) before
// the flag) is what the waitcnt analysis must see as needed.
#include "asmevo_hip.h"

extern "C" __global__ void release(int *data, int *flag, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] = i * 3 + 1;
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent");
  if (threadIdx.x == 0)
    atomicAdd(flag, 1);
}
