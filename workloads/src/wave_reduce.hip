// wave_reduce.hip -- wave-level reduction and lane masks with cross-lane builtins.
// Correct for wave32 and wave64 builds: W = warpSize (32 or 64) is fixed per build.
//
// Kernel:  extern "C" wave_reduce(const int *in, int *sums, unsigned long long *masks)
// For each wave w (w = global work-item id / W, lane l = its lane id):
//   v = in[w * W + l]
//   1. sum within each row of 16 lanes with DPP: row_ror:8, row_ror:4 (__builtin_amdgcn_update_dpp),
//      quad_perm [2,3,0,1], quad_perm [1,0,3,2] (__builtin_amdgcn_mov_dpp);
//   2. add the other rows with ds_bpermute (__builtin_amdgcn_ds_bpermute, lane ^ 16, lane ^ 32);
//   sums[2w]     = wave sum read from the first lane (readfirstlane),
//   sums[2w + 1] = wave sum read from lane W-1 (readlane)   (both = sum of the wave's v, wrapping);
//   masks[2w]     = ballot of (v odd)  (__builtin_amdgcn_ballot_w64; bit l set iff in[w*W+l] is odd;
//                   bits 32..63 are 0 in a wave32 build),
//   masks[2w + 1] = EXEC at that point (__builtin_amdgcn_read_exec): 0xffffffff for a full wave32,
//                   0xffffffffffffffff for a full wave64.
// Only the wave's first lane writes. The lane id is mbcnt(~0) (v_mbcnt_lo/hi).
// Grid: 1-D, a multiple of 64 work-items, e.g. grid (256, 1, 1), block (64, 1, 1)
//   (block must be a multiple of 64 so every wave is full in both wave sizes).
// Buffers: in: grid int (input); sums: 2 * grid / W int; masks: 2 * grid / W u64 (outputs).
//   Note the output count depends on W: size them for W = 32 (the larger) to cover both.
#include "hip_mini.h"

// DPP controls (AMDGPU ISA "DPP_CTRL"): valid on every target here (GFX8 .. GFX12).
#define DPP_QUAD_PERM(a, b, c, d) ((a) | ((b) << 2) | ((c) << 4) | ((d) << 6))
#define DPP_ROW_ROR(n) (0x120 + (n))

static __device__ inline unsigned lane_id(void) {
#if WAVE_SIZE == 64
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
#else
  return __builtin_amdgcn_mbcnt_lo(~0u, 0u);
#endif
}

extern "C" __global__ void wave_reduce(const int *in, int *sums, unsigned long long *masks) {
  unsigned gid = BID_X() * BDIM_X() + TID_X();
  unsigned wave = gid / WAVE_SIZE;
  unsigned lane = lane_id();
  int v = in[gid];

  // 1. within rows of 16 lanes
  int s = v;
  s += __builtin_amdgcn_update_dpp(0, s, DPP_ROW_ROR(8), 0xf, 0xf, false);
  s += __builtin_amdgcn_update_dpp(0, s, DPP_ROW_ROR(4), 0xf, 0xf, false);
  s += __builtin_amdgcn_mov_dpp(s, DPP_QUAD_PERM(2, 3, 0, 1), 0xf, 0xf, false);
  s += __builtin_amdgcn_mov_dpp(s, DPP_QUAD_PERM(1, 0, 3, 2), 0xf, 0xf, false);
  // 2. across rows: ds_bpermute takes a byte address (lane * 4) of the source lane
  for (unsigned off = 16; off < WAVE_SIZE; off <<= 1)
    s += __builtin_amdgcn_ds_bpermute((int)((lane ^ off) << 2), s);

  int first = __builtin_amdgcn_readfirstlane(s);
  int last = __builtin_amdgcn_readlane(s, WAVE_SIZE - 1);
  unsigned long long odd = __builtin_amdgcn_ballot_w64((v & 1) != 0);
  unsigned long long exec = __builtin_amdgcn_read_exec();
  if (lane == 0) {
    sums[2 * wave] = first;
    sums[2 * wave + 1] = last;
    masks[2 * wave] = odd;
    masks[2 * wave + 1] = exec;
  }
}
