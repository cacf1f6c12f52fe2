// peer_flag -- message passing between two GPUs through peer memory: a kernel on GPU 0
// stores a block of data into GPU 1's memory and then sets a flag there; a kernel on GPU 1,
// launched at the same time, waits for the flag and reads the data.
//
// GPU 0 (producer, one wave): every lane stores its word of `data` (peer stores), the wave
// meets at __syncthreads(), and lane 0 sets `flag` with a release store. GPU 1 (consumer, one
// wave): lane 0 spins on `flag` with acquire loads, the wave meets at __syncthreads(), and
// every lane reads its word into `out` (GPU 1's memory). The flag's release and acquire are at
// system scope (__HIP_MEMORY_SCOPE_SYSTEM), the only scope that includes threads of another
// GPU (HIP's memory scopes; LLVM AMDGPUUsage, "Memory Scopes": agent scope is one agent).
// Built with -DAGENT_SCOPE (peer_flag_agent) they are at agent scope: the two kernels run on
// different agents, so the release and the acquire do not synchronise, the flag's accesses
// are a heterogeneous race and the data's a data race (what `hipscope grade --exec --node
// mi300x-8` reports). On real hardware that variant may still print PASS, by luck.
//
// Both kernels are launched before any synchronization: the consumer waits for a producer
// running at the same time. The consumer gives up after a spin limit instead of hanging.
// The host checks `out` and prints PASS (or FAIL and exit 1).
#include "hip_check.h"
#include <vector>

#ifdef AGENT_SCOPE
#define FLAG_SCOPE __HIP_MEMORY_SCOPE_AGENT
#define SCOPE_NAME "agent"
#else
#define FLAG_SCOPE __HIP_MEMORY_SCOPE_SYSTEM
#define SCOPE_NAME "system"
#endif

constexpr int WORDS = 64;  // one word per lane of one wave64
// Spins the consumer waits before giving up: far more than the producer needs.
constexpr unsigned long long SPIN_LIMIT = 1ull << 22;

__global__ void produce(int *peer_data, int *peer_flag) {
  int t = threadIdx.x;
  peer_data[t] = 1000 + 7 * t;
  // Every lane's store is ordered before lane 0's release by the barrier.
  __syncthreads();
  if (t == 0) __hip_atomic_store(peer_flag, 1, __ATOMIC_RELEASE, FLAG_SCOPE);
}

__global__ void consume(const int *data, int *flag, int *out, int *gave_up) {
  int t = threadIdx.x;
  if (t == 0) {
    unsigned long long spins = 0;
    while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, FLAG_SCOPE) != 1) {
      if (++spins == SPIN_LIMIT) {
        *gave_up = 1;
        break;
      }
    }
  }
  __syncthreads();
  out[t] = data[t];
}

int main() {
  int n = 0;
  HIP_CHECK(hipGetDeviceCount(&n));
  if (n < 2) FAIL("need 2 GPUs, have %d", n);
  int can = 0;
  HIP_CHECK(hipDeviceCanAccessPeer(&can, 0, 1));
  if (!can) FAIL("GPU 0 cannot access GPU 1");
  int *data, *flag, *out, *gave_up;
  HIP_CHECK(hipSetDevice(1));
  HIP_CHECK(hipMalloc(&data, WORDS * sizeof(int)));
  HIP_CHECK(hipMalloc(&out, WORDS * sizeof(int)));
  HIP_CHECK(hipMalloc(&flag, 2 * sizeof(int)));
  gave_up = flag + 1;
  HIP_CHECK(hipMemset(data, 0, WORDS * sizeof(int)));
  HIP_CHECK(hipMemset(out, 0, WORDS * sizeof(int)));
  HIP_CHECK(hipMemset(flag, 0, 2 * sizeof(int)));
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipSetDevice(0));
  HIP_CHECK(hipDeviceEnablePeerAccess(1, 0));
  // Both launched before any synchronization: the consumer waits for the producer.
  produce<<<1, WORDS>>>(data, flag);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipSetDevice(1));
  consume<<<1, WORDS>>>(data, flag, out, gave_up);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipSetDevice(0));
  HIP_CHECK(hipDeviceSynchronize());
  std::vector<int> got(WORDS + 2);
  HIP_CHECK(hipMemcpy(got.data(), out, WORDS * sizeof(int), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(got.data() + WORDS, flag, 2 * sizeof(int), hipMemcpyDeviceToHost));
  if (got[WORDS + 1]) FAIL("%s scope: the consumer gave up waiting for the flag", SCOPE_NAME);
  for (int i = 0; i < WORDS; ++i)
    if (got[i] != 1000 + 7 * i) FAIL("%s scope: word %d is %d, expected %d", SCOPE_NAME, i, got[i], 1000 + 7 * i);
  printf("PASS peer_flag (%s scope)\n", SCOPE_NAME);
  return 0;
}
