// scopes.hip -- what one synchronization operation costs per wave, at each memory scope,
// timed with the shader clock; plus a two-work-group ping-pong (round-trip latency).
//
// Measurement kernels (42: 10 ops x 4 scopes, sc_none__none, sc_syncthreads__workgroup):
//   extern "C" sc_<op>__<scope>(int *sync, int *dirty, unsigned dirty_dwords, unsigned *times)
//   <scope>: wavefront | workgroup | agent | system   (HIP __HIP_MEMORY_SCOPE_*; fence scope
//            strings "wavefront" / "workgroup" / "agent" / "")
//   <op>:    fence_acq, fence_rel, fence_acq_rel, fence_seq_cst
//                         __builtin_amdgcn_fence(order, scope). fence_seq_cst is what
//                         __threadfence_block / __threadfence / __threadfence_system expand to
//                         (workgroup / agent / system).
//            load_acq     v = atomic load sync[0] (acquire, scope); v consumed
//            store_rel    atomic store sync[1 + w] = 1 (release, scope)
//            rmw_acq_rel  v = atomic fetch_add(sync[0], 1) (acq_rel, scope); v consumed
//            add_noret    atomic fetch_add(sync[0], 1) (relaxed, scope); result unused
//            add_ret      the same with the result consumed
//            lds_add      v = atomic fetch_add on a __shared__ int (acq_rel, scope); v consumed.
//                         Work-item 0 zeroes it, then a __syncthreads() before the warm-up.
//   plus sc_none__none (no operation: the timer and drain overhead, the baseline) and
//   sc_syncthreads__workgroup (__syncthreads(): fence(release, "workgroup"); s_barrier;
//   fence(acquire, "workgroup"), as in hip_mini.h).
//   The uniform-address RMWs go through LLVM's atomic optimizer (default build flags), so
//   add_noret / add_ret / rmw_acq_rel / lds_add issue one lane's atomic per wave.
// Per wave w = blockIdx.x * (blockDim.x / wavesize) + threadIdx.x / wavesize, lane l:
//   1. dirty footprint: dirty[w * dirty_dwords + i] = w + i for i = l, l + wavesize, ... <
//      dirty_dwords (coalesced plain stores: dirty lines a release may have to write back);
//   2. warm-up: plain loads of sync[0] and sync[1 + w], values consumed, so the sync lines
//      are in the caches;
//   3. WAIT_ALL: every wait counter drained (inline asm), so the stores of 1 have completed
//      and nothing is in flight when the clock starts;
//   4. t0 = clock; the operation; its result consumed; WAIT_ALL; t1 = clock;
//   5. lane 0: times[w] = t1 - t0 (cycles; mod 2^20 on gfx11, whose counter has 20 bits).
//   The operation's own cost is times[w] minus the sc_none__none figure of the same launch
//   shape.
// Grid: any number of groups; block a multiple of the wave size (e.g. grid 256 / block 256).
// Buffers: sync: at least 1 + waves int (zero is fine; sync[0] accumulates the adds);
//   dirty: waves * dirty_dwords int (dirty_dwords may be 0); times: waves unsigned (output).
//
// Ping-pong kernels (3):
//   extern "C" pp__<scope>(int *flag, unsigned partner, unsigned rounds, unsigned *times)
//   <scope>: workgroup | agent | system
//   Only the first wave of work-group 0 and of work-group `partner` (>= 1) take part; all other
//   waves return at once. All lanes of a taking-part wave issue the same uniform-address loads
//   and stores (the loaded value is made wave-uniform with readfirstlane); lane 0 writes times.
//   Group 0, round r = 0 .. rounds-1: acquire loads (scope) of flag[0] until it reads 2r,
//   then a release store (scope) flag[0] = 2r + 1. Group partner: waits for 2r + 1, then
//   stores 2r + 2. Every wait gives up after 20000 loads: group 0 then writes
//   times[0] = 0xFFFFFFFF, the partner times[1] = 0xFFFFFFFF, and returns.
//   Group 0 reads the clock before round 0 and after its acquire load that sees 2 * rounds,
//   then writes times[0] = (t1 - t0) / rounds (cycles per round trip; the difference is mod
//   2^20 on gfx11, so keep rounds * round trip below 2^20 cycles there) and times[1] = rounds
//   (the partner completed them all).
// Grid: at least partner + 1 groups, e.g. 2 groups with partner 1: grid (2 * B) / block B.
// Buffers: flag: 1 int, zeroed; times: 2 unsigned (output).
// pp__workgroup between two work-groups is a scope race (the scope does not include the other
// group): on targets where that scope's loads may hit a stale L1 it is expected to time out.
//
// Clocks (chosen by #if below):
//   gfx8 / gfx9 / gfx10.3: __builtin_amdgcn_s_memtime (s_memtime, 64 bits).
//   gfx11: __builtin_readcyclecounter -> s_getreg_b32 HW_REG_SHADER_CYCLES (20 bits).
//   gfx12: __builtin_readcyclecounter -> HW_REG_SHADER_CYCLES_HI / LO / HI (64 bits).
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

// Drain every wait counter (inline asm: the compiler can move nothing across it).
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

// Consume a value: it must be in a VGPR here, so its load has to complete first.
#define USE(x) asm volatile("" ::"v"(x))

// One measurement kernel. PREP runs before the warm-up; the operation is the variadic part.
#define SC_KERNEL(NAME, PREP, ...)                                                            \
extern "C" __global__ void NAME(int *sync, int *dirty, unsigned dirty_dwords,                 \
                                unsigned *times) {                                            \
  const unsigned ws = __builtin_amdgcn_wavefrontsize();                                       \
  const unsigned w = BID_X() * (BDIM_X() / ws) + TID_X() / ws;                                \
  const unsigned lane = TID_X() % ws;                                                         \
  for (unsigned i = lane; i < dirty_dwords; i += ws)                                          \
    dirty[(unsigned long long)w * dirty_dwords + i] = (int)(w + i);                           \
  PREP                                                                                        \
  int warm0 = sync[0];                                                                        \
  int warm1 = sync[1 + w];                                                                    \
  USE(warm0);                                                                                 \
  USE(warm1);                                                                                 \
  WAIT_ALL();                                                                                 \
  unsigned long long t0 = READ_CYCLES();                                                      \
  __VA_ARGS__                                                                                 \
  WAIT_ALL();                                                                                 \
  unsigned long long t1 = READ_CYCLES();                                                      \
  if (lane == 0)                                                                              \
    times[w] = (unsigned)(t1 - t0) & CYCLE_MASK;                                              \
}

#define SC_SCOPE(S, HS, FS)                                                                   \
SC_KERNEL(sc_fence_acq__##S, , __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, FS);)                 \
SC_KERNEL(sc_fence_rel__##S, , __builtin_amdgcn_fence(__ATOMIC_RELEASE, FS);)                 \
SC_KERNEL(sc_fence_acq_rel__##S, , __builtin_amdgcn_fence(__ATOMIC_ACQ_REL, FS);)             \
SC_KERNEL(sc_fence_seq_cst__##S, , __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, FS);)             \
SC_KERNEL(sc_load_acq__##S, ,                                                                 \
          int v = __hip_atomic_load(&sync[0], __ATOMIC_ACQUIRE, HS); USE(v);)                 \
SC_KERNEL(sc_store_rel__##S, , __hip_atomic_store(&sync[1 + w], 1, __ATOMIC_RELEASE, HS);)    \
SC_KERNEL(sc_rmw_acq_rel__##S, ,                                                              \
          int v = __hip_atomic_fetch_add(&sync[0], 1, __ATOMIC_ACQ_REL, HS); USE(v);)         \
SC_KERNEL(sc_add_noret__##S, , __hip_atomic_fetch_add(&sync[0], 1, __ATOMIC_RELAXED, HS);)    \
SC_KERNEL(sc_add_ret__##S, ,                                                                  \
          int v = __hip_atomic_fetch_add(&sync[0], 1, __ATOMIC_RELAXED, HS); USE(v);)         \
SC_KERNEL(sc_lds_add__##S,                                                                    \
          __shared__ int lds_ctr; if (TID_X() == 0) lds_ctr = 0; sync_threads();,             \
          int v = __hip_atomic_fetch_add(&lds_ctr, 1, __ATOMIC_ACQ_REL, HS); USE(v);)

SC_KERNEL(sc_none__none, , )
SC_SCOPE(wavefront, __HIP_MEMORY_SCOPE_WAVEFRONT, "wavefront")
SC_SCOPE(workgroup, __HIP_MEMORY_SCOPE_WORKGROUP, "workgroup")
SC_SCOPE(agent,     __HIP_MEMORY_SCOPE_AGENT,     "agent")
SC_SCOPE(system,    __HIP_MEMORY_SCOPE_SYSTEM,    "")
SC_KERNEL(sc_syncthreads__workgroup, , sync_threads();)

// Ping-pong: acquire loads of flag[0] until it reads `want`; false after 20000 loads.
template <int SCOPE>
static __device__ inline bool pp_wait(int *flag, int want) {
  for (int i = 0; i < 20000; ++i)
    if (__builtin_amdgcn_readfirstlane(__hip_atomic_load(&flag[0], __ATOMIC_ACQUIRE, SCOPE)) == want)
      return true;
  return false;
}

#define PP_KERNEL(S, HS)                                                                      \
extern "C" __global__ void pp__##S(int *flag, unsigned partner, unsigned rounds,              \
                                   unsigned *times) {                                         \
  const unsigned g = BID_X();                                                                 \
  if ((g != 0 && g != partner) || TID_X() >= __builtin_amdgcn_wavefrontsize())                \
    return;                                                                                   \
  const bool lane0 = TID_X() == 0;                                                            \
  if (g == 0) {                                                                               \
    unsigned long long t0 = READ_CYCLES();                                                    \
    for (unsigned r = 0; r < rounds; ++r) {                                                   \
      if (!pp_wait<HS>(flag, (int)(2 * r))) {                                                 \
        if (lane0) times[0] = 0xffffffffu;                                                    \
        return;                                                                               \
      }                                                                                       \
      __hip_atomic_store(&flag[0], (int)(2 * r + 1), __ATOMIC_RELEASE, HS);                   \
    }                                                                                         \
    if (!pp_wait<HS>(flag, (int)(2 * rounds))) {                                              \
      if (lane0) times[0] = 0xffffffffu;                                                      \
      return;                                                                                 \
    }                                                                                         \
    unsigned long long t1 = READ_CYCLES();                                                    \
    if (lane0) {                                                                              \
      times[0] = ((unsigned)(t1 - t0) & CYCLE_MASK) / (rounds ? rounds : 1u);                 \
      times[1] = rounds;                                                                      \
    }                                                                                         \
  } else {                                                                                    \
    for (unsigned r = 0; r < rounds; ++r) {                                                   \
      if (!pp_wait<HS>(flag, (int)(2 * r + 1))) {                                             \
        if (lane0) times[1] = 0xffffffffu;                                                    \
        return;                                                                               \
      }                                                                                       \
      __hip_atomic_store(&flag[0], (int)(2 * r + 2), __ATOMIC_RELEASE, HS);                   \
    }                                                                                         \
  }                                                                                           \
}

PP_KERNEL(workgroup, __HIP_MEMORY_SCOPE_WORKGROUP)
PP_KERNEL(agent,     __HIP_MEMORY_SCOPE_AGENT)
PP_KERNEL(system,    __HIP_MEMORY_SCOPE_SYSTEM)
