// latency.hip -- dependent-load latency against working-set size, the way te42kyfo/gpu-benches'
// gpu-latency measures it (../shared/notes/device-data.md, dataset A9/A10): a random cycle
// of 64-bit pointers spaced `spacing` bytes apart, followed by one lane, so each hop pays one
// full memory latency at the level that holds the working set.
//
// chase_prepare(u64 *buf, unsigned entries, unsigned spacing_u64):
//   entry e (the u64 at buf[e * spacing_u64]) holds the byte offset of the next entry from buf;
//   make it an address: += (u64)buf. One work-item per entry; grid >= entries.
// latency_chase(const u64 *buf, const unsigned *visits, unsigned entries, unsigned spacing_u64,
//               unsigned steps, u64 *out):
//   work-group 0 only. Warm-up: its lanes read every entry once in the chase's visiting order
//   (`visits`: entry numbers from entry 0 on; lane l reads visits[l], visits[l + blockDim],
//   ...), leaving the caches as the real benchmark's long chase leaves them: a working set
//   that fits a level is in it, and one that does not has its most recently visited lines
//   there, which the next lap needs last (so a cyclic chase misses, as it does on the GPU).
//   Then lane 0 follows p = *p from entry 0 `steps` times (a multiple of 16), timed with the
//   shader clock:
//   out[0] = elapsed cycles, out[1] = final p (keeps the chain live), out[2] = warm-up sum.
//   Cycles per hop = out[0] / steps.
// Counters as in pointer_chase.hip: s_memtime on gfx8/gfx9/gfx10.3, SHADER_CYCLES on gfx11
// (20 bits: out[0] is (end - start) mod 2^20) and gfx12.
#include "hip_mini.h"

typedef unsigned long long u64;

#if defined(__GFX11__) || defined(__GFX12__)
#define READ_CYCLES() __builtin_readcyclecounter()
#else
#define READ_CYCLES() __builtin_amdgcn_s_memtime()
#endif

// The value once it has arrived (a uniform branch on it orders the timer read after the load).
#define ARRIVED(v) (__builtin_amdgcn_readfirstlane((unsigned)(v)) != 0xffffffffu)

extern "C" __global__ void chase_prepare(u64 *buf, unsigned entries, unsigned spacing_u64) {
  unsigned e = BID_X() * BDIM_X() + TID_X();
  if (e < entries)
    buf[(u64)e * spacing_u64] += (u64)buf;
}

extern "C" __global__ void latency_chase(const u64 *buf, const unsigned *visits, unsigned entries,
                                         unsigned spacing_u64, unsigned steps, u64 *out) {
  if (BID_X() != 0)
    return;
  u64 sink = 0;
  for (unsigned i = TID_X(); i < entries; i += BDIM_X())
    sink += buf[(u64)visits[i] * spacing_u64];
  if (TID_X() != 0)
    return;
  const u64 *p = (const u64 *)buf[0];
  if (!ARRIVED(sink) && !ARRIVED((u64)p))
    return;
  u64 c0 = READ_CYCLES();
  for (unsigned k = 0; k < steps; k += 16) {
#pragma unroll
    for (int u = 0; u < 16; ++u)
      p = (const u64 *)*p;
  }
  if (!ARRIVED((u64)p))
    return;
  u64 c1 = READ_CYCLES();
  out[0] = c1 - c0;
  out[1] = (u64)p;
  out[2] = sink;
}
