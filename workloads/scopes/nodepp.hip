// Ping-pong between agents of a node: one wave on each of two agents (two GPUs, or a GPU and
// a modelled host CPU core) hands a flag back and forth; round-trip latency at agent and
// system scope.
//
//   extern "C" npp__<scope>(int *mine, int *theirs, unsigned me, unsigned rounds,
//                           unsigned *times)
//   <scope>: agent | system
//   `mine` is the flag this side waits on, `theirs` the flag the other side waits on (each in
//   whatever memory the caller placed it: the owner's device memory for two GPUs, host memory
//   for a GPU and the CPU). Only lane 0 of work-group 0 takes part.
//   me = 0 (initiator), round r = 0 .. rounds-1: release store (scope) theirs = 2r + 1, then
//   acquire loads (scope) of mine until it reads 2r + 2. me = 1 (responder): acquire loads of
//   mine until 2r + 1, then release store theirs = 2r + 2. Every wait gives up after 2000
//   loads: times[0] = 0xFFFFFFFF, times[1] = the rounds completed, times[2] = the last value
//   read, and the kernel returns. The initiator reads the clock before round 0 and after the
//   last acquire, and writes times[0] = cycles per round trip, times[1] = rounds, times[2] =
//   the last value read.
// Grid: one group of one wave. Buffers: mine, theirs: 1 int each, zeroed; times: 3 unsigned.
// Clocks as scopes.hip: s_memtime on gfx8 / gfx9 / gfx10.3, the shader cycle counter on
// gfx11 (20 bits) and gfx12.
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

template <int S>
static __device__ inline bool npp_wait(int *flag, int want, int *seen) {
  for (int i = 0; i < 2000; ++i) {
    *seen = __hip_atomic_load(flag, __ATOMIC_ACQUIRE, S);
    if (*seen == want) return true;
  }
  return false;
}

#define NPP_KERNEL(S, HS)                                                                     \
extern "C" __global__ void npp__##S(int *mine, int *theirs, unsigned me, unsigned rounds,     \
                                    unsigned *times) {                                        \
  if (BID_X() != 0 || TID_X() != 0) return;                                                   \
  int seen = 0;                                                                               \
  unsigned long long t0 = READ_CYCLES();                                                      \
  for (unsigned r = 0; r < rounds; ++r) {                                                     \
    int ping = (int)(2 * r + 1), pong = (int)(2 * r + 2);                                     \
    if (me == 0) __hip_atomic_store(theirs, ping, __ATOMIC_RELEASE, HS);                      \
    if (!npp_wait<HS>(mine, me == 0 ? pong : ping, &seen)) {                                  \
      times[0] = 0xffffffffu;                                                                 \
      times[1] = r;                                                                           \
      times[2] = (unsigned)seen;                                                              \
      return;                                                                                 \
    }                                                                                         \
    if (me != 0) __hip_atomic_store(theirs, pong, __ATOMIC_RELEASE, HS);                      \
  }                                                                                           \
  unsigned long long t1 = READ_CYCLES();                                                      \
  times[0] = ((unsigned)(t1 - t0) & CYCLE_MASK) / (rounds ? rounds : 1u);                     \
  times[1] = rounds;                                                                          \
  times[2] = (unsigned)seen;                                                                  \
}

NPP_KERNEL(agent,  __HIP_MEMORY_SCOPE_AGENT)
NPP_KERNEL(system, __HIP_MEMORY_SCOPE_SYSTEM)
