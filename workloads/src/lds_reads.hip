// lds_reads.hip -- back-to-back LDS reads, to time the LDS's issue rate (tests/timing_lds_rate.rs).
//
// lds_read_bN(unsigned *out, unsigned reps, unsigned zero), N = 32, 64, 128 (zero must be 0):
//   each wave reads its lanes' elements of the work-group's LDS array eight times per step,
//   `reps` steps, with eight independent ds_read_bN (one element of N bits per lane each) issued back to back before
//   the first of them is used. The eight reads of a step are 257 elements apart (b32: 1028
//   bytes, b64: 2056 bytes, b128: 4112 bytes; none a multiple of 256 bytes and each beyond the
//   reach of ds_read2's offsets, so the compiler keeps them eight single reads), lane l reading
//   element l + 257 k + r * zero in step r: consecutive lanes take consecutive banks (no bank
//   conflicts). The compiler cannot know that zero is 0 (gpu-cache's `B += zero`), so the reads
//   stay in the loop and steps do not merge; the loop is not unrolled. out[global id] gets the
//   xor of everything read (the array holds its index, so the value is known).
//   Grid: 1-D; Block: up to 1024 (launch bound). LDS: 8 x 257 + 256 elements.
#include "hip_mini.h"

typedef unsigned v2u __attribute__((ext_vector_type(2)));
typedef unsigned v4u __attribute__((ext_vector_type(4)));

#define READS 8
#define APART 257
#define ELEMS (READS * APART + 256)

#define LDS_READS(NAME, T, ZERO, FOLD)                                                          \
  extern "C" __global__ __launch_bounds__(1024) void NAME(unsigned *out, unsigned reps, unsigned zero) {\
    __shared__ T s[ELEMS];                                                                     \
    unsigned t = TID_X();                                                                      \
    for (unsigned i = t; i < ELEMS; i += BDIM_X()) {                                           \
      T v = ZERO;                                                                              \
      v += (T)i;                                                                               \
      s[i] = v;                                                                                \
    }                                                                                          \
    sync_threads();                                                                            \
    T acc = ZERO;                                                                              \
    unsigned lane = t % WAVE_SIZE;                                                             \
    _Pragma("clang loop unroll(disable)")                                                      \
    for (unsigned r = 0; r < reps; ++r) {                                                      \
      unsigned b = lane + r * zero;                                                            \
      T x[READS];                                                                              \
      for (unsigned k = 0; k < READS; ++k)                                                     \
        x[k] = s[b + k * APART];                                                               \
      for (unsigned k = 0; k < READS; ++k)                                                     \
        acc ^= x[k];                                                                           \
    }                                                                                          \
    out[BID_X() * BDIM_X() + t] = FOLD(acc);                                                   \
  }

#define ID(a) (a)
#define FOLD2(a) ((a).x ^ (a).y)
#define FOLD4(a) ((a).x ^ (a).y ^ (a).z ^ (a).w)

LDS_READS(lds_read_b32, unsigned, 0u, ID)
LDS_READS(lds_read_b64, v2u, ((v2u){0u, 0u}), FOLD2)
LDS_READS(lds_read_b128, v4u, ((v4u){0u, 0u, 0u, 0u}), FOLD4)
