// struct_shared -- a kernel argument that is a struct passed by value, with members of mixed
// size and alignment, and dynamic shared memory sized by the launch, launched with
// hipLaunchKernelGGL.
//
// Params puts a char before a double (7 bytes of padding), a float and an int3 (12 bytes,
// 4-aligned) after it, then a char before a pointer (7 more bytes of padding) and a trailing
// short. The runtime must copy the argument's bytes to the kernel-argument segment at the
// offset and size the kernel metadata gives, or the members land in the wrong places.
// 1. layout (1 thread) writes back every member and the device's sizeof/offsetof values; the
//    host compares them with its own (the host and device ABI agree on the layout).
// 2. reverse_scale: each block of B threads loads its slice into dynamic shared memory
//    (extern __shared__, B ints plus B floats: 2B * 4 bytes given as the launch's shared-memory
//    size), __syncthreads, and writes out[i] = rev * scale + bias + dims.x*dims.y*dims.z + tag
//    + tail, where rev is the element at the mirrored position within the block and the float
//    scratch holds in[i] * bias; the CPU computes the same in double from the same values.
#include "hip_check.h"
#include <cmath>
#include <cstddef>
#include <vector>

struct Params {
  char tag;        // offset 0
  double scale;    // offset 8
  float bias;      // offset 16
  int3 dims;       // offset 20
  char tail;       // offset 32
  double *out;     // offset 40
  short extra;     // offset 48; sizeof 56
};

struct Layout {
  unsigned long long size, off_scale, off_bias, off_dims, off_tail, off_out, off_extra;
  double scale;
  float bias;
  int dims[3];
  int tag, tail, extra;
  unsigned long long out;
};

__global__ void layout(Params p, Layout *l) {
  l->size = sizeof(Params);
  l->off_scale = offsetof(Params, scale);
  l->off_bias = offsetof(Params, bias);
  l->off_dims = offsetof(Params, dims);
  l->off_tail = offsetof(Params, tail);
  l->off_out = offsetof(Params, out);
  l->off_extra = offsetof(Params, extra);
  l->scale = p.scale;
  l->bias = p.bias;
  l->dims[0] = p.dims.x;
  l->dims[1] = p.dims.y;
  l->dims[2] = p.dims.z;
  l->tag = p.tag;
  l->tail = p.tail;
  l->extra = p.extra;
  l->out = (unsigned long long)p.out;
}

__global__ void reverse_scale(const int *in, Params p, unsigned n) {
  extern __shared__ int dyn[];
  int *vals = dyn;                                 // blockDim.x ints
  float *scaled = (float *)(dyn + blockDim.x);     // then blockDim.x floats
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  vals[t] = i < n ? in[i] : 0;
  scaled[t] = (float)vals[t] * p.bias;
  __syncthreads();
  if (i < n) {
    unsigned first = blockIdx.x * blockDim.x;
    unsigned len = n - first < blockDim.x ? n - first : blockDim.x;  // the last block is short
    unsigned m = len - 1 - t;
    p.out[i] = (double)vals[m] * p.scale + (double)scaled[t] + p.dims.x * p.dims.y * p.dims.z + p.tag + p.tail + p.extra;
  }
}

int main() {
  const unsigned n = 1000, B = 128;
  double *dout;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(double)));
  Params p;
  p.tag = 'A';
  p.scale = 0.125;
  p.bias = 1.5f;
  p.dims = make_int3(2, 3, 5);
  p.tail = -3;
  p.out = dout;
  p.extra = -1000;

  Layout *dl;
  HIP_CHECK(hipMalloc(&dl, sizeof(Layout)));
  hipLaunchKernelGGL(layout, dim3(1), dim3(1), 0, 0, p, dl);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  Layout l;
  HIP_CHECK(hipMemcpy(&l, dl, sizeof(l), hipMemcpyDeviceToHost));
  if (l.size != sizeof(Params) || l.off_scale != offsetof(Params, scale) || l.off_bias != offsetof(Params, bias) ||
      l.off_dims != offsetof(Params, dims) || l.off_tail != offsetof(Params, tail) ||
      l.off_out != offsetof(Params, out) || l.off_extra != offsetof(Params, extra))
    FAIL("device layout of Params differs: size %llu, offsets %llu %llu %llu %llu %llu %llu", l.size, l.off_scale,
         l.off_bias, l.off_dims, l.off_tail, l.off_out, l.off_extra);
  if (l.scale != p.scale) FAIL("p.scale arrived as %g, expected %g", l.scale, p.scale);
  if (l.bias != p.bias) FAIL("p.bias arrived as %g, expected %g", l.bias, p.bias);
  if (l.dims[0] != 2 || l.dims[1] != 3 || l.dims[2] != 5)
    FAIL("p.dims arrived as (%d, %d, %d), expected (2, 3, 5)", l.dims[0], l.dims[1], l.dims[2]);
  if (l.tag != 'A' || l.tail != -3 || l.extra != -1000)
    FAIL("p.tag/tail/extra arrived as %d/%d/%d, expected %d/-3/-1000", l.tag, l.tail, l.extra, 'A');
  if (l.out != (unsigned long long)dout) FAIL("p.out arrived as 0x%llx, expected %p", l.out, (void *)dout);

  std::vector<int> in(n);
  for (unsigned i = 0; i < n; i++) in[i] = (int)(i * 13 % 257) - 128;
  int *din;
  HIP_CHECK(hipMalloc(&din, n * sizeof(int)));
  HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
  const size_t shmem = 2 * B * sizeof(int);
  hipLaunchKernelGGL(reverse_scale, dim3((n + B - 1) / B), dim3(B), shmem, 0, din, p, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<double> out(n);
  HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(double), hipMemcpyDeviceToHost));
  for (unsigned i = 0; i < n; i++) {
    unsigned first = i / B * B, len = n - first < B ? n - first : B, m = first + (len - 1 - (i - first));
    double want = (double)in[m] * p.scale + (double)((float)in[i] * p.bias) + 2 * 3 * 5 + 'A' - 3 - 1000;
    if (out[i] != want) FAIL("reverse_scale: out[%u] = %.17g, expected %.17g", i, out[i], want);
  }
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipFree(dl));
  HIP_CHECK(hipFree(din));
  printf("PASS struct_shared\n");
  return 0;
}
