// xcd_coherence.hip -- MI300-style scoped coherence probes: what an L1-bypassing load costs,
// and when a store made on one XCD (one L2) becomes visible to a work-group on another.
// The expected facts come from measurements on MI300X (shared/device-data, file
// derived/scoped_sync_and_coherence_observations.csv: timed single loads, cross-XCD tests 1-7).
// On gfx942 work-groups are dispatched to the XCDs round-robin, so group g runs on XCD g % 8
// and groups 0 and 1 use different L2s. The kernels compile for every config; on targets with
// one L2 the visibility kernels simply see every store.
//
// Latency kernels (3): extern "C" xcd_lat_<kind>(const int *data, unsigned reps, unsigned *times)
//   <kind>: plain  timed load: plain global load of data[0]
//           nt     timed load: __builtin_nontemporal_load (nt on gfx942)
//           sc1    timed load: relaxed agent-scope atomic load (sc1 on gfx942)
//   Only lane 0 of work-group 0 works (all other work-items return at once). It loads data[0]
//   once with a plain load (L1 and L2 now hold the line), drains every counter, then `reps`
//   times: t0 = clock; v = timed load of data[0]; v consumed; all counters drained; t1 = clock;
//   times[r] = t1 - t0 (cycles; mod 2^20 on gfx11). Finally times[reps] = the last v.
//   The address goes through a VGPR so that no load becomes a scalar (s_load) one.
// Grid: (64, 1, 1) work-items, block (64, 1, 1). Buffers: data: 1 int (any value);
//   times: reps + 1 unsigned (output).
//
// Visibility kernels (3): extern "C" xcd_vis_<kind>(int *data, int *flags, int value,
//                                                   unsigned polls, int *out)
//   Only lane 0 of work-groups 0 and 1 works. flags[0] is the "stored" flag, flags[64] the
//   "done" flag (256 bytes apart: different cache lines from each other and from data).
//   Group 0 (XCD 0), the writer:
//     1. data[0] = value with <kind>:
//          plain  a plain store;
//          sc1    a relaxed agent-scope atomic store (sc1 on gfx942);
//          wbl2   a plain store, then __builtin_amdgcn_fence(release, "agent")
//                 (buffer_wbl2 sc1 on gfx942: the XCD's L2 writes back its dirty lines);
//     2. all counters drained (inline asm): the store has been acknowledged by the L2;
//     3. flags[0] = 1, a *relaxed* agent-scope atomic store. Not a release: on gfx942 an
//        agent release is buffer_wbl2 sc1 + sc1 store, and its write-back would publish the
//        plain-stored data word too, which is exactly what must not happen here. Step 2
//        orders the data store's completion before the flag;
//     4. waits (acquire agent-scope loads, at most 20000) for flags[64] == 1, so the writer's
//        XCD is still running while group 1 polls (an XCD that has finished its share of the
//        kernel may write back its L2 early); out[3] = 1 if it saw it, else 0.
//   Group 1 (XCD 1), the reader, touches data only after the flag:
//     1. waits (acquire agent-scope loads, at most 20000) for flags[0] == 1;
//        out[0] = 1 if it saw it, else 0 (then it still polls);
//     2. polls data[0] `polls` times with relaxed agent-scope atomic loads (sc1 on gfx942:
//        they bypass its L1, so its L1 cannot hide the value); out[1] = index of the first
//        poll that read `value`, or -1 if none did; out[2] = the value the last poll read;
//     3. flags[64] = 1 (relaxed agent-scope atomic store).
//   So, when out[0] == 1 and out[3] == 1: out[1] >= 0 exactly when group 0's store became
//   visible to group 1 within the kernel, while group 0 was still running.
// Grid: exactly 2 work-groups of 64: (128, 1, 1) / (64, 1, 1). Buffers: data: 1 int, zeroed
//   (value must differ from it); flags: 65 int, zeroed; out: 4 int (output).
//
// Read-back kernel (1): extern "C" xcd_read_all(const int *data, int *out)
//   Lane 0 of every work-group g: out[g] = data[0] (a plain global load). Launched after a
//   visibility kernel with 8 groups, one per XCD: whether every XCD sees the value once the
//   writing kernel has ended.
// Grid: (64 * G, 1, 1), block (64, 1, 1). Buffers: data: 1 int; out: G int (output).
//
// Clocks (chosen by #if below), as in scopes/scopes.hip:
//   gfx8 / gfx9 / gfx10.3: __builtin_amdgcn_s_memtime (s_memtime, 64 bits).
//   gfx11: __builtin_readcyclecounter -> s_getreg_b32 HW_REG_SHADER_CYCLES (20 bits).
//   gfx12: __builtin_readcyclecounter -> HW_REG_SHADER_CYCLES_HI / LO / HI (64 bits).
#include "hip_mini.h"

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

#define AGENT __HIP_MEMORY_SCOPE_AGENT
#define MAX_SPINS 20000

// An index of 0 that the compiler must treat as a per-lane (VGPR) value.
static __device__ inline unsigned vgpr_zero(void) {
  unsigned z = 0;
  asm volatile("" : "+v"(z));
  return z;
}

#define LAT_KERNEL(KIND, LOAD)                                                                \
extern "C" __global__ void xcd_lat_##KIND(const int *data, unsigned reps, unsigned *times) { \
  if (BID_X() != 0 || TID_X() != 0)                                                           \
    return;                                                                                   \
  const int *p = data + vgpr_zero();                                                          \
  int warm = *p;                                                                              \
  USE(warm);                                                                                  \
  WAIT_ALL();                                                                                 \
  int v = 0;                                                                                  \
  for (unsigned r = 0; r < reps; ++r) {                                                       \
    unsigned long long t0 = READ_CYCLES();                                                    \
    v = LOAD;                                                                                 \
    USE(v);                                                                                   \
    WAIT_ALL();                                                                               \
    unsigned long long t1 = READ_CYCLES();                                                    \
    times[r] = (unsigned)(t1 - t0) & CYCLE_MASK;                                              \
  }                                                                                           \
  times[reps] = (unsigned)v;                                                                  \
}

LAT_KERNEL(plain, *p)
LAT_KERNEL(nt, __builtin_nontemporal_load(p))
LAT_KERNEL(sc1, __hip_atomic_load(p, __ATOMIC_RELAXED, AGENT))

// Acquire agent-scope loads of *f until it reads 1; false after MAX_SPINS loads.
static __device__ inline bool wait_flag(int *f) {
#pragma nounroll
  for (int i = 0; i < MAX_SPINS; ++i)
    if (__hip_atomic_load(f, __ATOMIC_ACQUIRE, AGENT) == 1)
      return true;
  return false;
}

#define VIS_KERNEL(KIND, STORE)                                                               \
extern "C" __global__ void xcd_vis_##KIND(int *data, int *flags, int value, unsigned polls,  \
                                          int *out) {                                         \
  const unsigned g = BID_X();                                                                 \
  if (g > 1 || TID_X() != 0)                                                                  \
    return;                                                                                   \
  if (g == 0) {                                                                               \
    STORE;                                                                                    \
    WAIT_ALL();                                                                               \
    __hip_atomic_store(&flags[0], 1, __ATOMIC_RELAXED, AGENT);                                \
    out[3] = wait_flag(&flags[64]) ? 1 : 0;                                                   \
    return;                                                                                   \
  }                                                                                           \
  out[0] = wait_flag(&flags[0]) ? 1 : 0;                                                      \
  int first = -1, last = 0;                                                                   \
  _Pragma("nounroll")                                                                         \
  for (unsigned i = 0; i < polls; ++i) {                                                      \
    last = __hip_atomic_load(&data[0], __ATOMIC_RELAXED, AGENT);                              \
    if (last == value && first < 0)                                                           \
      first = (int)i;                                                                         \
  }                                                                                           \
  out[1] = first;                                                                             \
  out[2] = last;                                                                              \
  __hip_atomic_store(&flags[64], 1, __ATOMIC_RELAXED, AGENT);                                 \
}

VIS_KERNEL(plain, data[0] = value)
VIS_KERNEL(sc1, __hip_atomic_store(&data[0], value, __ATOMIC_RELAXED, AGENT))
VIS_KERNEL(wbl2, data[0] = value; __builtin_amdgcn_fence(__ATOMIC_RELEASE, "agent"))

extern "C" __global__ void xcd_read_all(const int *data, int *out) {
  if (TID_X() != 0)
    return;
  out[BID_X()] = data[vgpr_zero()];
}
