// host_funcs -- host functions in stream order: hipLaunchHostFunc and hipStreamAddCallback.
//
// On a created stream: fill (kernel writes 1s) -> copy to pinned memory -> hipLaunchHostFunc
// A -> fill (2s) -> copy -> hipStreamAddCallback B -> fill (3s) -> copy -> hipLaunchHostFunc C.
// Each host function records its letter in an order log and checks, when it runs, that the
// pinned buffer holds exactly the values the stream's earlier work copied there (so it ran
// after that work and before the later work). The callback also checks its stream and status
// arguments. After hipStreamSynchronize the log must read "ABC" and no check may have failed.
// Then host functions on the null stream and on hipStreamPerThread run in their own order
// ("DE"), and hipStreamAddCallback with flags != 0 is hipErrorInvalidValue.
//
// hipLaunchHostFunc is declared by HIP 5.2's headers but exported only from ROCm 5.3's library
// on (symbol version hip_5.3), so this program, linked against 5.2's, imports it weakly and
// fails if the runtime it runs with does not define it.
#include "hip_check.h"
#include <string>

extern "C" hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void *userData) __attribute__((weak));

__global__ void fill(int *v, int value, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = value * 10 + (int)(i % 10);
}

static const unsigned N = 3000;
static std::string order;
static int bad = 0;

struct Check {
  char letter;
  int value;
  const int *host;
};

static void verify(const Check *c) {
  order.push_back(c->letter);
  for (unsigned i = 0; i < N; i++)
    if (c->host[i] != c->value * 10 + (int)(i % 10)) {
      fprintf(stderr, "FAIL host function %c: host[%u] = %d, expected %d\n", c->letter, i, c->host[i], c->value * 10 + (int)(i % 10));
      bad++;
      return;
    }
}

static void host_fn(void *arg) { verify((const Check *)arg); }

static hipStream_t callback_stream;

static void callback(hipStream_t stream, hipError_t status, void *arg) {
  if (stream != callback_stream) {
    fprintf(stderr, "FAIL callback: stream %p, expected %p\n", (void *)stream, (void *)callback_stream);
    bad++;
  }
  if (status != hipSuccess) {
    fprintf(stderr, "FAIL callback: status %d\n", (int)status);
    bad++;
  }
  verify((const Check *)arg);
}

static void mark(void *arg) { order.push_back(*(const char *)arg); }

int main() {
  if (!hipLaunchHostFunc) FAIL("the HIP runtime does not define hipLaunchHostFunc");
  int *d, *h;
  HIP_CHECK(hipMalloc(&d, N * sizeof(int)));
  HIP_CHECK(hipHostMalloc((void **)&h, N * sizeof(int), 0));
  hipStream_t s;
  HIP_CHECK(hipStreamCreate(&s));
  callback_stream = s;
  Check a = {'A', 1, h}, b = {'B', 2, h}, c = {'C', 3, h};
  const unsigned blocks = (N + 255) / 256;

  fill<<<blocks, 256, 0, s>>>(d, 1, N);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipMemcpyAsync(h, d, N * sizeof(int), hipMemcpyDeviceToHost, s));
  HIP_CHECK(hipLaunchHostFunc(s, host_fn, &a));
  fill<<<blocks, 256, 0, s>>>(d, 2, N);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipMemcpyAsync(h, d, N * sizeof(int), hipMemcpyDeviceToHost, s));
  HIP_CHECK(hipStreamAddCallback(s, callback, &b, 0));
  fill<<<blocks, 256, 0, s>>>(d, 3, N);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipMemcpyAsync(h, d, N * sizeof(int), hipMemcpyDeviceToHost, s));
  HIP_CHECK(hipLaunchHostFunc(s, host_fn, &c));
  HIP_CHECK(hipStreamSynchronize(s));
  if (bad) FAIL("%d host function check(s) failed", bad);
  if (order != "ABC") FAIL("host functions ran in the order \"%s\", expected \"ABC\"", order.c_str());

  static const char D = 'D', E = 'E';
  HIP_CHECK(hipLaunchHostFunc(nullptr, mark, (void *)&D));
  HIP_CHECK(hipLaunchHostFunc(hipStreamPerThread, mark, (void *)&E));
  HIP_CHECK(hipDeviceSynchronize());
  if (order != "ABCDE") FAIL("order \"%s\", expected \"ABCDE\"", order.c_str());

  expect("hipStreamAddCallback with flags 1", hipStreamAddCallback(s, callback, &b, 1), hipErrorInvalidValue);
  if (expect_failures) FAIL("%d error check(s) failed", expect_failures);
  HIP_CHECK(hipStreamDestroy(s));
  HIP_CHECK(hipHostFree(h));
  HIP_CHECK(hipFree(d));
  printf("PASS host_funcs\n");
  return 0;
}
