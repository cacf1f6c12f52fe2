// Two GPUs hand a flag back and forth through peer memory with system-scope atomics.
// GPU `me` (0 or 1) owns `mine`; `theirs` is the other GPU's flag, mapped by peer access.
// Round i: GPU 0 stores 2i+1 into GPU 1's flag and waits for 2i+2 in its own; GPU 1 waits for
// 2i+1 in its own and answers 2i+2. After `rounds` rounds each GPU writes the last value it
// saw to `out`.
#define __global__ __attribute__((global))

extern "C" __global__ void pingpong(unsigned* mine, unsigned* theirs, unsigned* out, unsigned me, unsigned rounds) {
  if (__builtin_amdgcn_workitem_id_x() != 0) return;
  unsigned seen = 0;
  for (unsigned i = 0; i < rounds; ++i) {
    unsigned ping = 2 * i + 1, pong = 2 * i + 2;
    if (me == 0) {
      __hip_atomic_store(theirs, ping, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
      while ((seen = __hip_atomic_load(mine, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM)) != pong) {}
    } else {
      while ((seen = __hip_atomic_load(mine, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM)) != ping) {}
      __hip_atomic_store(theirs, pong, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
    }
  }
  *out = seen;
}

// Waits until its own flag is 1 (`set_after` on the other GPU sets it; when nobody does,
// the node livelocks), then writes it to `out`.
extern "C" __global__ void wait_forever(unsigned* mine, unsigned* out) {
  unsigned v;
  while ((v = __hip_atomic_load(mine, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM)) != 1) {}
  *out = v;
}

// Works for a while (`steps` stores to its own `scratch`, each a visible change), then sets
// the other GPU's flag to 1 with a system-scope release.
extern "C" __global__ void set_after(unsigned* theirs, unsigned* scratch, unsigned steps) {
  if (__builtin_amdgcn_workitem_id_x() != 0) return;
  for (unsigned i = 0; i < steps; ++i) __hip_atomic_store(scratch, i, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  __hip_atomic_store(theirs, 1u, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
}
