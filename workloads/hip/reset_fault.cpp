// reset_fault.cpp -- a kernel that stores into a buffer allocated before hipDeviceReset. The
// reset releases every allocation of the device (clr hipamd/src/hip_device.cpp,
// Device::Reset), so the buffer's addresses are no longer device memory: under hipscope exec
// the program must end with the GPU-fault report and exit status 3, as kernel_fault does, and
// must not reach the line after the synchronisation.
#include "hip_check.h"

__global__ void store_to(int* p) { p[threadIdx.x] = 1; }

int main() {
  int* p = nullptr;
  HIP_CHECK(hipMalloc(&p, 64 * sizeof(int)));
  store_to<<<1, 64>>>(p);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipDeviceReset());
  printf("reset done\n");
  fflush(stdout);
  store_to<<<1, 64>>>(p);
  (void)hipDeviceSynchronize();
  printf("FAIL: reached the line after a kernel that stored to freed memory\n");
  return 1;
}
