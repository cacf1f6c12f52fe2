// mixbench_ro.hip -- the read-only mixbench kernel (ekondis/mixbench mix_kernels_hip_ro,
// described in ../shared/notes/device-data.md, dataset A5), written anew for float with block
// size 256 and granularity 8: work-item t of block b loads 8 floats a[b*2048 + t + 256*j]
// (j < 8), applies N multiply-adds x = x*x + seed to each, adds the 8 results, and stores the
// sum to a[b*2048 + t] only if it equals -1 (never for the intended inputs: the store keeps
// the work live). One kernel per compute-iteration count N of the measured sweep:
//   mixbench_ro_f32_<N>(float seed, float *a), N in 0..18, 20, 22, 24, 28, 32, 40, 48, 56,
//   64, 80, 96, 128, 256, 512.
// Grid: 4194304 work-items in blocks of 256 (as measured), so `a` holds 16384 blocks * 2048
// floats = 128 MiB.
#include "hip_mini.h"

#define BLOCK 256
#define GRAN 8

template <int N>
static __device__ inline void mixbench_body(float seed, float *a) {
  unsigned base = BID_X() * BLOCK * GRAN + TID_X();
  float x[GRAN];
#pragma unroll
  for (int j = 0; j < GRAN; ++j)
    x[j] = a[base + j * BLOCK];
#pragma unroll
  for (int i = 0; i < N; ++i) {
#pragma unroll
    for (int j = 0; j < GRAN; ++j)
      x[j] = x[j] * x[j] + seed;
  }
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < GRAN; ++j)
    sum += x[j];
  if (sum == -1.0f)
    a[base] = sum;
}

#define MIXBENCH(N)                                                                           \
  extern "C" __global__ __launch_bounds__(BLOCK) void mixbench_ro_f32_##N(float seed, float *a) { \
    mixbench_body<N>(seed, a);                                                                \
  }

MIXBENCH(0) MIXBENCH(1) MIXBENCH(2) MIXBENCH(3) MIXBENCH(4) MIXBENCH(5) MIXBENCH(6)
MIXBENCH(7) MIXBENCH(8) MIXBENCH(9) MIXBENCH(10) MIXBENCH(11) MIXBENCH(12) MIXBENCH(13)
MIXBENCH(14) MIXBENCH(15) MIXBENCH(16) MIXBENCH(17) MIXBENCH(18) MIXBENCH(20) MIXBENCH(22)
MIXBENCH(24) MIXBENCH(28) MIXBENCH(32) MIXBENCH(40) MIXBENCH(48) MIXBENCH(56) MIXBENCH(64)
MIXBENCH(80) MIXBENCH(96) MIXBENCH(128) MIXBENCH(256) MIXBENCH(512)
