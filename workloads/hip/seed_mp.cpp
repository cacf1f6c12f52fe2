// seed_mp -- the HIP memory model's message-passing example, in both of its forms.
//
// Thread 0 of block 0 stores x = 42 and then sets the flag f with a release store; thread 0
// of block 1 waits for the flag with acquire loads at device scope and reads x.
//   mp_device: the release store is at device (agent) scope: race-free, x must read 42.
//   mp_block:  the release store is at block (work-group) scope. Its scope does not include
//              block 1, so the store and the loads are not atomic with respect to each other:
//              a data race (undefined behaviour). Whatever x reads is printed, not checked.
// The reader gives up after `spins` loads (it would spin forever if block 1 ran alone).
#include "hip_check.h"

__global__ void mp_device(int *x, int *f, int *out, int spins) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    *x = 42;
    __hip_atomic_store(f, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  } else if (blockIdx.x == 1) {
    int seen = 0;
    for (int i = 0; i < spins && seen != 1; ++i)
      seen = __hip_atomic_load(f, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
    *out = seen == 1 ? *x : -1;
  }
}

__global__ void mp_block(int *x, int *f, int *out, int spins) {
  if (threadIdx.x != 0) return;
  if (blockIdx.x == 0) {
    *x = 42;
    __hip_atomic_store(f, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_WORKGROUP);
  } else if (blockIdx.x == 1) {
    int seen = 0;
    for (int i = 0; i < spins && seen != 1; ++i)
      seen = __hip_atomic_load(f, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT);
    *out = seen == 1 ? *x : -1;
  }
}

// Run one form from zeroed x and f; returns what block 1 read (-1: it gave up).
static int run(void (*kernel)(int *, int *, int *, int), int *buf) {
  HIP_CHECK(hipMemset(buf, 0, 3 * sizeof(int)));
  kernel<<<2, 64>>>(buf, buf + 1, buf + 2, 1 << 16);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  int out = 0;
  HIP_CHECK(hipMemcpy(&out, buf + 2, sizeof(int), hipMemcpyDeviceToHost));
  return out;
}

int main() {
  int *buf = nullptr;
  // x, f and out: three ints of one allocation.
  HIP_CHECK(hipMalloc(&buf, 3 * sizeof(int)));
  int device = run(mp_device, buf);
  if (device != 42) FAIL("mp_device: x read %d after the flag, expected 42", device);
  int block = run(mp_block, buf);
  printf("mp_device read %d; mp_block read %d\n", device, block);
  HIP_CHECK(hipFree(buf));
  printf("PASS seed_mp\n");
  return 0;
}
