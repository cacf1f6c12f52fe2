// patterns.hip -- whole synchronisation patterns: a grid barrier, a message queue, a
// reduction with a retirement counter, and the HIP memory model's message-passing example.
// Labels follow the HIP scoped C++ model (happens-before is transitive through barriers and
// through release/acquire pairs whose scopes include both threads: HRF-indirect).
#include "grading.h"

#define WG __HIP_MEMORY_SCOPE_WORKGROUP
#define AGENT __HIP_MEMORY_SCOPE_AGENT

// Grid barrier over all 4 groups: thread 1 of each group writes data[group]; after the
// barrier, threads 0..3 of each group read every group's value. The arrival counter
// (flag[0]) and the fences around it are at `Scope`: agent scope orders the groups; at
// work-group scope the counter still counts (RMWs execute at the L2) but orders nothing.
template <int Scope>
__device__ void grid_barrier(int *count, int spins) {
  __syncthreads();
  if (threadIdx.x == 0) {
    if (Scope == WG) __threadfence_block(); else __threadfence();
    __hip_atomic_fetch_add(count, 1, __ATOMIC_RELAXED, Scope);
    for (int i = 0; i < spins; ++i)
      if (__hip_atomic_load(count, __ATOMIC_RELAXED, Scope) >= (int)gridDim.x) break;
    if (Scope == WG) __threadfence_block(); else __threadfence();
  }
  __syncthreads();
}
#define GRID_BARRIER_KERNEL(NAME, SCOPE)                                                    \
  KERNEL NAME(ARGS) {                                                                       \
    if (threadIdx.x == 1) data[blockIdx.x] = (int)blockIdx.x + 1;                           \
    grid_barrier<SCOPE>(&flag[0], spins);                                                   \
    if (threadIdx.x < gridDim.x) out[blockIdx.x * gridDim.x + threadIdx.x] = data[threadIdx.x]; \
  }
GRID_BARRIER_KERNEL(norace_grid_barrier, AGENT)
GRID_BARRIER_KERNEL(race_grid_barrier_blkscope, WG)

// Single-producer single-consumer queue: block 0 thread 0 appends 8 items (data[i] = i+1),
// publishing each with a release store of the tail (flag[0]); block 1 thread 0 polls the
// tail with acquire loads and copies every published item to out.
#define QUEUE_KERNEL(NAME, SCOPE)                                                           \
  KERNEL NAME(ARGS) {                                                                       \
    if (interblock_w()) {                                                               \
      for (int i = 0; i < 8; ++i) {                                                         \
        data[i] = i + 1;                                                                    \
        __hip_atomic_store(&flag[0], i + 1, __ATOMIC_RELEASE, SCOPE);                       \
      }                                                                                     \
    }                                                                                       \
    if (interblock_r()) {                                                                   \
      int head = 0;                                                                         \
      for (int i = 0; i < spins && head < 8; ++i) {                                         \
        int tail = __hip_atomic_load(&flag[0], __ATOMIC_ACQUIRE, SCOPE);                    \
        for (; head < tail; ++head) out[head] = data[head];                                 \
      }                                                                                     \
    }                                                                                       \
  }
QUEUE_KERNEL(norace_msgqueue, AGENT)
QUEUE_KERNEL(race_msgqueue_blkscope, WG)

// Sum of data[0..512) by 4 groups: each group reduces its 128 values in LDS and thread 0
// writes the partial sum to out[group]; the last group to retire (a __device__ counter
// incremented with atomicInc) adds the partials into out[4].
//   norace_reduction_fence: __threadfence() before the ticket (release) and after it in the
//     last group (acquire): the partials happen before the final sum.
//   race_reduction_nofence: no fences: the relaxed ticket orders nothing.
//   race_reduction_syncthreads_acquire: the CUDA-sample shape, __threadfence() before the
//     ticket and only __syncthreads() after it. The barrier's acquire fence is work-group
//     scope, which does not include the groups that wrote the partials: by the model a race,
//     although hardware that keeps no stale line in the reader's cache shows the right sum.
__device__ unsigned retired = 0;

template <bool FenceBefore, bool FenceAfter>
__device__ void reduce(int *data, int *out) {
  __shared__ int partial[128];
  __shared__ bool last;
  unsigned t = threadIdx.x;
  partial[t] = data[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) {
    out[blockIdx.x] = partial[0];
    if (FenceBefore) __threadfence();
    unsigned ticket = atomicInc(&retired, gridDim.x);
    last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (last && t == 0) {
    if (FenceAfter) __threadfence();
    int sum = 0;
    for (unsigned b = 0; b < gridDim.x; ++b) sum += out[b];
    out[gridDim.x] = sum;
  }
}
KERNEL norace_reduction_fence(ARGS) { reduce<true, true>(data, out); }
KERNEL race_reduction_nofence(ARGS) { reduce<false, false>(data, out); }
KERNEL race_reduction_syncthreads_acquire(ARGS) { reduce<true, false>(data, out); }

// The HIP memory model's message-passing example: block 0 thread 0 stores x = 42 and
// releases the flag; block 1 thread 0 acquires it at device scope and reads x. With a
// device-scope release store it is race-free; with a block-scope release store the store's
// scope excludes the reader: a data race on the flag (and so on x).
#define SEED_MP_KERNEL(NAME, STORE_SCOPE)                                                   \
  KERNEL NAME(ARGS) {                                                                       \
    if (interblock_w()) {                                                                   \
      data[0] = 42;                                                                         \
      __hip_atomic_store(&flag[0], 1, __ATOMIC_RELEASE, STORE_SCOPE);                       \
    }                                                                                       \
    if (interblock_r()) {                                                                   \
      int f = 0;                                                                            \
      for (int i = 0; i < spins && f != 1; ++i)                                             \
        f = __hip_atomic_load(&flag[0], __ATOMIC_ACQUIRE, AGENT);                           \
      out[0] = f == 1 ? data[0] : -1;                                                       \
    }                                                                                       \
  }
SEED_MP_KERNEL(norace_seed_mp_device, AGENT)
SEED_MP_KERNEL(race_seed_mp_block, WG)
