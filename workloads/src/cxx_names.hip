// cxx_names.hip -- kernels with C++ names (not extern "C", so their symbols are
// Itanium-mangled), for running kernels by their source name.
//
// Kernels (mangled name in brackets):
//   scale(float *x, float a, unsigned n)     x[i] = x[i] * a for i < n   [_Z5scalePffj]
//   scale(double *x, double a, unsigned n)   the same in f64             [_Z5scalePddj]
//   demo::offset<K>(int *x, unsigned n)      x[i] = x[i] + K for i < n, instantiated for
//                                            K = 1 and K = 2             [_ZN4demo6offsetILi1EEEvPij, ...]
// where i = blockIdx.x * blockDim.x + threadIdx.x.
// Grid:    1-D, any size >= n work-items, any block size up to 1024.
// Buffers: x: n elements, updated in place.
// A spec can name them `scale(float*, float, unsigned int)`, `demo::offset<2>` or
// `_Z5scalePffj`; plain `scale` or `offset` is ambiguous.
#include "hip_mini.h"

__global__ void scale(float *x, float a, unsigned n) {
  unsigned i = BID_X() * BDIM_X() + TID_X();
  if (i < n)
    x[i] = x[i] * a;
}

__global__ void scale(double *x, double a, unsigned n) {
  unsigned i = BID_X() * BDIM_X() + TID_X();
  if (i < n)
    x[i] = x[i] * a;
}

namespace demo {
template <int K> __global__ void offset(int *x, unsigned n) {
  unsigned i = BID_X() * BDIM_X() + TID_X();
  if (i < n)
    x[i] = x[i] + K;
}
template __global__ void offset<1>(int *x, unsigned n);
template __global__ void offset<2>(int *x, unsigned n);
} // namespace demo
