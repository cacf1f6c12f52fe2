// livelock.hip -- kernels that never finish, for the livelock detector
// (sim/src/progress.rs): every wave ends up repeating one state while nothing changes memory.
//
// Kernels:
//   wait_flag(int *flag)        every lane polls *flag with agent-scope acquire loads until it
//                               is non-zero; nobody writes it, so with *flag = 0 it never ends.
//   lock_forever(int *lock)     lane 0 of every wave takes a spin lock with atomicCAS(lock, 0, 1)
//                               and releases it; with *lock = 1 (held by nobody who will ever
//                               release it) the CAS fails forever, writing nothing.
//   grid_barrier(int *count, int groups)  a one-shot grid barrier: thread 0 of each work-group
//                               adds 1 to *count and waits for *count to reach `groups`. With
//                               more work-groups than can be resident, the resident ones wait
//                               for work-groups that cannot start until they end.
#include "hip_mini.h"

extern "C" __global__ void wait_flag(int *flag) {
  while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0) {
  }
}

extern "C" __global__ void lock_forever(int *lock) {
  if (TID_X() % WAVE_SIZE == 0) {
    int expected = 0;
    while (!__hip_atomic_compare_exchange_strong(lock, &expected, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED,
                                                __HIP_MEMORY_SCOPE_AGENT)) {
      expected = 0;
    }
    __hip_atomic_store(lock, 0, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
  }
}

extern "C" __global__ void grid_barrier(int *count, int groups) {
  if (TID_X() == 0) {
    __hip_atomic_fetch_add(count, 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);
    while (__hip_atomic_load(count, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) < groups) {
    }
  }
  sync_threads();
}
