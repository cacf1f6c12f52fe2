// lock.hip -- a spin lock (flag[0]) protecting a plain counter (data[0] += 1), taken by
// thread 0 of blocks 0 and 1 (interblock) or by threads 0 and warpSize of block 0 (interwarp).
// Labels (HIP scoped C++ model): the unlock's release and the next lock's acquire
// synchronise only if their scopes include both threads. The fence form is the textbook
// `while (atomicCAS(l, 0, 1)); __threadfence(); ...; __threadfence(); atomicExch(l, 0);`;
// the acqrel form uses an acquire CAS and a release store. At work-group scope the lock
// works between waves of one group and not between groups.
#include "grading.h"

#define WG __HIP_MEMORY_SCOPE_WORKGROUP
#define AGENT __HIP_MEMORY_SCOPE_AGENT

template <int Scope>
__device__ void lock_fence(int *l, int spins) {
  for (int i = 0; i < spins; ++i) {
    int expected = 0;
    if (__hip_atomic_compare_exchange_strong(l, &expected, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED, Scope)) break;
  }
  if (Scope == WG) __threadfence_block(); else __threadfence();
}
template <int Scope>
__device__ void unlock_fence(int *l) {
  if (Scope == WG) __threadfence_block(); else __threadfence();
  __hip_atomic_exchange(l, 0, __ATOMIC_RELAXED, Scope);
}
template <int Scope>
__device__ void lock_acqrel(int *l, int spins) {
  for (int i = 0; i < spins; ++i) {
    int expected = 0;
    if (__hip_atomic_compare_exchange_strong(l, &expected, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED, Scope)) break;
  }
}
template <int Scope>
__device__ void unlock_acqrel(int *l) { __hip_atomic_store(l, 0, __ATOMIC_RELEASE, Scope); }

#define LOCK_KERNEL(NAME, W, R, LOCK, UNLOCK)                                               \
  KERNEL NAME(ARGS) {                                                                       \
    if (W() || R()) {                                                                       \
      LOCK(&flag[0], spins);                                                                \
      data[0] += 1;                                                                         \
      UNLOCK(&flag[0]);                                                                     \
    }                                                                                       \
  }

LOCK_KERNEL(norace_interblock_lock, interblock_w, interblock_r, lock_fence<AGENT>, unlock_fence<AGENT>)
LOCK_KERNEL(norace_interblock_lock_acqrel, interblock_w, interblock_r, lock_acqrel<AGENT>, unlock_acqrel<AGENT>)
LOCK_KERNEL(race_interblock_blklock, interblock_w, interblock_r, lock_fence<WG>, unlock_fence<WG>)
LOCK_KERNEL(race_interblock_blklock_acqrel, interblock_w, interblock_r, lock_acqrel<WG>, unlock_acqrel<WG>)
LOCK_KERNEL(norace_interwarp_blklock, interwarp_w, interwarp_r, lock_fence<WG>, unlock_fence<WG>)
LOCK_KERNEL(norace_interwarp_blklock_acqrel, interwarp_w, interwarp_r, lock_acqrel<WG>, unlock_acqrel<WG>)

// No lock at all.
KERNEL race_interblock_nolock(ARGS) {
  if (interblock_w() || interblock_r()) data[0] += 1;
}
