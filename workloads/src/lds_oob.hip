// lds_oob.hip -- a kernel that reads LDS far past its allocation.
//
// Kernel: extern "C" lds_overrun(int *out, unsigned far): s (64 ints of LDS) = threadIdx.x;
//   barrier; out[t] = s[t + far] for t < 64. With far = 16384 that is 64 KiB past the array,
//   beyond any LDS a work-group can have. The ISA guides' LDS rule: an out-of-range read returns 0 (and a write is dropped),
//   so out is all zeros, with no fault.
// Grid: one work-group of 64 work-items (block (64, 1, 1)).
#include "hip_mini.h"

extern "C" __global__ void lds_overrun(int *out, unsigned far) {
  __shared__ int s[64];
  unsigned t = TID_X();
  s[t] = (int)t;
  sync_threads();
  out[t] = s[t + far];
}
