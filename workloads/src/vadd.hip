// vadd.hip -- f32 vector add.
//
// Kernel:  extern "C" vadd(const float *a, const float *b, float *c, unsigned n)
// Computes c[i] = a[i] + b[i] for every i < n, where i = blockIdx.x * blockDim.x + threadIdx.x.
// Grid:    1-D, any size >= n work-items (HIP convention: grid counts work-items), e.g.
//          grid (n rounded up to the block size, 1, 1), block (256, 1, 1).
//          Any block size up to 1024 works (blockDim.x is read from the hidden arguments).
// Buffers: a, b: n floats (inputs); c: n floats (output).
// This source is also built as a 3-target offload bundle and as a HIP host executable
// (see src/host/ and build.sh).
#include "hip_mini.h"

extern "C" __global__ void vadd(const float *a, const float *b, float *c, unsigned n) {
  unsigned i = BID_X() * BDIM_X() + TID_X();
  if (i < n)
    c[i] = a[i] + b[i];
}
