// misuse_launch.cpp -- launches ROCm's runtime refuses, with the codes it returns (clr
// hipamd/src/hip_platform.cpp ihipLaunchKernel, hipamd/src/hip_module.cpp
// ihipLaunchKernel_validate and hipLaunchCooperativeKernel_common):
//  * an empty grid or block: hipErrorInvalidValue (no work-items);
//  * a block over 1024 work-items: hipErrorInvalidValue;
//  * more than 2^32 - 1 work-items in a dimension: hipErrorInvalidConfiguration;
//  * more dynamic LDS than a work-group may have (1 byte more, or 1 GiB): hipErrorInvalidValue;
//  * a block over the kernel's __launch_bounds__: hipErrorLaunchFailure;
//  * a destroyed stream: hipErrorInvalidValue; no argument array: hipErrorInvalidValue;
//  * a cooperative launch: its own codes (hipErrorInvalidConfiguration for a big block,
//    hipErrorCooperativeLaunchTooLarge for too much LDS, hipErrorContextIsDestroyed for a
//    destroyed stream).
// The launches that are allowed (exactly the LDS limit, exactly the launch bounds) must run
// and compute the right values. Prints "PASS misuse_launch" when every check holds.
#include "hip_check.h"

__global__ void fill(int* out, int v) { out[blockIdx.x * blockDim.x + threadIdx.x] = v; }

__global__ __launch_bounds__(64) void bounded(int* out) { out[threadIdx.x] = 2 * threadIdx.x; }

// Reverses the block's indices through dynamic LDS.
__global__ void reverse_lds(int* out) {
  extern __shared__ int s[];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];
}

static hipError_t launch(const void* f, dim3 grid, dim3 block, void** args, size_t lds, hipStream_t s = 0) {
  return hipLaunchKernel(f, grid, block, args, lds, s);
}

int main() {
  int* out = nullptr;
  const int n = 1024;
  HIP_CHECK(hipMalloc(&out, n * sizeof(int)));
  HIP_CHECK(hipMemset(out, 0, n * sizeof(int)));
  int v = 7;
  void* fill_args[] = {&out, &v};
  void* out_args[] = {&out};
  const void* f = (const void*)fill;
  const hipError_t bad = hipErrorInvalidValue;

  expect("an empty grid", launch(f, dim3(0), dim3(64), fill_args, 0), bad);
  expect("an empty grid in y", launch(f, dim3(1, 0, 1), dim3(64), fill_args, 0), bad);
  expect("an empty block", launch(f, dim3(1), dim3(0), fill_args, 0), bad);
  expect("an empty block in z", launch(f, dim3(1), dim3(64, 1, 0), fill_args, 0), bad);
  expect("a block of 2048", launch(f, dim3(1), dim3(2048), fill_args, 0), bad);
  expect("a block of 32 x 32 x 2", launch(f, dim3(1), dim3(32, 32, 2), fill_args, 0), bad);
  expect("2^33 work-items in x", launch(f, dim3(1u << 23), dim3(1024), fill_args, 0), hipErrorInvalidConfiguration);
  expect("no argument array", launch(f, dim3(1), dim3(64), nullptr, 0), bad);
  // <<<>>> reports through hipGetLastError.
  fill<<<0, 64>>>(out, 1);
  expect("<<<0, 64>>>", hipGetLastError(), bad);

  int lds_limit = 0;
  HIP_CHECK(hipDeviceGetAttribute(&lds_limit, hipDeviceAttributeMaxSharedMemoryPerBlock, 0));
  const void* r = (const void*)reverse_lds;
  expect("1 GiB of dynamic LDS", launch(r, dim3(1), dim3(64), out_args, size_t(1) << 30), bad);
  expect("1 byte more dynamic LDS than the limit", launch(r, dim3(1), dim3(64), out_args, lds_limit + 1), bad);
  expect("exactly the LDS limit", launch(r, dim3(1), dim3(64), out_args, lds_limit), hipSuccess);
  int got[n];
  HIP_CHECK(hipMemcpy(got, out, 64 * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    if (got[i] != 63 - i) FAIL("reverse_lds: out[%d] = %d, expected %d", i, got[i], 63 - i);

  const void* b = (const void*)bounded;
  expect("a block over __launch_bounds__(64)", launch(b, dim3(1), dim3(128), out_args, 0), hipErrorLaunchFailure);
  expect("a block of exactly __launch_bounds__(64)", launch(b, dim3(1), dim3(64), out_args, 0), hipSuccess);
  HIP_CHECK(hipMemcpy(got, out, 64 * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    if (got[i] != 2 * i) FAIL("bounded: out[%d] = %d, expected %d", i, got[i], 2 * i);

  hipStream_t s;
  HIP_CHECK(hipStreamCreate(&s));
  HIP_CHECK(hipStreamDestroy(s));
  expect("a launch on a destroyed stream", launch(f, dim3(1), dim3(64), fill_args, 0, s), bad);

  expect("a cooperative block of 2048", hipLaunchCooperativeKernel(f, dim3(1), dim3(2048), fill_args, 0, 0),
         hipErrorInvalidConfiguration);
  expect("a cooperative launch with too much LDS", hipLaunchCooperativeKernel(r, dim3(1), dim3(64), out_args, lds_limit + 1, 0),
         hipErrorCooperativeLaunchTooLarge);
  expect("a cooperative launch on a destroyed stream", hipLaunchCooperativeKernel(f, dim3(1), dim3(64), fill_args, 0, s),
         hipErrorContextIsDestroyed);

  // After all that, a launch of the whole buffer still computes (the last error read first).
  (void)hipGetLastError();
  v = 11;
  HIP_CHECK(launch(f, dim3(n / 256), dim3(256), fill_args, 0));
  HIP_CHECK(hipMemcpy(got, out, n * sizeof(int), hipMemcpyDeviceToHost));
  for (int i = 0; i < n; i++)
    if (got[i] != 11) FAIL("fill: out[%d] = %d, expected 11", i, got[i]);
  HIP_CHECK(hipFree(out));
  if (expect_failures) {
    fprintf(stderr, "FAIL misuse_launch: %d check(s)\n", expect_failures);
    return 1;
  }
  printf("PASS misuse_launch\n");
  return 0;
}
