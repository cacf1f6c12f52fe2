// host_threads -- HIP calls from several host threads at once.
//
// Two worker threads each create their own stream and, ROUNDS times, copy their input to the
// device, launch `affine` (y = x * a + b with their own a and b) and a second kernel on the
// result, copy it back on their stream and synchronise that stream, checking every element
// each round. A third worker does the same on hipStreamPerThread (HIP's per-thread default
// stream, ((hipStream_t)2)): its copies, launch, event record and synchronisation all name
// that handle. The main thread meanwhile runs its own loop on the null stream. All four
// threads' results are checked against the CPU; any failed call or wrong value exits 1.
// Afterwards hipStreamDestroy(hipStreamPerThread) must fail (it is not a created stream) and
// hipStreamQuery(hipStreamPerThread) succeed once the work is done.
#include "hip_check.h"
#include <atomic>
#include <thread>
#include <vector>

__global__ void affine(const int *x, int *y, int a, int b, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i] * a + b;
}

__global__ void add_index(int *y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += (int)i;
}

static const int ROUNDS = 6;
static std::atomic<int> failures{0};

static void worker(int id, bool per_thread) {
  const unsigned n = 2048 + 37 * id;
  const int a = 3 + id, b = -11 * id;
  hipStream_t s = hipStreamPerThread;
  if (!per_thread) HIP_CHECK(hipStreamCreate(&s));
  int *dx, *dy;
  HIP_CHECK(hipMalloc(&dx, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dy, n * sizeof(int)));
  hipEvent_t done;
  HIP_CHECK(hipEventCreate(&done));
  std::vector<int> x(n), y(n);
  for (int r = 0; r < ROUNDS; r++) {
    for (unsigned i = 0; i < n; i++) x[i] = (int)(i * 5 + r * 100 + id) % 997 - 400;
    std::fill(y.begin(), y.end(), -1);
    HIP_CHECK(hipMemcpyAsync(dx, x.data(), n * sizeof(int), hipMemcpyHostToDevice, s));
    affine<<<(n + 127) / 128, 128, 0, s>>>(dx, dy, a, b, n);
    HIP_CHECK_LAUNCH();
    add_index<<<(n + 127) / 128, 128, 0, s>>>(dy, n);
    HIP_CHECK_LAUNCH();
    HIP_CHECK(hipEventRecord(done, s));
    HIP_CHECK(hipMemcpyAsync(y.data(), dy, n * sizeof(int), hipMemcpyDeviceToHost, s));
    HIP_CHECK(hipStreamSynchronize(s));
    HIP_CHECK(hipEventSynchronize(done));
    for (unsigned i = 0; i < n; i++) {
      int want = x[i] * a + b + (int)i;
      if (y[i] != want) {
        fprintf(stderr, "FAIL thread %d round %d: y[%u] = %d, expected %d\n", id, r, i, y[i], want);
        failures++;
        break;
      }
    }
  }
  HIP_CHECK(hipEventDestroy(done));
  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  if (!per_thread) HIP_CHECK(hipStreamDestroy(s));
}

int main() {
  std::thread t1(worker, 1, false), t2(worker, 2, false), t3(worker, 3, true);
  // The main thread works on the null stream meanwhile.
  worker(0, false);
  t1.join();
  t2.join();
  t3.join();
  if (failures) FAIL("%d thread round(s) gave wrong results", failures.load());

  // The main thread's own per-thread stream works too, and is not a created stream.
  int *d;
  HIP_CHECK(hipMalloc(&d, 256 * sizeof(int)));
  HIP_CHECK(hipMemsetAsync(d, 0, 256 * sizeof(int), hipStreamPerThread));
  add_index<<<1, 256, 0, hipStreamPerThread>>>(d, 256);
  HIP_CHECK_LAUNCH();
  std::vector<int> h(256, -1);
  HIP_CHECK(hipMemcpyAsync(h.data(), d, 256 * sizeof(int), hipMemcpyDeviceToHost, hipStreamPerThread));
  HIP_CHECK(hipStreamSynchronize(hipStreamPerThread));
  for (int i = 0; i < 256; i++)
    if (h[i] != i) FAIL("per-thread stream of the main thread: h[%d] = %d", i, h[i]);
  HIP_CHECK(hipStreamQuery(hipStreamPerThread));
  expect("hipStreamDestroy(hipStreamPerThread)", hipStreamDestroy(hipStreamPerThread), hipErrorInvalidHandle);
  if (expect_failures) FAIL("%d error check(s) failed", expect_failures);
  HIP_CHECK(hipFree(d));
  printf("PASS host_threads\n");
  return 0;
}
