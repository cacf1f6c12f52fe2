// seed_mp_fat -- the seed document's message-passing example (seed_mp.cpp), one form per
// build, for a fat binary whose targets compile the forms differently.
//
// Thread 0 of block 0 stores x = 42 and then sets the flag f with a release store; thread 0
// of block 1 waits for the flag with acquire loads at agent scope and reads x.
//   default:         the release store is at work-group scope. Its scope does not include
//                    block 1: a data race (undefined behaviour); what x reads is printed only.
//   -DAGENT_SCOPE:   the release store is at agent scope: race-free, x must read 42.
// Built for gfx942 and gfx1100 together: on gfx1100 in WGP mode a work-group-scope release
// store compiles to the same code as an agent-scope one, on gfx942 it does not (LLVM
// AMDGPUUsage, "Memory Model GFX942" and "Memory Model GFX11" code sequences).
// The reader gives up after `spins` loads (it would spin forever if block 1 ran alone).
#include "hip_check.h"

#ifdef AGENT_SCOPE
#define RELEASE_SCOPE __HIP_MEMORY_SCOPE_AGENT
#else
#define RELEASE_SCOPE __HIP_MEMORY_SCOPE_WORKGROUP
#endif

__global__ void mp(int *x, int *f, int *out, int spins) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    *x = 42;
    __hip_atomic_store(f, 1, __ATOMIC_RELEASE, RELEASE_SCOPE);
  } else if (blockIdx.x == 1) {
    int seen = 0;
    for (int i = 0; i < spins && seen != 1; ++i)
      seen = __hip_atomic_load(f, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
    *out = seen == 1 ? *x : -1;
  }
}

int main() {
  int *buf = nullptr;
  // x, f and out: three ints of one allocation, zeroed.
  HIP_CHECK(hipMalloc(&buf, 3 * sizeof(int)));
  HIP_CHECK(hipMemset(buf, 0, 3 * sizeof(int)));
  mp<<<2, 64>>>(buf, buf + 1, buf + 2, 1 << 16);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  int out = 0;
  HIP_CHECK(hipMemcpy(&out, buf + 2, sizeof(int), hipMemcpyDeviceToHost));
#ifdef AGENT_SCOPE
  if (out != 42) FAIL("mp (agent-scope release): x read %d after the flag, expected 42", out);
#endif
  printf("mp read %d\n", out);
  HIP_CHECK(hipFree(buf));
  printf("PASS seed_mp_fat\n");
  return 0;
}
