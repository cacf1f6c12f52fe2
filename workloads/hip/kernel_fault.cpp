// kernel_fault.cpp -- a kernel that stores through a pointer into no allocation. The real
// runtime reports a GPU memory fault and aborts the process; under hipscope exec the program
// must end with the GPU-fault report (kernel, wave, PC, address) and exit status 3, and must
// not reach the line after the synchronisation.
#include "hip_check.h"

__global__ void store_through(int* p) { p[threadIdx.x] = 1; }

int main() {
  printf("before the launch\n");
  store_through<<<1, 64>>>((int*)0x12345678);
  (void)hipDeviceSynchronize();
  printf("FAIL: reached the line after a faulting kernel\n");
  return 1;
}
