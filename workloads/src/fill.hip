// fill.hip -- a fill as a runtime's memset kernel does it: every 16-byte element of out gets
// (v, v, v, v). Used to check that stores cannot outrun the memory the L2 writes back to: a
// 64 MiB fill on a full GPU takes at least 64 MiB / the DRAM bandwidth (tests/timing_writeback.rs).
//
// fill_v4(v4u *out, unsigned n, unsigned v): grid-stride loop, work-item i storing elements
//   i, i + G (G: work-items in the grid), ... below n (one global_store_dwordx4 per lane per step).
//   Grid: any 1-D; Block: any 1-D. Buffers: out: n * 16 bytes.
#include "hip_mini.h"

typedef unsigned v4u __attribute__((ext_vector_type(4)));

extern "C" __global__ void fill_v4(v4u *out, unsigned n, unsigned v) {
  unsigned step = __builtin_amdgcn_grid_size_x();   // work-items in the grid (dispatch packet)
  v4u x = {v, v, v, v};
  for (unsigned i = BID_X() * BDIM_X() + TID_X(); i < n; i += step)
    out[i] = x;
}
