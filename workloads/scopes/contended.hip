// contended.hip -- contended atomicAdd as the hardware performs it: every lane's atomic reaches
// the memory system. Built with LLVM's atomic optimizer off (build.sh:
// -mllvm -amdgpu-atomic-optimizer-strategy=None), which otherwise folds a wave's uniform-address
// adds into one lane's atomic (what scopes.hip measures), so contention would never leave the CU.
//
// Kernels (9):
//   extern "C" ct_<op>__<scope>(int *data, unsigned addresses, unsigned *times)
//   <scope>: wavefront | workgroup | agent | system   (HIP __HIP_MEMORY_SCOPE_*)
//   <op>:    add_ret    v = __hip_atomic_fetch_add(&data[i % addresses], 1, relaxed, scope); v used
//            add_noret  the same with the result unused (a no-return atomic)
//   plus ct_none__none (no operation: the timer and drain overhead, the baseline).
// Work-item i = blockIdx.x * blockDim.x + threadIdx.x adds 1 to data[i & (addresses - 1)]:
//   `addresses` must be a power of two; lanes i, i + addresses, ... contend for one word, and a
//   wave's consecutive lanes update consecutive words.
// Per wave w = blockIdx.x * (blockDim.x / wavesize) + threadIdx.x / wavesize, lane l:
//   1. warm-up: a plain load of its word, value consumed (the line is cached, as in scopes.hip);
//   2. WAIT_ALL: every wait counter drained;
//   3. t0 = clock; the atomic; its result consumed (add_ret); WAIT_ALL; t1 = clock;
//   4. lane 0: times[2w] = t0, times[2w + 1] = t1 (the clock's low 32 bits; 20 bits on gfx11).
//   A wave's cost is t1 - t0 less the ct_none__none figure; all waves' atomics together take
//   from the earliest t0 to the latest t1 (the clock is the GPU's, common to all waves).
// Grid: any number of groups; block a multiple of the wave size.
// Buffers: data: addresses int (zero is fine; data[a] ends with its number of contenders);
//   times: 2 * waves unsigned (output).
//
// Clocks and the counter drain as in scopes.hip.
#include "../src/hip_mini.h"

#if defined(__GFX11__) || defined(__GFX12__)
#define READ_CYCLES() __builtin_readcyclecounter()
#else
#define READ_CYCLES() __builtin_amdgcn_s_memtime()
#endif

#if defined(__GFX11__)
#define CYCLE_MASK 0xfffffu
#else
#define CYCLE_MASK 0xffffffffu
#endif

#if defined(__GFX12__)
#define WAIT_ALL()                                                                            \
  asm volatile("s_wait_loadcnt 0x0\n\ts_wait_storecnt 0x0\n\ts_wait_dscnt 0x0\n\t"            \
               "s_wait_kmcnt 0x0" ::: "memory")
#elif defined(__GFX10__) || defined(__GFX11__)
#define WAIT_ALL()                                                                            \
  asm volatile("s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)\n\ts_waitcnt_vscnt null, 0x0" ::: "memory")
#else
#define WAIT_ALL() asm volatile("s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)" ::: "memory")
#endif

#define USE(x) asm volatile("" ::"v"(x))

#define CT_KERNEL(NAME, ...)                                                                  \
extern "C" __global__ void NAME(int *data, unsigned addresses, unsigned *times) {             \
  const unsigned ws = __builtin_amdgcn_wavefrontsize();                                       \
  const unsigned w = BID_X() * (BDIM_X() / ws) + TID_X() / ws;                                \
  const unsigned lane = TID_X() % ws;                                                         \
  int *p = &data[(BID_X() * BDIM_X() + TID_X()) & (addresses - 1u)];                          \
  int warm = *p;                                                                              \
  USE(warm);                                                                                  \
  WAIT_ALL();                                                                                 \
  unsigned long long t0 = READ_CYCLES();                                                      \
  __VA_ARGS__                                                                                 \
  WAIT_ALL();                                                                                 \
  unsigned long long t1 = READ_CYCLES();                                                      \
  if (lane == 0) {                                                                            \
    times[2 * w] = (unsigned)t0 & CYCLE_MASK;                                                 \
    times[2 * w + 1] = (unsigned)t1 & CYCLE_MASK;                                             \
  }                                                                                           \
}

#define CT_SCOPE(S, HS)                                                                       \
CT_KERNEL(ct_add_ret__##S, int v = __hip_atomic_fetch_add(p, 1, __ATOMIC_RELAXED, HS); USE(v);) \
CT_KERNEL(ct_add_noret__##S, __hip_atomic_fetch_add(p, 1, __ATOMIC_RELAXED, HS);)

CT_KERNEL(ct_none__none, )
CT_SCOPE(wavefront, __HIP_MEMORY_SCOPE_WAVEFRONT)
CT_SCOPE(workgroup, __HIP_MEMORY_SCOPE_WORKGROUP)
CT_SCOPE(agent,     __HIP_MEMORY_SCOPE_AGENT)
CT_SCOPE(system,    __HIP_MEMORY_SCOPE_SYSTEM)
