// device_props -- device count, properties and attributes, and a kernel built on warpSize.
//
// Prints `warpSize N`, `multiProcessorCount N`, `name S` and `gcnArchName S` from
// hipGetDeviceProperties (a test compares the printed warpSize with the simulated GPU's wave
// size). hipDeviceGetAttribute must agree with the properties for the warp size, the
// multiprocessor count and the maximum threads per block; hipGetDeviceCount must be >= 1 and
// hipGetDevice / hipSetDevice must accept device 0.
// wave_info (2 blocks of 256 threads, a multiple of every wave size) writes, per thread, the
// device's warpSize, its lane (threadIdx.x % warpSize) and the number of lanes in its wave
// that __ballot sees active (__popcll of the 64-bit mask), and lane 0 of each wave writes the
// wave's index within the block to waves[]. All must agree with the warp size the properties
// report: lanes 0..warpSize-1 in order, popcount == warpSize, 256 / warpSize waves per block.
#include "hip_check.h"
#include <cstring>
#include <vector>

__global__ void wave_info(int *ws, int *lane, int *active, int *waves) {
  unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  ws[i] = warpSize;
  lane[i] = (int)(t % warpSize);
  active[i] = __popcll(__ballot(1));
  if (t % warpSize == 0) waves[blockIdx.x * (blockDim.x / warpSize) + t / warpSize] = (int)(t / warpSize);
}

int main() {
  int count = 0;
  HIP_CHECK(hipGetDeviceCount(&count));
  if (count < 1) FAIL("hipGetDeviceCount = %d", count);
  HIP_CHECK(hipSetDevice(0));
  int dev = -1;
  HIP_CHECK(hipGetDevice(&dev));
  if (dev != 0) FAIL("hipGetDevice = %d after hipSetDevice(0)", dev);

  hipDeviceProp_t prop;
  memset(&prop, 0, sizeof(prop));
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  printf("deviceCount %d\n", count);
  printf("name %s\n", prop.name);
  printf("gcnArchName %s\n", prop.gcnArchName);
  printf("warpSize %d\n", prop.warpSize);
  printf("multiProcessorCount %d\n", prop.multiProcessorCount);
  if (prop.warpSize != 32 && prop.warpSize != 64) FAIL("warpSize %d is neither 32 nor 64", prop.warpSize);
  if (prop.multiProcessorCount < 1) FAIL("multiProcessorCount %d", prop.multiProcessorCount);
  if (prop.name[0] == 0) FAIL("empty device name");

  int attr = 0;
  HIP_CHECK(hipDeviceGetAttribute(&attr, hipDeviceAttributeWarpSize, 0));
  if (attr != prop.warpSize) FAIL("hipDeviceAttributeWarpSize %d != warpSize %d", attr, prop.warpSize);
  HIP_CHECK(hipDeviceGetAttribute(&attr, hipDeviceAttributeMultiprocessorCount, 0));
  if (attr != prop.multiProcessorCount)
    FAIL("hipDeviceAttributeMultiprocessorCount %d != multiProcessorCount %d", attr, prop.multiProcessorCount);
  HIP_CHECK(hipDeviceGetAttribute(&attr, hipDeviceAttributeMaxThreadsPerBlock, 0));
  if (attr != prop.maxThreadsPerBlock)
    FAIL("hipDeviceAttributeMaxThreadsPerBlock %d != maxThreadsPerBlock %d", attr, prop.maxThreadsPerBlock);
  if (attr < 256) FAIL("maxThreadsPerBlock %d < 256", attr);

  const unsigned blocks = 2, B = 256, n = blocks * B;
  const unsigned nwaves = n / (unsigned)prop.warpSize;
  int *dws, *dlane, *dactive, *dwaves;
  HIP_CHECK(hipMalloc(&dws, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dlane, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dactive, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dwaves, n * sizeof(int)));
  HIP_CHECK(hipMemset(dwaves, 0xFF, n * sizeof(int)));
  wave_info<<<blocks, B>>>(dws, dlane, dactive, dwaves);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<int> ws(n), lane(n), active(n), waves(n);
  HIP_CHECK(hipMemcpy(ws.data(), dws, n * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(lane.data(), dlane, n * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(active.data(), dactive, n * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(waves.data(), dwaves, n * sizeof(int), hipMemcpyDeviceToHost));
  printf("device warpSize %d\n", ws[0]);
  for (unsigned i = 0; i < n; i++) {
    if (ws[i] != prop.warpSize) FAIL("thread %u: device warpSize %d, properties say %d", i, ws[i], prop.warpSize);
    if (lane[i] != (int)(i % B % prop.warpSize)) FAIL("thread %u: lane %d", i, lane[i]);
    if (active[i] != prop.warpSize) FAIL("thread %u: __ballot saw %d active lanes, expected %d", i, active[i], prop.warpSize);
  }
  for (unsigned w = 0; w < n; w++) {
    int want = w < nwaves ? (int)(w % (B / prop.warpSize)) : -1;
    if (waves[w] != want) FAIL("waves[%u] = %d, expected %d", w, waves[w], want);
  }
  HIP_CHECK(hipFree(dws));
  HIP_CHECK(hipFree(dlane));
  HIP_CHECK(hipFree(dactive));
  HIP_CHECK(hipFree(dwaves));
  printf("PASS device_props\n");
  return 0;
}
