// spin_wg.hip -- waves of one work-group waiting for each other through global memory.
//
// Kernels (3): extern "C" spin_wg_<kind>(int *flag, int *out, int max_spins, int delay)
//   Per work-group g (blocks of at least two waves): the first lane of the group's last wave
//   publishes flag[g] after `delay` short sleeps; every lane of wave 0 polls flag[g] until it
//   sees the publication, at most max_spins times, then writes
//   out[g * blockDim.x + lane] = the number of polls it took (>= 1), or -1 on a timeout.
//   <kind>: store    -- publisher: plain store flag[g] = 1;
//                       pollers: atomic loads (acquire, work-group scope) until flag[g] != 0
//           rmw      -- publisher: plain store flag[g] = 1;
//                       pollers: atomic fetch_or(flag[g], 2) (relaxed, work-group scope) until
//                       bit 0 is set (each poll is a read-modify-write)
//           init_rmw -- wave 0's first lane stores flag[g] = 0 (plain), then __syncthreads();
//                       publisher: atomic fetch_add(flag[g], 1) (relaxed, work-group scope);
//                       pollers: atomic loads (acquire, work-group scope) until flag[g] != 0
// All waves of a work-group share a CU (and its L1), so on every GPU a publication is seen
// within a few polls: a timeout (-1) means the simulated caches hid a store from its own CU.
// Buffers: flag: one int per group (store, rmw: zeroed; init_rmw: any); out: G * B ints.
// Final: flag[g] = 1 (store, init_rmw) or 3 (rmw: the pollers' bit 1 on top of the published
// 1, which overwrites it); out[g * B + t] >= 1 for t < warpSize, the rest untouched.
#include "hip_mini.h"

static __device__ inline void nap(int delay) {
  for (int k = 0; k < delay; ++k) __builtin_amdgcn_s_sleep(8);
}

extern "C" __global__ void spin_wg_store(int *flag, int *out, int max_spins, int delay) {
  unsigned t = TID_X(), g = BID_X();
  unsigned last = (BDIM_X() - 1) / WAVE_SIZE * WAVE_SIZE;
  if (t == last) {
    nap(delay);
    flag[g] = 1;
  }
  if (t >= WAVE_SIZE) return;
  int f = 0, i = 0;
  while (i < max_spins && f == 0) {
    f = __hip_atomic_load(&flag[g], __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP);
    ++i;
  }
  out[g * BDIM_X() + t] = f != 0 ? i : -1;
}

extern "C" __global__ void spin_wg_rmw(int *flag, int *out, int max_spins, int delay) {
  unsigned t = TID_X(), g = BID_X();
  unsigned last = (BDIM_X() - 1) / WAVE_SIZE * WAVE_SIZE;
  if (t == last) {
    nap(delay);
    flag[g] = 1;
  }
  if (t >= WAVE_SIZE) return;
  int f = 0, i = 0;
  while (i < max_spins && (f & 1) == 0) {
    f = __hip_atomic_fetch_or(&flag[g], 2, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
    ++i;
  }
  out[g * BDIM_X() + t] = (f & 1) != 0 ? i : -1;
}

extern "C" __global__ void spin_wg_init_rmw(int *flag, int *out, int max_spins, int delay) {
  unsigned t = TID_X(), g = BID_X();
  unsigned last = (BDIM_X() - 1) / WAVE_SIZE * WAVE_SIZE;
  if (t == 0) flag[g] = 0;
  sync_threads();
  if (t == last) {
    nap(delay);
    __hip_atomic_fetch_add(&flag[g], 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_WORKGROUP);
  }
  if (t >= WAVE_SIZE) return;
  int f = 0, i = 0;
  while (i < max_spins && f == 0) {
    f = __hip_atomic_load(&flag[g], __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_WORKGROUP);
    ++i;
  }
  out[g * BDIM_X() + t] = f != 0 ? i : -1;
}
