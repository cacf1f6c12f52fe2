// atomics.hip -- global-memory atomics: a histogram (relaxed RMW) and two spin locks
// (acquire RMW + release store), all at agent scope.
//
// Kernel 1: extern "C" histogram(const unsigned *in, unsigned *bins, unsigned n, unsigned nbins)
//   u32 histogram with what HIP's atomicAdd(unsigned*, unsigned) is:
//   __hip_atomic_fetch_add(p, 1, relaxed, agent scope).
//   For every i < n: bins[in[i] % nbins] += 1 (atomically). Grid-stride loop: work-item g
//   handles i = g, g + G, g + 2G, ... where G = total work-items in the grid (grid_size_x from
//   the dispatch packet), so any grid size works. The returned old value is unused, so the
//   compiler emits the no-return atomic form.
//   Grid: 1-D, e.g. grid (4096, 1, 1), block (256, 1, 1); any block size up to 1024.
//   Buffers: in: n u32 (input); bins: nbins u32, zeroed before the launch (output); nbins > 0.
//   Result: bins[b] = number of i < n with in[i] % nbins == b.
//
// Kernel 2: extern "C" spin_lock(int *lock, unsigned *counter, unsigned iters, unsigned max_spins)
//   Lock acquire = __hip_atomic_compare_exchange_strong(lock, 0 -> 1, acquire, agent scope);
//   release = __hip_atomic_store(lock, 0, release, agent scope).
// Kernel 3: extern "C" spin_lock_xchg(int *lock, unsigned *counter, unsigned iters, unsigned max_spins)
//   Same, acquire = __hip_atomic_exchange(lock, 1, acquire, agent scope) until it returns 0.
//   In both lock kernels, work-item 0 of every work-group (the other work-items exit) repeats
//   iters times:
//     try to take the lock, at most max_spins attempts;
//     if taken: counter[0] = counter[0] + 1 (plain load + plain store inside the critical
//               section), then release the lock;
//     else:     atomically counter[1] += 1 (relaxed, agent scope): a timeout.
//   Grid: (G * B, 1, 1) work-items, block (B, 1, 1), e.g. G = 8, B = 64 (any G, B).
//   Buffers: lock: 1 int, zeroed; counter: 2 u32, zeroed.
//   Expected: counter[0] + counter[1] == G * iters; with a large enough max_spins,
//   counter[1] == 0 and counter[0] == G * iters; lock == 0 at the end.
#include "hip_mini.h"

extern "C" __global__ void histogram(const unsigned *in, unsigned *bins, unsigned n, unsigned nbins) {
  unsigned stride = __builtin_amdgcn_grid_size_x();   // total work-items in x (dispatch packet)
  for (unsigned i = BID_X() * BDIM_X() + TID_X(); i < n; i += stride) {
    unsigned b = in[i] % nbins;
    __hip_atomic_fetch_add(&bins[b], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  }
}

static __device__ inline int try_lock_cas(int *lock) {
  int expected = 0;
  return __hip_atomic_compare_exchange_strong(lock, &expected, 1, __ATOMIC_ACQUIRE,
                                              __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

static __device__ inline int try_lock_xchg(int *lock) {
  return __hip_atomic_exchange(lock, 1, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) == 0;
}

#define SPIN_LOCK_KERNEL(NAME, TRY_LOCK)                                                   \
extern "C" __global__ void NAME(int *lock, unsigned *counter, unsigned iters,             \
                                unsigned max_spins) {                                     \
  if (TID_X() != 0)                                                                       \
    return;                                                                               \
  for (unsigned it = 0; it < iters; ++it) {                                               \
    int taken = 0;                                                                        \
    for (unsigned s = 0; s < max_spins && !taken; ++s)                                    \
      taken = TRY_LOCK(lock);                                                             \
    if (taken) {                                                                          \
      counter[0] = counter[0] + 1;                                                        \
      __hip_atomic_store(lock, 0, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_AGENT);            \
    } else {                                                                              \
      __hip_atomic_fetch_add(&counter[1], 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT); \
    }                                                                                     \
  }                                                                                       \
}

SPIN_LOCK_KERNEL(spin_lock, try_lock_cas)
SPIN_LOCK_KERNEL(spin_lock_xchg, try_lock_xchg)
