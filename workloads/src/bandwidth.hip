// bandwidth.hip -- read bandwidth against working-set size, measured the way te42kyfo/
// gpu-benches measures it (../shared/notes/device-data.md, A9/A10), so the simulated curves
// line up with the real gpu-cache and gpu-l2-cache outputs point by point. Elements are
// 16-byte vectors (the benchmarks' HIP builds read float4: one global_load_dwordx4 per lane).
//
// bw_block_repeat(const v4f *b, unsigned n, unsigned iters, unsigned zero, v4f *out)
//                                                                         [gpu-cache]
//   Every work-group reads the same n elements (its data set, n * 16 bytes), work-item i
//   taking elements i, i + blockDim, ..., `iters` times over (a multiple of 8; zero must be
//   0). With one group per CU a data set that fits the L1 is served by the L1 after the
//   first pass.
//
// bw_block_run(const v4f *b, unsigned n, unsigned block_run, v4f *out)   [gpu-l2-cache]
//   Work-group g reads n elements per work-item (a multiple of 8) from slice g % block_run of
//   a buffer of block_run slices (slice s, step i: element (i * block_run + s) * blockDim + tid): the
//   working set is block_run * n * blockDim * 16 bytes, each group's share n * blockDim * 16,
//   and enough groups revisit every slice so that it is served by whichever cache holds it.
//
// Both store to out only if the sum is exactly -1234.5 (never for finite inputs of one sign):
// the loads stay live without a store.
#include "hip_mini.h"

typedef float v4f __attribute__((ext_vector_type(4)));

static __device__ inline bool never(v4f s) { return s.x + s.y + s.z + s.w == -1234.5f; }

// Eight independent loads per step, as the benchmarks' unrolled loops have in flight (a
// rolled loop would wait for each load before the next: a latency test, not a bandwidth one).
#define UNROLL 8

extern "C" __global__ void bw_block_repeat(const v4f *b, unsigned n, unsigned iters, unsigned zero, v4f *out) {
  v4f sum = {0.0f, 0.0f, 0.0f, 0.0f};
  unsigned step = BDIM_X();
  for (unsigned r = 0; r + UNROLL <= iters; r += UNROLL) {
    for (unsigned i = TID_X(); i < n; i += step) {
      // Repetition u reads b[i + u * zero]: the same element, but the compiler cannot know
      // that, so the eight loads stay eight loads (gpu-cache's `B += zero`).
      v4f part[UNROLL];
      for (unsigned u = 0; u < UNROLL; ++u)
        part[u] = b[i + u * zero];
      for (unsigned u = 0; u < UNROLL; ++u)
        sum += part[u];
    }
    sum *= 1.3f;
  }
  if (never(sum))
    out[TID_X()] = sum;
}

extern "C" __global__ void bw_block_run(const v4f *b, unsigned n, unsigned block_run, v4f *out) {
  v4f sum = {0.0f, 0.0f, 0.0f, 0.0f};
  unsigned dim = BDIM_X();
  unsigned slice = BID_X() % block_run;
  for (unsigned i = 0; i + UNROLL <= n; i += UNROLL) {
    v4f part[UNROLL];
    for (unsigned u = 0; u < UNROLL; ++u)
      part[u] = b[((unsigned long)(i + u) * block_run + slice) * dim + TID_X()];
    for (unsigned u = 0; u < UNROLL; ++u)
      sum += part[u];
  }
  if (never(sum))
    out[TID_X()] = sum;
}
