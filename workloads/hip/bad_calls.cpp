// bad_calls.cpp -- calls a HIP runtime must refuse with an error code, not a crash: each
// check compares the returned hipError_t with the code ROCm's runtime returns for that
// misuse, and the program goes on to run a kernel and verify it, so a refused call must not
// have broken the runtime. Prints "PASS bad_calls" when every check holds.
#include "hip_check.h"
#include <cstring>

__global__ void scale(float* out, const float* in, float k, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = k * in[i];
}

__device__ int small_table[4];


int main() {
  const int n = 256;
  float *a = nullptr, *b = nullptr;
  HIP_CHECK(hipMalloc(&a, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&b, n * sizeof(float)));
  float host[n];
  for (int i = 0; i < n; i++) host[i] = (float)i;

  // Freeing twice: the second free names no allocation.
  float* tmp = nullptr;
  HIP_CHECK(hipMalloc(&tmp, 64));
  HIP_CHECK(hipFree(tmp));
  expect("hipFree twice", hipFree(tmp), hipErrorInvalidValue);
  expect("hipMemcpy into a freed buffer", hipMemcpy(tmp, host, 64, hipMemcpyHostToDevice), hipErrorInvalidValue);

  // A copy past the end of an allocation (whole pages are mapped; ask for more than a page past).
  expect("hipMemcpy past an allocation", hipMemcpy(b + n - 4, host, 64 * 1024, hipMemcpyHostToDevice), hipErrorInvalidValue);
  expect("hipMemset past an allocation", hipMemset(a, 0, 1 << 20), hipErrorInvalidValue);
  expect("hipMemcpy with a bad direction", hipMemcpy(a, host, 16, (hipMemcpyKind)42), hipErrorInvalidMemcpyDirection);

  // Symbols: a copy larger than the variable.
  int big[64] = {0};
  expect("hipMemcpyToSymbol past the variable", hipMemcpyToSymbol(HIP_SYMBOL(small_table), big, sizeof big), hipErrorInvalidValue);
  expect("hipMemcpyToSymbol of no variable", hipMemcpyToSymbol((const void*)&expect_failures, big, 4), hipErrorInvalidSymbol);

  // Launches: an unknown kernel handle, no arguments for a kernel that takes four, a bad shape.
  dim3 grid(1), block(n);
  expect("hipLaunchKernel of a host function", hipLaunchKernel((const void*)&expect, grid, block, nullptr, 0, 0), hipErrorInvalidDeviceFunction);
  expect("hipLaunchKernel without its arguments", hipLaunchKernel((const void*)scale, grid, block, nullptr, 0, 0), hipErrorInvalidValue);
  expect("hipModuleLaunchKernel of an unknown handle",
         hipModuleLaunchKernel((hipFunction_t)0x1234, 1, 1, 1, 64, 1, 1, 0, 0, nullptr, nullptr), hipErrorInvalidResourceHandle);
  // A block over the device's 1024 work-items: hipErrorInvalidValue (clr hip_module.cpp,
  // ihipLaunchKernel_validate, "maxWorkGroupSize_").
  scale<<<1, 2048>>>(b, a, 2.0f, n);
  expect("a block of 2048 work-items", hipGetLastError(), hipErrorInvalidValue);
  expect("hipGetLastError after reading it", hipGetLastError(), hipSuccess);
  expect("hipSetDevice(7)", hipSetDevice(7), hipErrorInvalidDevice);
  HIP_CHECK(hipDeviceSynchronize());
#if HIP_VERSION_MAJOR >= 7
  // ROCm 7.0 made hipGetLastError CUDA's: the last error since it was last read, which a
  // later success does not clear ("HIP API 7.0 changes"); the old meaning is hipExtGetLastError.
  expect("hipGetLastError after a later success", hipGetLastError(), hipErrorInvalidDevice);
  expect("hipGetLastError after reading it", hipGetLastError(), hipSuccess);
#else
  // Before ROCm 7.0 every call sets the last error, success included.
  expect("hipGetLastError after a later success", hipGetLastError(), hipSuccess);
#endif

  // Streams and events.
  hipStream_t s;
  HIP_CHECK(hipStreamCreate(&s));
  HIP_CHECK(hipStreamDestroy(s));
  // A destroyed stream is no stream of the device: hipErrorContextIsDestroyed (clr
  // hip_stream.cpp, hipStreamDestroy).
  expect("hipStreamDestroy twice", hipStreamDestroy(s), hipErrorContextIsDestroyed);
  hipEvent_t e0, e1;
  HIP_CHECK(hipEventCreate(&e0));
  HIP_CHECK(hipEventCreate(&e1));
  float ms = 0;
  expect("hipEventElapsedTime of unrecorded events", hipEventElapsedTime(&ms, e0, e1), hipErrorInvalidResourceHandle);
  HIP_CHECK(hipEventDestroy(e1));
  HIP_CHECK(hipEventRecord(e0, 0));
  expect("hipEventRecord of a destroyed event", hipEventRecord(e1, 0), hipErrorInvalidResourceHandle);

  // An API the runtime may lack answers hipErrorNotSupported, or works (inter-process memory
  // handles: one simulated process has no other to share with).
  hipIpcMemHandle_t ipc;
  hipError_t ie = hipIpcGetMemHandle(&ipc, a);
  if (ie != hipSuccess && ie != hipErrorNotSupported) {
    fprintf(stderr, "FAIL hipIpcGetMemHandle returned %d\n", (int)ie);
    expect_failures++;
  }

  // After all that, the runtime still works (the last error read first: from ROCm 7.0 on it
  // still holds the last failure above).
  (void)hipGetLastError();
  HIP_CHECK(hipMemcpy(a, host, n * sizeof(float), hipMemcpyHostToDevice));
  scale<<<1, n>>>(b, a, 3.0f, n);
  HIP_CHECK_LAUNCH();
  float out[n];
  HIP_CHECK(hipMemcpy(out, b, n * sizeof(float), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    if (out[i] != 3.0f * host[i]) FAIL("scale: out[%d] = %g, expected %g", i, out[i], 3.0f * host[i]);
  HIP_CHECK(hipFree(a));
  HIP_CHECK(hipFree(b));
  if (expect_failures) {
    fprintf(stderr, "FAIL bad_calls: %d check(s)\n", expect_failures);
    return 1;
  }
  printf("PASS bad_calls\n");
  return 0;
}
