// bitonic_cov4.hip -- one step of a bitonic sort, built as code object v4 (what hipcc emitted
// before ROCm 6): without hidden arguments the kernarg segment is exactly the 20 bytes of the
// explicit arguments, and clang loads j, k and n with one s_load_dwordx4 at offset 8, reading
// bytes 8..23, past the segment's end. The HIP runtime places kernarg segments in a larger
// pool, so on hardware that read never faults.
//
// Kernel: extern "C" bitonic_step(unsigned *a, unsigned j, unsigned k, unsigned n)
//   i = blockIdx.x * 256 + threadIdx.x (blocks of 256); partner l = i ^ j; if i < n and l > i,
//   a[i] and a[l] are swapped when they are out of order for the direction (i & k) == 0
//   (ascending) or not (descending).
// Dispatches for k = 2, 4, ..., n and, for each k, j = k/2, k/4, ..., 1 sort a[0..n)
// ascending (n a power of two).
#include "hip_mini.h"

extern "C" __global__ void bitonic_step(unsigned *a, unsigned j, unsigned k, unsigned n) {
  unsigned i = BID_X() * 256 + TID_X();
  unsigned l = i ^ j;
  if (i < n && l > i) {
    unsigned x = a[i], y = a[l];
    bool ascending = (i & k) == 0;
    if ((x > y) == ascending) {
      a[i] = y;
      a[l] = x;
    }
  }
}
