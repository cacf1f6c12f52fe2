// ring_allreduce -- a ring all-reduce over every GPU of the node in ONE kernel per GPU: the
// kernels are launched on all GPUs before any synchronization and must run at the same time,
// each waiting for data its neighbour sends.
//
// GPU r holds a vector of N * CHUNK ints (N = device count), split into N chunks. Reduce-
// scatter: in step s (0..N-2) GPU r stores chunk (r - s) mod N into slot s of GPU r+1's
// receive buffer (peer stores), makes them visible with a system-scope fence, and sets GPU
// r+1's flag s with a system-scope release store; it then waits for its own flag s
// (system-scope acquire loads) and adds what GPU r-1 sent into its chunk (r - s - 1) mod N.
// After N-1 steps GPU r holds the full sum of chunk (r + 1) mod N. All-gather: in N-1 more
// steps each GPU passes the full chunks on around the ring the same way (slots N-1.., copied
// instead of added). Every slot and flag is used once, so no step waits for a slot to drain.
//
// The host checks every GPU's vector against the sum it computes itself and prints
// `devices N`, then `PASS ring_allreduce` (or FAIL and exit 1).
#include "hip_check.h"
#include <vector>

constexpr int CHUNK = 256;  // ints per chunk
constexpr int BLOCK = 256;  // one work-group per GPU

__global__ void ring_allreduce(int *data, const int *my_recv, const int *my_flags, int *next_recv, int *next_flags, int rank, int n) {
  int t = threadIdx.x;
  for (int step = 0; step < 2 * (n - 1); ++step) {
    bool gather = step >= n - 1;
    int s = gather ? step - (n - 1) : step;
    int send = gather ? (rank + 1 - s + n) % n : (rank - s + n) % n;
    int into = gather ? (rank - s + n) % n : (rank - s - 1 + 2 * n) % n;
    for (int i = t; i < CHUNK; i += blockDim.x) next_recv[step * CHUNK + i] = data[send * CHUNK + i];
    // Every work-item's peer stores are visible at system scope before the flag is set.
    __threadfence_system();
    __syncthreads();
    if (t == 0) {
      __hip_atomic_store(&next_flags[step], 1, __ATOMIC_RELEASE, __HIP_MEMORY_SCOPE_SYSTEM);
      while (__hip_atomic_load(&my_flags[step], __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_SYSTEM) != 1) {
      }
    }
    __syncthreads();
    // The neighbour's data is read after work-item 0's acquire, at system scope for everyone.
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "");
    for (int i = t; i < CHUNK; i += blockDim.x) {
      int v = my_recv[step * CHUNK + i];
      data[into * CHUNK + i] = gather ? v : data[into * CHUNK + i] + v;
    }
    __syncthreads();
  }
}

int main() {
  int n = 0;
  HIP_CHECK(hipGetDeviceCount(&n));
  printf("devices %d\n", n);
  if (n < 2) FAIL("need at least 2 GPUs, have %d", n);
  const int len = n * CHUNK, steps = 2 * (n - 1);
  std::vector<int *> data(n), recv(n), flags(n);
  std::vector<std::vector<int>> host(n, std::vector<int>(len));
  for (int d = 0; d < n; ++d) {
    HIP_CHECK(hipSetDevice(d));
    for (int i = 0; i < len; ++i) host[d][i] = (d + 1) * 1000 + i * (d % 3 + 1);
    HIP_CHECK(hipMalloc(&data[d], len * sizeof(int)));
    HIP_CHECK(hipMalloc(&recv[d], steps * CHUNK * sizeof(int)));
    HIP_CHECK(hipMalloc(&flags[d], steps * sizeof(int)));
    HIP_CHECK(hipMemcpy(data[d], host[d].data(), len * sizeof(int), hipMemcpyHostToDevice));
    HIP_CHECK(hipMemset(flags[d], 0, steps * sizeof(int)));
  }
  for (int d = 0; d < n; ++d) {
    int next = (d + 1) % n, can = 0;
    HIP_CHECK(hipSetDevice(d));
    HIP_CHECK(hipDeviceCanAccessPeer(&can, d, next));
    if (!can) FAIL("GPU %d cannot access GPU %d", d, next);
    HIP_CHECK(hipDeviceEnablePeerAccess(next, 0));
  }
  // Every kernel is launched before any synchronization: each waits for its neighbour.
  for (int d = 0; d < n; ++d) {
    int next = (d + 1) % n;
    HIP_CHECK(hipSetDevice(d));
    ring_allreduce<<<1, BLOCK>>>(data[d], recv[d], flags[d], recv[next], flags[next], d, n);
    HIP_CHECK_LAUNCH();
  }
  std::vector<int> sum(len, 0);
  for (int d = 0; d < n; ++d)
    for (int i = 0; i < len; ++i) sum[i] += host[d][i];
  for (int d = 0; d < n; ++d) {
    HIP_CHECK(hipSetDevice(d));
    HIP_CHECK(hipDeviceSynchronize());
    std::vector<int> got(len);
    HIP_CHECK(hipMemcpy(got.data(), data[d], len * sizeof(int), hipMemcpyDeviceToHost));
    for (int i = 0; i < len; ++i)
      if (got[i] != sum[i]) FAIL("GPU %d element %d: %d, expected %d", d, i, got[i], sum[i]);
  }
  printf("PASS ring_allreduce\n");
  return 0;
}
