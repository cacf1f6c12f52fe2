// fence.hip -- message passing through a flag with fences (the __threadfence() idiom).
// W: data = 42; fence; atomicExch(flag, 1).  R: spin on a relaxed agent-scope load of the
// flag; fence; then reads (raw) or writes (waw) data.
// Labels (HIP scoped C++ model, fence-fence synchronisation): the release fence before the
// flag store and the acquire fence after the flag load synchronise only if each fence's
// scope includes the other thread. __threadfence() is agent scope; __threadfence_block() is
// work-group scope, so across work-groups it orders nothing. A writer fence with no fence on
// the reader's side is a race too: the reader's relaxed load acquires nothing. (ScoR labels
// that pattern norace_interblock_fence_raw; under the scoped C++ model it is a data race.)
#include "grading.h"

#define FENCE_KERNEL(NAME, W, R, WFENCE, RFENCE, READ)                                      \
  KERNEL NAME(ARGS) {                                                                       \
    if (W()) {                                                                              \
      data[0] = 42;                                                                         \
      WFENCE;                                                                               \
      atomicExch(&flag[0], 1);                                                              \
    }                                                                                       \
    if (R()) {                                                                              \
      bool seen = wait_flag(&flag[0], spins, __HIP_MEMORY_SCOPE_AGENT);                     \
      RFENCE;                                                                               \
      if (READ) out[0] = seen ? data[0] : -1;                                               \
      else data[0] = 7;                                                                     \
    }                                                                                       \
  }

FENCE_KERNEL(norace_interblock_fence_raw, interblock_w, interblock_r, __threadfence(), __threadfence(), true)
FENCE_KERNEL(norace_interblock_fence_waw, interblock_w, interblock_r, __threadfence(), __threadfence(), false)
FENCE_KERNEL(race_interblock_blkfence_raw, interblock_w, interblock_r, __threadfence_block(), __threadfence_block(), true)
FENCE_KERNEL(race_interblock_blkfence_waw, interblock_w, interblock_r, __threadfence_block(), __threadfence_block(), false)
FENCE_KERNEL(norace_interwarp_blkfence_raw, interwarp_w, interwarp_r, __threadfence_block(), __threadfence_block(), true)
FENCE_KERNEL(norace_interwarp_blkfence_waw, interwarp_w, interwarp_r, __threadfence_block(), __threadfence_block(), false)
FENCE_KERNEL(race_interblock_fence_noacquire_raw, interblock_w, interblock_r, __threadfence(), (void)0, true)
FENCE_KERNEL(race_interblock_nofence_raw, interblock_w, interblock_r, (void)0, (void)0, true)
