// private.hip -- per-work-item private memory (scratch) with data-dependent indexing.
//
// Kernel:  extern "C" private_gather(const unsigned *in, unsigned *out, unsigned n)
// For each i < n (i = blockIdx.x * blockDim.x + threadIdx.x):
//   buf[k] = in[(i + k) % n] * (k + 1)            for k = 0..63 (a private array)
//   j = in[i] & 63, m = (in[i] >> 6) & 63
//   out[i] = buf[j] + buf[m] + buf[(j + m) & 63]
// The indices depend on the data, so the array must live in scratch (private memory): HIP
// kernels address it with FLAT/SCRATCH instructions through the private aperture.
// Grid:    1-D, >= n work-items, e.g. grid (n rounded up to 256, 1, 1), block (256, 1, 1).
// Buffers: in: n u32 (input); out: n u32 (output).
#include "hip_mini.h"

extern "C" __global__ void private_gather(const unsigned *in, unsigned *out, unsigned n) {
  unsigned i = BID_X() * BDIM_X() + TID_X();
  if (i >= n)
    return;
  unsigned buf[64];
  for (unsigned k = 0; k < 64; k++)
    buf[k] = in[(i + k) % n] * (k + 1);
  unsigned v = in[i];
  unsigned j = v & 63, m = (v >> 6) & 63;
  out[i] = buf[j] + buf[m] + buf[(j + m) & 63];
}
