// pointer_chase.hip -- dependent-load latency probe timed with the GPU's own counters.
//
// Kernel:  extern "C" pointer_chase(const unsigned *next, unsigned start, unsigned steps,
//                                   unsigned long long *out)
// Only lane 0 of work-group 0 works (all other work-items exit at once):
//   p = start; timed: repeat steps times: p = next[p];
//   out[0] = elapsed shader-clock cycles around the loop,
//   out[1] = elapsed constant-rate "real time" ticks (REFCLK, 100 MHz on the listed GPUs),
//   out[2] = final p (keeps the chain live; CPU reference: follow next[] steps times from start).
//   If start or a loaded index is 0xffffffff the kernel stops without writing out (never happens for a
//   valid chain; the check is what orders the timer reads after the loads, see ARRIVED).
// Each load's address depends on the previous load, so the loop takes steps full memory
// latencies. `next` must hold indices < its length (e.g. a stride or random cycle).
// Grid:    (64, 1, 1) work-items, block (64, 1, 1) (one wave64 or two wave32 waves; only one
//          lane does anything). Buffers: next: N u32 (input); out: 3 u64 (output).
//
// Counters per target (clang-19 builtins, chosen by #if below):
//   gfx8/gfx9/gfx10.3: __builtin_amdgcn_s_memtime (s_memtime, 64-bit core clock) and
//                      __builtin_amdgcn_s_memrealtime (s_memrealtime, 64-bit REFCLK).
//   gfx11:  no s_memtime/s_memrealtime. __builtin_readcyclecounter -> s_getreg_b32
//           HW_REG_SHADER_CYCLES, a 20-bit counter, so out[0] is (end - start) mod 2^20;
//           __builtin_readsteadycounter -> s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME.
//   gfx12:  __builtin_readcyclecounter -> HW_REG_SHADER_CYCLES_HI/LO (64-bit, read hi-lo-hi);
//           __builtin_readsteadycounter -> s_sendmsg_rtn_b64 MSG_RTN_GET_REALTIME.
#include "hip_mini.h"

#if defined(__GFX11__) || defined(__GFX12__)
#define READ_CYCLES()   __builtin_readcyclecounter()
#define READ_REALTIME() __builtin_readsteadycounter()
#else
#define READ_CYCLES()   __builtin_amdgcn_s_memtime()
#define READ_REALTIME() __builtin_amdgcn_s_memrealtime()
#endif

#if defined(__GFX11__)
#define CYCLE_MASK 0xfffffull       // SHADER_CYCLES is 20 bits wide on gfx11
#else
#define CYCLE_MASK (~0ull)
#endif

// Returns v once it has arrived: the uniform compare-and-branch on v needs the load's
// result, and a timer read after it cannot move above the branch (timer builtins have
// side effects). This keeps the compiler from reading the end timer before the last
// load of the chain has completed. ~0u is never a valid index.
#define ARRIVED(v) (__builtin_amdgcn_readfirstlane(v) != 0xffffffffu)

extern "C" __global__ void pointer_chase(const unsigned *next, unsigned start, unsigned steps,
                                         unsigned long long *out) {
  if (BID_X() != 0 || TID_X() != 0)
    return;
  unsigned p = start;
  // Start timing only once the kernel arguments (start, and next's high word: never ~0u for
  // a 48-bit GPU address) have arrived, so no kernarg s_load falls inside the timed region.
  if (!ARRIVED(p) || !ARRIVED((unsigned)((unsigned long long)next >> 32)))
    return;
  unsigned long long c0 = READ_CYCLES();
  unsigned long long r0 = READ_REALTIME();
  for (unsigned i = 0; i < steps; ++i)
    p = next[p];                         // timed hops
  if (!ARRIVED(p))
    return;
  unsigned long long c1 = READ_CYCLES();
  unsigned long long r1 = READ_REALTIME();
  out[0] = (c1 - c0) & CYCLE_MASK;
  out[1] = r1 - r0;
  out[2] = p;
}
