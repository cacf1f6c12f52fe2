// multi_gpu -- several GPUs in one process: enumerate them, allocate on each, enable peer
// access, and have a kernel on each GPU store into the next GPU's buffer (peer stores) and add
// atomically into a counter on GPU 0; then copy each GPU's buffer to the next with
// hipMemcpyPeer and read everything back on the host. Every value is checked against what the
// host computes, and the simulated time of each peer copy is printed (hipEvent around it).
//
// Then a stream of GPU 1 waits for an event of GPU 0 (hipStreamWaitEvent across devices).
//
// Prints `devices N`, one `copy I->J BYTES bytes MS ms` line per copy, the two kernels' end
// times of the wait, and `PASS multi_gpu`.
// With `--no-peer`, runs only GPU 1's kernel on GPU 0's buffer without enabling peer access:
// a GPU memory fault, as on hardware (the runtime ends the program with status 3).
#include "hip_check.h"
#include <cstring>
#include <vector>

constexpr int N = 1 << 16;  // elements per GPU buffer

// GPU `self` writes its signature into `next` (another GPU's buffer) and counts its
// work-items in `counter` (on GPU 0) with device-wide atomics.
__global__ void store_peer(int *next, int *counter, int self) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) next[i] = self * 1000000 + i;
  __hip_atomic_fetch_add(counter, 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
}

// Each element of `buf` (on this GPU) doubled, in place: proves the copy landed.
__global__ void double_it(int *buf) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) buf[i] *= 2;
}

int main(int argc, char **argv) {
  bool no_peer = argc > 1 && strcmp(argv[1], "--no-peer") == 0;
  int count = 0;
  HIP_CHECK(hipGetDeviceCount(&count));
  printf("devices %d\n", count);
  if (count < 2) FAIL("need at least 2 GPUs, have %d", count);
  for (int d = 0; d < count; ++d) {
    hipDeviceProp_t p;
    HIP_CHECK(hipGetDeviceProperties(&p, d));
    if (p.warpSize != 32 && p.warpSize != 64) FAIL("device %d: warp size %d", d, p.warpSize);
  }
  std::vector<int *> buf(count), copy(count);
  int *counter = nullptr;
  for (int d = 0; d < count; ++d) {
    HIP_CHECK(hipSetDevice(d));
    int current = -1;
    HIP_CHECK(hipGetDevice(&current));
    if (current != d) FAIL("hipGetDevice %d after hipSetDevice %d", current, d);
    HIP_CHECK(hipMalloc(&buf[d], N * sizeof(int)));
    HIP_CHECK(hipMalloc(&copy[d], N * sizeof(int)));
    HIP_CHECK(hipMemset(buf[d], 0, N * sizeof(int)));
    if (d == 0) {
      HIP_CHECK(hipMalloc(&counter, sizeof(int)));
      HIP_CHECK(hipMemset(counter, 0, sizeof(int)));
    }
    hipPointerAttribute_t attr;
    HIP_CHECK(hipPointerGetAttributes(&attr, buf[d]));
    if (attr.device != d) FAIL("buffer of GPU %d reported on GPU %d", d, attr.device);
  }
  if (no_peer) {
    HIP_CHECK(hipSetDevice(1));
    store_peer<<<N / 256, 256>>>(buf[0], counter, 1);
    HIP_CHECK(hipDeviceSynchronize());
    FAIL("GPU 1 stored into GPU 0's memory without peer access");
  }
  // Each GPU reaches the next one and GPU 0 (the counter).
  for (int d = 0; d < count; ++d) {
    HIP_CHECK(hipSetDevice(d));
    for (int peer : {(d + 1) % count, 0}) {
      if (peer == d) continue;
      int can = 0;
      HIP_CHECK(hipDeviceCanAccessPeer(&can, d, peer));
      if (!can) FAIL("GPU %d cannot access GPU %d", d, peer);
      hipError_t e = hipDeviceEnablePeerAccess(peer, 0);
      if (e != hipSuccess && e != hipErrorPeerAccessAlreadyEnabled) HIP_CHECK(e);
    }
  }
  // A kernel per GPU, each on a stream of its own GPU; they may overlap in time.
  std::vector<hipStream_t> stream(count);
  for (int d = 0; d < count; ++d) {
    HIP_CHECK(hipSetDevice(d));
    HIP_CHECK(hipStreamCreate(&stream[d]));
    store_peer<<<N / 256, 256, 0, stream[d]>>>(buf[(d + 1) % count], counter, d);
    HIP_CHECK_LAUNCH();
  }
  for (int d = 0; d < count; ++d) {
    HIP_CHECK(hipSetDevice(d));
    HIP_CHECK(hipStreamSynchronize(stream[d]));
  }
  std::vector<int> host(N);
  for (int d = 0; d < count; ++d) {
    HIP_CHECK(hipMemcpy(host.data(), buf[d], N * sizeof(int), hipMemcpyDeviceToHost));
    int writer = (d + count - 1) % count;
    for (int i = 0; i < N; ++i)
      if (host[i] != writer * 1000000 + i) FAIL("GPU %d buffer[%d] = %d, expected %d", d, i, host[i], writer * 1000000 + i);
  }
  int total = 0;
  HIP_CHECK(hipMemcpy(&total, counter, sizeof(int), hipMemcpyDeviceToHost));
  if (total != count * N) FAIL("counter %d, expected %d", total, count * N);
  // Peer copies: GPU d's buffer to GPU d+1's `copy`, timed on the current (source) GPU.
  for (int d = 0; d < count; ++d) {
    int next = (d + 1) % count;
    HIP_CHECK(hipSetDevice(d));
    hipEvent_t start, stop;
    HIP_CHECK(hipEventCreate(&start));
    HIP_CHECK(hipEventCreate(&stop));
    HIP_CHECK(hipEventRecord(start, 0));
    HIP_CHECK(hipMemcpyPeerAsync(copy[next], next, buf[d], d, N * sizeof(int), 0));
    HIP_CHECK(hipEventRecord(stop, 0));
    HIP_CHECK(hipEventSynchronize(stop));
    float ms = 0;
    HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
    printf("copy %d->%d %zu bytes %.6f ms\n", d, next, N * sizeof(int), ms);
    HIP_CHECK(hipEventDestroy(start));
    HIP_CHECK(hipEventDestroy(stop));
  }
  for (int d = 0; d < count; ++d) {
    HIP_CHECK(hipSetDevice(d));
    double_it<<<N / 256, 256>>>(copy[d]);
    HIP_CHECK_LAUNCH();
    HIP_CHECK(hipDeviceSynchronize());
    HIP_CHECK(hipMemcpy(host.data(), copy[d], N * sizeof(int), hipMemcpyDeviceToHost));
    // copy[d] came from GPU d-1's buffer, which GPU d-2 wrote.
    int writer = (d + 2 * count - 2) % count;
    for (int i = 0; i < N; ++i)
      if (host[i] != 2 * (writer * 1000000 + i)) FAIL("GPU %d copy[%d] = %d, expected %d", d, i, host[i], 2 * (writer * 1000000 + i));
  }
  // An event of GPU 0 orders a stream of GPU 1 (one timeline): GPU 1's kernel, queued
  // behind hipStreamWaitEvent, ends after GPU 0's kernel ended.
  hipEvent_t begin, done0, done1;
  HIP_CHECK(hipSetDevice(0));
  HIP_CHECK(hipEventCreate(&begin));
  HIP_CHECK(hipEventCreate(&done0));
  HIP_CHECK(hipEventRecord(begin, stream[0]));
  double_it<<<N / 256, 256, 0, stream[0]>>>(buf[0]);
  HIP_CHECK(hipEventRecord(done0, stream[0]));
  HIP_CHECK(hipSetDevice(1));
  HIP_CHECK(hipEventCreate(&done1));
  HIP_CHECK(hipStreamWaitEvent(stream[1], done0, 0));
  double_it<<<N / 256, 256, 0, stream[1]>>>(buf[1]);
  HIP_CHECK(hipEventRecord(done1, stream[1]));
  HIP_CHECK(hipEventSynchronize(done1));
  float t0 = 0, t1 = 0;
  HIP_CHECK(hipEventElapsedTime(&t0, begin, done0));
  HIP_CHECK(hipEventElapsedTime(&t1, begin, done1));
  if (t1 < t0) FAIL("GPU 1's kernel ended at %f ms, before the GPU 0 event it waited for (%f ms)", t1, t0);
  printf("wait across devices: gpu 0 kernel ends %.6f ms, gpu 1 kernel ends %.6f ms\n", t0, t1);
  for (int d = 0; d < count; ++d) {
    HIP_CHECK(hipSetDevice(d));
    HIP_CHECK(hipStreamDestroy(stream[d]));
    HIP_CHECK(hipFree(buf[d]));
    HIP_CHECK(hipFree(copy[d]));
  }
  HIP_CHECK(hipFree(counter));
  printf("PASS multi_gpu\n");
  return 0;
}
