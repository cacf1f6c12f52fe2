// misuse_memory.cpp -- memory misuse and memory limits, with the error codes ROCm's runtime
// (clr hipamd/src/hip_memory.cpp) returns:
//  * a copy or fill that runs past the end of an allocation -- even inside the allocation's
//    last page -- or spans two allocations is hipErrorInvalidValue, for every copy and fill
//    kind (1D, 2D, 3D, async, symbols, peer): ROCm checks the size against the allocation's
//    size as asked for (ihipMemcpy_validate, ihipMemset_validate);
//  * hipMalloc(0) and hipHostMalloc(0) succeed with a null pointer, hipMallocManaged(0) is
//    hipErrorInvalidValue, hipFree(nullptr) succeeds;
//  * the device's memory decides hipErrorOutOfMemory: a 100 GiB allocation succeeds on a GPU
//    whose single-allocation limit (85 % of its memory, ROCclr's GPU_SINGLE_ALLOC_PERCENT)
//    holds it, and 1 GiB allocations succeed until the device is full;
//  * after hipDeviceReset the old allocations and streams are gone.
// Every refused call must leave the buffers as they were, and the kernels after it must run.
// Prints "PASS misuse_memory" when every check holds.
#include "hip_check.h"
#include <cstring>
#include <vector>

static const size_t GiB = size_t(1) << 30;
static const size_t MiB = size_t(1) << 20;

// Writes i + 1 at p[i * stride] for i < n.
__global__ void touch(char* p, size_t stride, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[(size_t)i * stride] = (char)(i + 1);
}

__device__ int table[4];

static void check_bytes(const char* what, const char* dev, const char* want, size_t n) {
  std::vector<char> got(n);
  HIP_CHECK(hipMemcpy(got.data(), dev, n, hipMemcpyDeviceToHost));
  if (memcmp(got.data(), want, n) != 0) {
    fprintf(stderr, "FAIL %s: a refused call changed the buffer\n", what);
    expect_failures++;
  }
}

static void zero_and_null() {
  void* p = (void*)0x1;
  expect("hipMalloc(0)", hipMalloc(&p, 0), hipSuccess);
  if (p != nullptr) FAIL("hipMalloc(0) gave %p, expected a null pointer", p);
  p = (void*)0x1;
  expect("hipHostMalloc(0)", hipHostMalloc(&p, 0, 0), hipSuccess);
  if (p != nullptr) FAIL("hipHostMalloc(0) gave %p, expected a null pointer", p);
  expect("hipMallocManaged(0)", hipMallocManaged(&p, 0, hipMemAttachGlobal), hipErrorInvalidValue);
  expect("hipFree(nullptr)", hipFree(nullptr), hipSuccess);
  expect("hipMalloc to a null pointer", hipMalloc(nullptr, 16), hipErrorInvalidValue);
}

// Every copy and fill kind, one byte past a 100-byte allocation (its page has 3996 more).
static void past_the_end() {
  const size_t n = 100;
  char *a, *b;
  HIP_CHECK(hipMalloc(&a, n));
  HIP_CHECK(hipMalloc(&b, n));
  char host[8192], init[n];
  for (size_t i = 0; i < sizeof host; i++) host[i] = (char)(i * 7 + 1);
  for (size_t i = 0; i < n; i++) init[i] = (char)(200 - i);
  HIP_CHECK(hipMemcpy(a, init, n, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(b, init, n, hipMemcpyHostToDevice));
  hipStream_t s;
  HIP_CHECK(hipStreamCreate(&s));
  const hipError_t bad = hipErrorInvalidValue;
  expect("hipMemcpy H2D of n + 1 bytes", hipMemcpy(a, host, n + 1, hipMemcpyHostToDevice), bad);
  expect("hipMemcpy D2H of n + 1 bytes", hipMemcpy(host, a, n + 1, hipMemcpyDeviceToHost), bad);
  expect("hipMemcpy D2H from the byte past the end", hipMemcpy(host, a + n, 1, hipMemcpyDeviceToHost), bad);
  expect("hipMemcpy Default of n + 1 bytes", hipMemcpy(a, host, n + 1, hipMemcpyDefault), bad);
  expect("hipMemcpy Default from past the end", hipMemcpy(host, a + n, 4, hipMemcpyDefault), bad);
  expect("hipMemcpy D2D of n + 1 bytes", hipMemcpy(b, a, n + 1, hipMemcpyDeviceToDevice), bad);
  // A device-to-device copy from one allocation into the next one.
  char* lo = a < b ? a : b;
  char* hi = a < b ? b : a;
  expect("hipMemcpy D2H spanning two allocations", hipMemcpy(host, lo, (size_t)(hi - lo) + 8, hipMemcpyDeviceToHost), bad);
  expect("hipMemcpy D2D into two allocations", hipMemcpy(lo + n - 4, hi, 8, hipMemcpyDeviceToDevice), bad);
  expect("hipMemcpyHtoD", hipMemcpyHtoD(a, host, n + 1), bad);
  expect("hipMemcpyDtoH", hipMemcpyDtoH(host, a, n + 1), bad);
  expect("hipMemcpyDtoD", hipMemcpyDtoD(b, a, n + 1), bad);
  expect("hipMemcpyAsync", hipMemcpyAsync(a, host, n + 1, hipMemcpyHostToDevice, s), bad);
  expect("hipMemcpyHtoDAsync", hipMemcpyHtoDAsync(a, host, n + 1, s), bad);
  expect("hipMemcpyDtoHAsync", hipMemcpyDtoHAsync(host, a, n + 1, s), bad);
  expect("hipMemcpyDtoDAsync", hipMemcpyDtoDAsync(b, a, n + 1, s), bad);
  expect("hipMemcpyWithStream", hipMemcpyWithStream(a, host, n + 1, hipMemcpyHostToDevice, s), bad);
  expect("hipMemcpyPeer", hipMemcpyPeer(b, 0, a, 0, n + 1), bad);
  expect("hipMemcpyPeerAsync", hipMemcpyPeerAsync(b, 0, a, 0, n + 1, s), bad);
  expect("hipMemset", hipMemset(a, 0, n + 1), bad);
  expect("hipMemsetAsync", hipMemsetAsync(a, 0, n + 1, s), bad);
  expect("hipMemsetD8", hipMemsetD8((hipDeviceptr_t)a, 0, n + 1), bad);
  expect("hipMemsetD16", hipMemsetD16((hipDeviceptr_t)a, 0, n / 2 + 1), bad);
  expect("hipMemsetD32", hipMemsetD32((hipDeviceptr_t)a, 0, n / 4 + 1), bad);
  expect("hipMemsetD32Async", hipMemsetD32Async((hipDeviceptr_t)a, 0, n / 4 + 1, s), bad);
  expect("hipMemset at the byte past the end", hipMemset(a + n, 0, 1), bad);
  // 2D: 5 rows of 20 bytes, pitch 20 -- the fifth row ends at byte 100, the sixth past it.
  expect("hipMemcpy2D, rows past the end", hipMemcpy2D(a, 20, host, 20, 20, 6, hipMemcpyHostToDevice), bad);
  expect("hipMemcpy2DAsync, rows past the end", hipMemcpy2DAsync(host, 20, a, 20, 20, 6, hipMemcpyDeviceToHost, s), bad);
  expect("hipMemset2D, rows past the end", hipMemset2D(a, 20, 0, 20, 6), bad);
  expect("hipMemset2DAsync, rows past the end", hipMemset2DAsync(a, 20, 0, 20, 6, s), bad);
  // 3D: 2 slices of 3 rows of 20 bytes, pitch 20 -- 120 bytes.
  hipMemcpy3DParms p = {};
  p.srcPtr = make_hipPitchedPtr(host, 20, 20, 3);
  p.dstPtr = make_hipPitchedPtr(a, 20, 20, 3);
  p.extent = make_hipExtent(20, 3, 2);
  p.kind = hipMemcpyHostToDevice;
  expect("hipMemcpy3D, a slice past the end", hipMemcpy3D(&p), bad);
  expect("hipMemcpy3DAsync, a slice past the end", hipMemcpy3DAsync(&p, s), bad);
  expect("hipMemset3D, a slice past the end", hipMemset3D(make_hipPitchedPtr(a, 20, 20, 3), 0, make_hipExtent(20, 3, 2)), bad);
  // Symbols: past the variable, from a device range past its allocation, and a kind ROCm
  // refuses for a copy to a variable (hipMemcpyToSymbol_common).
  expect("hipMemcpyToSymbol past the variable", hipMemcpyToSymbol(HIP_SYMBOL(table), host, 12, 8), bad);
  expect("hipMemcpyFromSymbol past the variable", hipMemcpyFromSymbol(host, HIP_SYMBOL(table), 20), bad);
  expect("hipMemcpyToSymbol from past an allocation", hipMemcpyToSymbol(HIP_SYMBOL(table), a + n - 8, 16, 0, hipMemcpyDeviceToDevice), bad);
  expect("hipMemcpyToSymbolAsync past the variable", hipMemcpyToSymbolAsync(HIP_SYMBOL(table), host, 20, 0, hipMemcpyHostToDevice, s), bad);
  expect("hipMemcpyToSymbol with hipMemcpyDeviceToHost", hipMemcpyToSymbol(HIP_SYMBOL(table), host, 4, 0, hipMemcpyDeviceToHost),
         hipErrorInvalidMemcpyDirection);
  // Exactly the allocation is fine, and nothing refused above wrote anything.
  HIP_CHECK(hipStreamSynchronize(s));
  check_bytes("a", a, init, n);
  check_bytes("b", b, init, n);
  HIP_CHECK(hipMemcpy(a, host, n, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset(b + n - 1, 0x5a, 1));
  check_bytes("a after a whole copy", a, host, n);
  HIP_CHECK(hipStreamDestroy(s));
  HIP_CHECK(hipFree(a));
  HIP_CHECK(hipFree(b));
}

// The device's memory, not the host's, decides hipErrorOutOfMemory.
static void capacity() {
  size_t free0 = 0, total = 0;
  HIP_CHECK(hipMemGetInfo(&free0, &total));
  void* p = nullptr;
  expect("hipMalloc of more than the device has", hipMalloc(&p, total + 1), hipErrorOutOfMemory);
  // 100 GiB where one allocation may take it (MI300X: 192 GB), else 16 GiB.
  size_t big_bytes = 100 * GiB;
  if (big_bytes > total / 100 * 85) {
    expect("hipMalloc of 100 GiB on a smaller GPU", hipMalloc(&p, big_bytes), hipErrorOutOfMemory);
    big_bytes = 16 * GiB;
  }
  char* big = nullptr;
  HIP_CHECK(hipMalloc(&big, big_bytes));
  // A kernel touching one byte per GiB, and a copy at the very end.
  int pages = (int)(big_bytes / GiB);
  touch<<<1, 128>>>(big, GiB, pages);
  HIP_CHECK_LAUNCH();
  const char tail[4] = {1, 2, 3, 4};
  HIP_CHECK(hipMemcpy(big + big_bytes - 4, tail, 4, hipMemcpyHostToDevice));
  for (int i = 0; i < pages; i += 7) {
    char c = 0;
    HIP_CHECK(hipMemcpy(&c, big + (size_t)i * GiB, 1, hipMemcpyDeviceToHost));
    if (c != (char)(i + 1)) FAIL("big[%d GiB] = %d, expected %d", i, c, i + 1);
  }
  check_bytes("the end of the big allocation", big + big_bytes - 4, tail, 4);
  HIP_CHECK(hipFree(big));
  // Forty untouched 256 MiB allocations.
  std::vector<void*> many(40);
  for (auto& m : many) HIP_CHECK(hipMalloc(&m, 256 * MiB));
  for (auto m : many) HIP_CHECK(hipFree(m));
  // 1 GiB at a time until the device is full: as many as its free memory holds.
  HIP_CHECK(hipMemGetInfo(&free0, &total));
  std::vector<void*> chunks;
  hipError_t e = hipSuccess;
  while (chunks.size() <= total / GiB && (e = hipMalloc(&p, GiB)) == hipSuccess) chunks.push_back(p);
  expect("hipMalloc once the device is full", e, hipErrorOutOfMemory);
  if (chunks.size() + 1 < free0 / GiB) FAIL("only %zu GiB allocated of %zu GiB free", chunks.size(), free0 / GiB);
  printf("ok %zu allocations of 1 GiB before hipErrorOutOfMemory (%zu GiB free)\n", chunks.size(), free0 / GiB);
  for (auto c : chunks) HIP_CHECK(hipFree(c));
}

// After hipDeviceReset the old allocations and streams are gone; new ones work.
static void after_reset() {
  char* r = nullptr;
  HIP_CHECK(hipMalloc(&r, 4096));
  hipStream_t s;
  HIP_CHECK(hipStreamCreate(&s));
  HIP_CHECK(hipDeviceReset());
  char host[16] = {0};
  expect("hipMemset of memory freed by hipDeviceReset", hipMemset(r, 0, 16), hipErrorInvalidValue);
  expect("hipMemcpy from memory freed by hipDeviceReset", hipMemcpy(host, r, 16, hipMemcpyDeviceToHost), hipErrorInvalidValue);
  expect("hipFree of memory freed by hipDeviceReset", hipFree(r), hipErrorInvalidValue);
  expect("hipStreamSynchronize of a stream hipDeviceReset destroyed", hipStreamSynchronize(s), hipErrorContextIsDestroyed);
  char* fresh = nullptr;
  HIP_CHECK(hipMalloc(&fresh, 64));
  touch<<<1, 64>>>(fresh, 1, 64);
  HIP_CHECK_LAUNCH();
  char want[64];
  for (int i = 0; i < 64; i++) want[i] = (char)(i + 1);
  check_bytes("a kernel after hipDeviceReset", fresh, want, 64);
  HIP_CHECK(hipFree(fresh));
}

int main() {
  zero_and_null();
  past_the_end();
  capacity();
  after_reset();
  if (expect_failures) {
    fprintf(stderr, "FAIL misuse_memory: %d check(s)\n", expect_failures);
    return 1;
  }
  printf("PASS misuse_memory\n");
  return 0;
}
