// atomic.hip -- conflicting accesses that are themselves atomic, at agent or work-group scope.
// Labels (HIP scoped C++ model): atomics do not race with each other when each one's scope
// includes the other's thread. atomicAdd/atomicExch are agent scope; a work-group-scope
// atomic used from two work-groups is a heterogeneous race (HSA's "special conflict"), even
// though on AMD hardware global RMWs execute at the L2 whatever their scope. An atomic and a
// plain access to the same location race.
#include "grading.h"

#define WG __HIP_MEMORY_SCOPE_WORKGROUP

KERNEL norace_interblock_atomic_waw(ARGS) {
  if (interblock_w() || interblock_r()) atomicAdd(&data[0], 1);
}
KERNEL race_interblock_blkatomic_waw(ARGS) {
  if (interblock_w() || interblock_r()) __hip_atomic_fetch_add(&data[0], 1, __ATOMIC_RELAXED, WG);
}
KERNEL norace_interwarp_blkatomic_waw(ARGS) {
  if (interwarp_w() || interwarp_r()) __hip_atomic_fetch_add(&data[0], 1, __ATOMIC_RELAXED, WG);
}
KERNEL race_interblock_atomic_plain_waw(ARGS) {
  if (interblock_w()) atomicAdd(&data[0], 1);
  if (interblock_r()) data[0] = 5;
}
KERNEL norace_interblock_atomic_raw(ARGS) {
  if (interblock_w()) atomicExch(&data[0], 42);
  if (interblock_r()) out[0] = __hip_atomic_load(&data[0], __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}
KERNEL race_interblock_blkatomic_raw(ARGS) {
  if (interblock_w()) __hip_atomic_exchange(&data[0], 42, __ATOMIC_RELAXED, WG);
  if (interblock_r()) out[0] = __hip_atomic_fetch_add(&data[0], 1, __ATOMIC_RELAXED, WG);
}
