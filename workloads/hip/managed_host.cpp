// managed_host -- hipMallocManaged memory used by host and kernel in turn, and hipHostMalloc
// pinned memory read directly by a kernel.
//
// 1. The host writes m[i] = i into managed memory, scale_add makes it m[i] = 3*m[i] + 1 on the
//    device, and after hipDeviceSynchronize the host reads every element in place (no copy)
//    and checks 3i + 1. A second launch (m[i] = 3*m[i] + 1 again) checks the host's and the
//    device's views stay one memory across several round trips: 9i + 4.
// 2. The host fills pinned memory from hipHostMalloc with h[i] = 2i - 5; gather reads it from
//    the kernel (the pointer is the host pointer: HIP maps pinned memory into the device
//    address space) and writes out[i] = h[n - 1 - i] * 10 to device memory, which the host
//    copies back and checks. hipHostGetDevicePointer must give a pointer the kernel can use
//    too; the result through it must be identical.
#include "hip_check.h"
#include <vector>

__global__ void scale_add(int *m, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) m[i] = 3 * m[i] + 1;
}

__global__ void gather(const int *h, int *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = h[n - 1 - i] * 10;
}

int main() {
  const unsigned n = 2048 + 17;
  int *m = nullptr;
  HIP_CHECK(hipMallocManaged(&m, n * sizeof(int), hipMemAttachGlobal));
  for (unsigned i = 0; i < n; i++) m[i] = (int)i;
  scale_add<<<(n + 255) / 256, 256>>>(m, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  for (unsigned i = 0; i < n; i++)
    if (m[i] != 3 * (int)i + 1) FAIL("managed after one launch: m[%u] = %d, expected %d", i, m[i], 3 * (int)i + 1);
  scale_add<<<(n + 255) / 256, 256>>>(m, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  for (unsigned i = 0; i < n; i++)
    if (m[i] != 9 * (int)i + 4) FAIL("managed after two launches: m[%u] = %d, expected %d", i, m[i], 9 * (int)i + 4);
  HIP_CHECK(hipFree(m));

  int *h = nullptr;
  HIP_CHECK(hipHostMalloc((void **)&h, n * sizeof(int), hipHostMallocDefault));
  for (unsigned i = 0; i < n; i++) h[i] = 2 * (int)i - 5;
  int *dout;
  HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
  std::vector<int> out(n);
  gather<<<(n + 127) / 128, 128>>>(h, dout, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
  for (unsigned i = 0; i < n; i++) {
    int want = h[n - 1 - i] * 10;
    if (out[i] != want) FAIL("pinned gather: out[%u] = %d, expected %d", i, out[i], want);
  }
  int *hd = nullptr;
  HIP_CHECK(hipHostGetDevicePointer((void **)&hd, h, 0));
  HIP_CHECK(hipMemset(dout, 0, n * sizeof(int)));
  gather<<<(n + 127) / 128, 128>>>(hd, dout, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
  for (unsigned i = 0; i < n; i++) {
    int want = h[n - 1 - i] * 10;
    if (out[i] != want) FAIL("pinned gather via hipHostGetDevicePointer: out[%u] = %d, expected %d", i, out[i], want);
  }
  HIP_CHECK(hipFree(dout));
  HIP_CHECK(hipHostFree(h));
  printf("PASS managed_host\n");
  return 0;
}
