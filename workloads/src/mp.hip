// mp.hip -- message passing between work-groups, at three scopes x three orderings.
//
// Kernels (9): extern "C" mp_<order>_<scope>(int *data, int *flag, int *out, int max_spins)
//   <scope>: workgroup | agent | system    (HIP __HIP_MEMORY_SCOPE_*, fence "workgroup"/"agent"/"")
//   <order>: acqrel  -- producer: data[t] = t + 1; atomic store flag[t] = 1 (release, scope)
//                       consumer: atomic load flag[t] (acquire, scope) until it reads 1
//            fence   -- producer: data[t] = t + 1; fence(release, scope); flag[t] = 1 (relaxed, scope)
//                       consumer: load flag[t] (relaxed, scope) until 1; fence(acquire, scope)
//            relaxed -- as fence, without the fences (no ordering: a racy, weak pattern)
//   then consumer: out[t] = data[t] if the flag was seen within max_spins loads, else -1
//   (data[t] is loaded in either case; the value is discarded on a timeout).
//   (t = threadIdx.x; data[t] and flag[t] are per-lane, so every consumer lane has its own
//   producer lane: one message per lane.)
// Roles: work-group 0 is the producer, work-group 1 the consumer.
// Grid: exactly 2 work-groups: (2 * B, 1, 1) work-items, block (B, 1, 1), e.g. B = 64;
//   any B up to 1024. (The consumer indexes out by threadIdx.x only, so a third work-group
//   would race with the second on out.)
// Buffers: data: B int, zeroed; flag: B int, zeroed; out: B int.
// Expected: out[t] == t + 1 for acqrel/fence at agent and system scope whenever the
//   flag was seen. workgroup scope between different work-groups is a scope race (the
//   scope does not include the other work-group), and relaxed has no ordering at all: on
//   hardware (and in hipscope) those may read a stale 0. -1 means the consumer gave up
//   (e.g. it ran before the producer was scheduled); max_spins bounds every loop.
#include "hip_mini.h"

#define MP_KERNELS(SCOPE_NAME, HIP_SCOPE, FENCE_SCOPE)                                      \
extern "C" __global__ void mp_acqrel_##SCOPE_NAME(int *data, int *flag, int *out,           \
                                                  int max_spins) {                          \
  unsigned t = TID_X();                                                                     \
  if (BID_X() == 0) {                                                                       \
    data[t] = (int)t + 1;                                                                   \
    __hip_atomic_store(&flag[t], 1, __ATOMIC_RELEASE, HIP_SCOPE);                           \
    return;                                                                                 \
  }                                                                                         \
  int f = 0;                                                                                \
  for (int i = 0; i < max_spins && f == 0; ++i)                                             \
    f = __hip_atomic_load(&flag[t], __ATOMIC_ACQUIRE, HIP_SCOPE);                           \
  int d = data[t];                                                                          \
  out[t] = f != 0 ? d : -1;                                                                 \
}                                                                                           \
extern "C" __global__ void mp_fence_##SCOPE_NAME(int *data, int *flag, int *out,            \
                                                 int max_spins) {                           \
  unsigned t = TID_X();                                                                     \
  if (BID_X() == 0) {                                                                       \
    data[t] = (int)t + 1;                                                                   \
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, FENCE_SCOPE);                                  \
    __hip_atomic_store(&flag[t], 1, __ATOMIC_RELAXED, HIP_SCOPE);                           \
    return;                                                                                 \
  }                                                                                         \
  int f = 0;                                                                                \
  for (int i = 0; i < max_spins && f == 0; ++i)                                             \
    f = __hip_atomic_load(&flag[t], __ATOMIC_RELAXED, HIP_SCOPE);                           \
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, FENCE_SCOPE);                                    \
  int d = data[t];                                                                          \
  out[t] = f != 0 ? d : -1;                                                                 \
}                                                                                           \
extern "C" __global__ void mp_relaxed_##SCOPE_NAME(int *data, int *flag, int *out,          \
                                                   int max_spins) {                         \
  unsigned t = TID_X();                                                                     \
  if (BID_X() == 0) {                                                                       \
    data[t] = (int)t + 1;                                                                   \
    __hip_atomic_store(&flag[t], 1, __ATOMIC_RELAXED, HIP_SCOPE);                           \
    return;                                                                                 \
  }                                                                                         \
  int f = 0;                                                                                \
  for (int i = 0; i < max_spins && f == 0; ++i)                                             \
    f = __hip_atomic_load(&flag[t], __ATOMIC_RELAXED, HIP_SCOPE);                           \
  int d = data[t];                                                                          \
  out[t] = f != 0 ? d : -1;                                                                 \
}

MP_KERNELS(workgroup, __HIP_MEMORY_SCOPE_WORKGROUP, "workgroup")
MP_KERNELS(agent,     __HIP_MEMORY_SCOPE_AGENT,     "agent")
MP_KERNELS(system,    __HIP_MEMORY_SCOPE_SYSTEM,    "")
