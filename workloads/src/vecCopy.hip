// vecCopy.hip -- f64 vector copy with the argument list of the vcopy microbenchmark
// that the device-data profiles (shared/device-data) were measured with.
//
// Kernel:  extern "C" vecCopy(double *a, double *b, double *c, int n, int stride)
// Computes c[id] = a[id] for every id < n, id = blockIdx.x * blockDim.x + threadIdx.x.
//          b and stride are accepted but unused (kept so launch specs match the
//          benchmark's kernarg layout: 3 pointers, 2 ints = 32 bytes of explicit args).
// Grid:    1-D, >= n work-items, e.g. grid (n rounded up to 256, 1, 1), block (256, 1, 1);
//          any block size up to 1024.
// Buffers: a: n doubles (input); b: unused (may be any buffer); c: n doubles (output).
#include "hip_mini.h"

extern "C" __global__ void vecCopy(double *a, double *b, double *c, int n, int stride) {
  (void)b;
  (void)stride;
  int id = (int)(BID_X() * BDIM_X() + TID_X());
  if (id < n)
    c[id] = a[id];
}
