// bandwidth.hip -- read bandwidth against working-set size, in the spirit of te42kyfo/
// gpu-benches' gpu-cache / gpu-l2-cache / gpu-stream (../shared/notes/device-data.md, A9/A10):
// every work-item reads doubles at a grid stride over a buffer, `reps` times over, so a buffer
// whose share per CU fits the L1 is read from the L1 after the first pass, one that fits the
// L2 from the L2, and a large one from memory.
//
// bw_read(const double *a, unsigned n, unsigned reps, double *out):
//   for r < reps: for i = global id; i < n; i += grid size: sum += a[i].
//   out[0] = sum only if sum is exactly -1234.5 (never, for inputs in [-1, 1) or zeros): the
//   loads stay live without a store. Bytes read = 8 * n * reps.
#include "hip_mini.h"

extern "C" __global__ void bw_read(const double *a, unsigned n, unsigned reps, double *out) {
  unsigned gid = BID_X() * BDIM_X() + TID_X();
  unsigned stride = __builtin_amdgcn_grid_size_x();
  double sum = 0.0;
  for (unsigned r = 0; r < reps; ++r)
    for (unsigned i = gid; i < n; i += stride)
      sum += a[i];
  if (sum == -1234.5)
    out[0] = sum;
}
