// A HIP program with several kernels (kernels.hip) and a host main that
// launches them; the tests build it, never run it (no GPU).
#include "kernels.hip"
int main() {
  float *d;
  if (hipMalloc(&d, 2048 * sizeof(float)) != hipSuccess)
    return 1;
  hipLaunchKernelGGL(saxpy, dim3(4), dim3(256), 0, 0, d, d, 2.0f, 1024);
  hipLaunchKernelGGL(add2, dim3(4), dim3(256), 0, 0, d, d, 1024);
  hipLaunchKernelGGL(rowsum, dim3(1), dim3(256), 0, 0, d, d, 4, 256);
  return hipDeviceSynchronize() != hipSuccess;
}
