// A tiny gfx950 kernel for `hipscope info` / `hipscope disasm` (built by build.sh).
#include <stdint.h>
#define __global__ __attribute__((global))
#define __device__ __attribute__((device))

extern "C" __global__ void scale_add(float *out, const float *a, const float *b, float s, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 256 + __builtin_amdgcn_workitem_id_x();
  if (i < n)
    out[i] = a[i] * s + b[i];
}

// gfx950's bit-op instruction (CDNA4 ISA, V_BITOP3_B32), through its clang builtin.
extern "C" __global__ void bitop3(unsigned *out, const unsigned *a) {
  int i = __builtin_amdgcn_workitem_id_x();
  out[i] = __builtin_amdgcn_bitop3_b32(a[i], a[i + 64], a[i + 128], 0x96);
}
