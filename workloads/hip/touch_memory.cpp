// touch_memory.cpp -- writes every byte of a large allocation (argv[1] GiB, default 4):
// device memory the program really uses, which the host must back. Under hipscope exec on a
// host that cannot (tests/hip_misuse.rs runs it under an address-space limit below the size)
// the program must end with the device-memory-fault report and exit status 3, never an
// abort; where the host can, it prints "PASS touch_memory" after checking a byte per GiB.
#include "hip_check.h"
#include <cstdlib>

int main(int argc, char** argv) {
  const size_t GiB = size_t(1) << 30;
  size_t gib = argc > 1 ? strtoull(argv[1], nullptr, 10) : 4;
  char* p = nullptr;
  HIP_CHECK(hipMalloc(&p, gib * GiB));
  printf("allocated %zu GiB\n", gib);
  fflush(stdout);
  for (size_t g = 0; g < gib; g++) HIP_CHECK(hipMemset(p + g * GiB, (int)(g + 1), GiB));
  for (size_t g = 0; g < gib; g++) {
    char c = 0;
    HIP_CHECK(hipMemcpy(&c, p + g * GiB + GiB / 2, 1, hipMemcpyDeviceToHost));
    if (c != (char)(g + 1)) FAIL("byte %zu GiB + 512 MiB is %d, expected %d", g, c, (int)(g + 1));
  }
  HIP_CHECK(hipFree(p));
  printf("PASS touch_memory\n");
  return 0;
}
