// streams_events -- two streams with asynchronous copies and kernels, events for timing, and
// hipStreamWaitEvent ordering the second stream after the first.
//
// Stream s1: hipMemcpyAsync x (host -> device), square (y = x * x), event done1 recorded.
// Stream s2: hipMemcpyAsync z (host -> device) and bump (z = z + 7), which need nothing from s1;
// then hipStreamWaitEvent(s2, done1) and combine (w = y + z), which reads s1's y, so without
// the wait it could read y before square wrote it; then hipMemcpyAsync w back (device -> host)
// on s2 and hipStreamSynchronize(s2). The CPU computes w = x*x + z + 7 exactly in integers.
// start/stop events bracket s1's work: after hipEventSynchronize(stop), hipEventElapsedTime
// must be a finite number >= 0, and hipEventQuery(stop) hipSuccess. y is copied back on s1 and
// checked after hipStreamSynchronize(s1) as well.
#include "hip_check.h"
#include <cmath>
#include <vector>

__global__ void square(const int *x, int *y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * x[i];
}

__global__ void bump(int *z, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] += 7;
}

__global__ void combine(const int *y, const int *z, int *w, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) w[i] = y[i] + z[i];
}

int main() {
  const unsigned n = 4096 + 5;
  const size_t bytes = n * sizeof(int);
  std::vector<int> x(n), z(n), w(n, -1), y(n, -1);
  for (unsigned i = 0; i < n; i++) {
    x[i] = (int)(i % 1000) - 500;
    z[i] = (int)(3 * i);
  }
  int *dx, *dy, *dz, *dw;
  HIP_CHECK(hipMalloc(&dx, bytes));
  HIP_CHECK(hipMalloc(&dy, bytes));
  HIP_CHECK(hipMalloc(&dz, bytes));
  HIP_CHECK(hipMalloc(&dw, bytes));
  hipStream_t s1, s2;
  HIP_CHECK(hipStreamCreate(&s1));
  HIP_CHECK(hipStreamCreate(&s2));
  hipEvent_t start, stop, done1;
  HIP_CHECK(hipEventCreate(&start));
  HIP_CHECK(hipEventCreate(&stop));
  HIP_CHECK(hipEventCreate(&done1));

  const unsigned blocks = (n + 255) / 256;
  HIP_CHECK(hipEventRecord(start, s1));
  HIP_CHECK(hipMemcpyAsync(dx, x.data(), bytes, hipMemcpyHostToDevice, s1));
  square<<<blocks, 256, 0, s1>>>(dx, dy, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipEventRecord(done1, s1));
  HIP_CHECK(hipEventRecord(stop, s1));

  HIP_CHECK(hipMemcpyAsync(dz, z.data(), bytes, hipMemcpyHostToDevice, s2));
  bump<<<blocks, 256, 0, s2>>>(dz, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipStreamWaitEvent(s2, done1, 0));
  combine<<<blocks, 256, 0, s2>>>(dy, dz, dw, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipMemcpyAsync(w.data(), dw, bytes, hipMemcpyDeviceToHost, s2));
  HIP_CHECK(hipStreamSynchronize(s2));
  for (unsigned i = 0; i < n; i++) {
    int want = x[i] * x[i] + z[i] + 7;
    if (w[i] != want) FAIL("w[%u] = %d, expected %d (s2 after s1's event)", i, w[i], want);
  }

  HIP_CHECK(hipEventSynchronize(stop));
  HIP_CHECK(hipEventQuery(stop));
  float ms = -1.0f;
  HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
  if (!std::isfinite(ms) || ms < 0.0f) FAIL("hipEventElapsedTime(start, stop) = %g ms", ms);

  HIP_CHECK(hipMemcpyAsync(y.data(), dy, bytes, hipMemcpyDeviceToHost, s1));
  HIP_CHECK(hipStreamSynchronize(s1));
  for (unsigned i = 0; i < n; i++)
    if (y[i] != x[i] * x[i]) FAIL("y[%u] = %d, expected %d", i, y[i], x[i] * x[i]);

  HIP_CHECK(hipEventDestroy(start));
  HIP_CHECK(hipEventDestroy(stop));
  HIP_CHECK(hipEventDestroy(done1));
  HIP_CHECK(hipStreamDestroy(s1));
  HIP_CHECK(hipStreamDestroy(s2));
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  HIP_CHECK(hipFree(dz));
  HIP_CHECK(hipFree(dw));
  printf("elapsed %.6f ms\n", ms);
  printf("PASS streams_events\n");
  return 0;
}
