// barrier.hip -- __syncthreads() as the only synchronisation.
// Labels (HIP scoped C++ model): __syncthreads() is a work-group-scope release fence, the
// barrier and a work-group-scope acquire fence, so it orders the work-items of one group
// (intra- and inter-warp) and nothing across groups. Without it, two work-items' conflicting
// plain accesses race, lanes of one wave included: lockstep execution is not an order the
// model gives.
#include "grading.h"

#define BARRIER_KERNEL(NAME, W, R, SYNC, READ)                                              \
  KERNEL NAME(ARGS) {                                                                       \
    if (W()) data[0] = 42;                                                                  \
    SYNC;                                                                                   \
    if (R()) {                                                                              \
      if (READ) out[0] = data[0];                                                           \
      else data[0] = 7;                                                                     \
    }                                                                                       \
  }

BARRIER_KERNEL(norace_interwarp_barrier_raw, interwarp_w, interwarp_r, __syncthreads(), true)
BARRIER_KERNEL(norace_interwarp_barrier_waw, interwarp_w, interwarp_r, __syncthreads(), false)
BARRIER_KERNEL(norace_intrawarp_barrier_raw, intrawarp_w, intrawarp_r, __syncthreads(), true)
BARRIER_KERNEL(norace_intrawarp_barrier_waw, intrawarp_w, intrawarp_r, __syncthreads(), false)
// A barrier is not grid-wide: block 1's thread waits only for block 1.
BARRIER_KERNEL(race_interblock_barrier_raw, interblock_w, interblock_r, __syncthreads(), true)
BARRIER_KERNEL(race_interblock_barrier_waw, interblock_w, interblock_r, __syncthreads(), false)
// No synchronisation at all.
BARRIER_KERNEL(race_interwarp_none_raw, interwarp_w, interwarp_r, (void)0, true)
BARRIER_KERNEL(race_intrawarp_none_raw, intrawarp_w, intrawarp_r, (void)0, true)
BARRIER_KERNEL(race_intrawarp_none_waw, intrawarp_w, intrawarp_r, (void)0, false)
