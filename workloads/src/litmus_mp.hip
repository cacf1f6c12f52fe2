// litmus_mp.hip -- message-passing litmus tests between two work-groups on different CUs, the
// consumer holding a stale copy of the message's line in its L1/L0.
//
// Kernels (4): extern "C" <name>(int *data, int *flag, int *out, int max_spins, int consumer)
//   Roles: work-group 0 is the producer, work-group `consumer` (>= 1) the consumer; every other
//   work-group returns at once. The idle groups let a launch choose where the consumer runs:
//   work-groups go to CUs in dispatch order, and on MI300X group i runs on XCD i mod 8, so
//   `consumer` = 8 puts the consumer on another CU of the producer's XCD (sharing its L2).
//   t = threadIdx.x; every lane passes its own message through data[t] and flag[t].
//
//   litmus_mp_workgroup, litmus_mp_agent:
//     producer: data[t] = t + 1; atomic store flag[t] = 1 (release, scope)
//     consumer: w = data[t], a plain load that usually runs before the producer's store and so
//       leaves the old line (0) in the consumer's L1/L0; out[B + t] = w;
//       then atomic load flag[t] (acquire, scope) until it reads 1, at most max_spins loads;
//       then out[t] = data[t] if the flag was seen, else -1 (data[t] is loaded either way).
//     scope: __HIP_MEMORY_SCOPE_WORKGROUP / __HIP_MEMORY_SCOPE_AGENT.
//   litmus_seed_block, litmus_seed_device: the message-passing example of the libhipcxx memory
//     model document (a message stored by block 0, read by block 1 through a flag), per lane:
//     producer: data[t] = 42; atomic store flag[t] = 1 (release, block scope for _block,
//       device scope for _device)
//     consumer: as above (warm read to out[B + t], at most max_spins acquire loads of flag[t] at
//       device scope, out[t] = data[t] or -1). The document calls the _block form a data race:
//       the store's scope does not include the consumer.
// Grid: (consumer + 1) work-groups of B work-items: ((consumer + 1) * B, 1, 1), block (B, 1, 1),
//   any B up to 1024.
// Buffers: data: B int, zeroed; flag: B int, zeroed; out: 2 * B int.
// Expected: with agent (device) scope on both sides, out[t] is the producer's value (t + 1, or
//   42) or -1 (gave up). With workgroup scope across work-groups (a scope race) and with the
//   block-scope store, out[t] may also be the stale 0. out[B + t] is 0 or the producer's value.
#include "hip_mini.h"

#define LITMUS_MP(NAME, VALUE, STORE_SCOPE, LOAD_SCOPE)                                     \
extern "C" __global__ void NAME(int *data, int *flag, int *out, int max_spins,             \
                                int consumer) {                                             \
  unsigned t = TID_X();                                                                     \
  unsigned g = BID_X();                                                                     \
  if (g == 0) {                                                                             \
    data[t] = (VALUE);                                                                      \
    __hip_atomic_store(&flag[t], 1, __ATOMIC_RELEASE, STORE_SCOPE);                         \
    return;                                                                                 \
  }                                                                                         \
  if (g != (unsigned)consumer)                                                              \
    return;                                                                                 \
  int w = data[t];                                                                          \
  out[BDIM_X() + t] = w;                                                                    \
  int f = 0;                                                                                \
  for (int i = 0; i < max_spins && f == 0; ++i)                                             \
    f = __hip_atomic_load(&flag[t], __ATOMIC_ACQUIRE, LOAD_SCOPE);                          \
  int d = data[t];                                                                          \
  out[t] = f != 0 ? d : -1;                                                                 \
}

LITMUS_MP(litmus_mp_workgroup, (int)t + 1, __HIP_MEMORY_SCOPE_WORKGROUP, __HIP_MEMORY_SCOPE_WORKGROUP)
LITMUS_MP(litmus_mp_agent,     (int)t + 1, __HIP_MEMORY_SCOPE_AGENT,     __HIP_MEMORY_SCOPE_AGENT)
LITMUS_MP(litmus_seed_block,   42,         __HIP_MEMORY_SCOPE_WORKGROUP, __HIP_MEMORY_SCOPE_AGENT)
LITMUS_MP(litmus_seed_device,  42,         __HIP_MEMORY_SCOPE_AGENT,     __HIP_MEMORY_SCOPE_AGENT)
