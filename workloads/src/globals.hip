// globals.hip -- kernels that use the code object's own variables (__device__, __constant__,
// zero-initialised .bss), and one that calls device printf.
//
// Variables: d_mask[16] (float, __device__, no initialiser: .bss, zero), c_scale (float,
// __constant__ = 2.5), d_init[4] (int, __device__ = {1, 2, 3, 4}: .data), retirementCount
// (unsigned, __device__ = 0).
// Kernels:
//   use_globals(float *out, unsigned n): i = blockIdx.x * blockDim.x + threadIdx.x; for i < n,
//     out[i] = d_mask[i % 16] * c_scale + d_init[i % 4]; thread 0 of every work-group then
//     adds 1 to retirementCount (so it ends as the number of work-groups).
//   say_hello(int *out): out[threadIdx.x] = threadIdx.x; thread 0 prints out[1] with device
//     printf (built with -mprintf-kind=buffered: the printf buffer comes from the hidden
//     argument hidden_printf_buffer, as the device libraries' __printf_alloc takes it).
#include "hip_mini.h"

__device__ float d_mask[16];
__constant__ float c_scale = 2.5f;
__device__ int d_init[4] = {1, 2, 3, 4};
__device__ unsigned retirementCount = 0;

extern "C" __global__ void use_globals(float *out, unsigned n) {
  unsigned i = BID_X() * BDIM_X() + TID_X();
  if (i < n) out[i] = d_mask[i % 16] * c_scale + (float)d_init[i % 4];
  if (TID_X() == 0) __hip_atomic_fetch_add(&retirementCount, 1u, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
}

// The printf buffer: its first dword is the write offset (the device libraries' layout).
extern "C" __device__ char *__printf_alloc(unsigned bytes) {
  const unsigned long *implicit = (const unsigned long *)__builtin_amdgcn_implicitarg_ptr();
  char *buffer = (char *)implicit[9]; // hidden_printf_buffer: implicit argument offset 72 (COv5)
  unsigned at = __hip_atomic_fetch_add((unsigned *)buffer, bytes, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_AGENT);
  return buffer + 8 + at;
}

extern "C" __device__ int printf(const char *, ...);

extern "C" __global__ void say_hello(int *out) {
  unsigned t = TID_X();
  out[t] = (int)t;
  if (t == 0) printf("hello %d\n", out[1]);
}
