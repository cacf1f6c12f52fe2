// host_pingpong -- a kernel and a host thread hand a flag back and forth through pinned host
// memory while the kernel runs.
//
// One flag in hipHostMalloc memory (coherent: fine-grained, so system-scope atomics on it are
// seen by the other side while the kernel runs). Round i: the host thread stores 2i + 1, the
// kernel (one lane) waits until it loads 2i + 1 and stores 2i + 2, the host waits until it
// loads 2i + 2. 1000 rounds. The kernel uses __hip_atomic_load/store at system scope
// (__HIP_MEMORY_SCOPE_SYSTEM); built with -DAGENT_SCOPE (host_pingpong_agent) it uses agent
// scope, which does not promise that the host's stores become visible to the kernel or the
// kernel's to the host (HIP's memory scopes; LLVM AMDGPUUsage, "Memory Scopes"), so on real
// hardware that variant may stall until its spin limit. The host side uses the compiler's
// __atomic builtins (acquire loads, release stores).
//
// Built with -DNON_COHERENT (host_pingpong_nc, host_pingpong_nc_agent) the flag is in
// hipHostMallocNonCoherent memory instead: MTYPE NC, which the GPU's L2 may cache (LLVM
// AMDGPUUsage, memory model GFX942: only system-scope acquires invalidate and system-scope
// releases write back such lines, "buffer_inv sc0 sc1" / "buffer_wbl2 sc0 sc1"). At system scope
// the ping-pong still completes; at agent scope a side keeps reading its L2's old line and the
// program prints STALE with the round and the polls it gave up after, and exits 1. The spin
// limit is small there (a round trip takes a few polls), so the stale run ends quickly.
//
// The host spins on a different thread than the one in hipDeviceSynchronize: a host thread
// touching pinned memory while another is inside a HIP call. Both sides give up after a spin
// limit instead of hanging, and the program says FAIL with the round it stopped in.
// Prints PASS, the round trips and the host's wall time per round trip.
#include "hip_check.h"
#include <atomic>
#include <chrono>
#include <thread>

#ifdef AGENT_SCOPE
#define FLAG_SCOPE __HIP_MEMORY_SCOPE_AGENT
#define SCOPE_NAME "agent"
#else
#define FLAG_SCOPE __HIP_MEMORY_SCOPE_SYSTEM
#define SCOPE_NAME "system"
#endif

constexpr unsigned ROUNDS = 1000;
// Spins one side waits for one round before giving up: far more than a round trip needs
// (a few microseconds on hardware), far fewer than a hang.
#ifdef NON_COHERENT
#define ALLOC_FLAGS hipHostMallocNonCoherent
#define MEMORY_NAME "non-coherent"
constexpr unsigned long long SPIN_LIMIT = 1ull << 12;
#else
#define ALLOC_FLAGS hipHostMallocCoherent
#define MEMORY_NAME "coherent"
constexpr unsigned long long SPIN_LIMIT = 1ull << 26;
#endif

// flag: the shared word; failed_round: set by the kernel to the round + 1 it gave up in.
__global__ void pong(unsigned *flag, unsigned *failed_round, unsigned rounds) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  for (unsigned i = 0; i < rounds; i++) {
    unsigned long long spins = 0;
    while (__hip_atomic_load(flag, __ATOMIC_ACQUIRE, FLAG_SCOPE) != 2 * i + 1) {
      if (++spins == SPIN_LIMIT) {
        __hip_atomic_store(failed_round, i + 1, __ATOMIC_RELAXED, __HIP_MEMORY_SCOPE_SYSTEM);
        return;
      }
    }
    __hip_atomic_store(flag, 2 * i + 2, __ATOMIC_RELEASE, FLAG_SCOPE);
  }
}

// The host thread's side; gives the rounds completed.
static unsigned ping(unsigned *flag, unsigned rounds) {
  for (unsigned i = 0; i < rounds; i++) {
    __atomic_store_n(flag, 2 * i + 1, __ATOMIC_RELEASE);
    unsigned long long spins = 0;
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != 2 * i + 2) {
      if (++spins == SPIN_LIMIT) return i;
    }
  }
  return rounds;
}

int main() {
  unsigned *shared = nullptr;
  HIP_CHECK(hipHostMalloc((void **)&shared, 2 * sizeof(unsigned), ALLOC_FLAGS));
  unsigned *flag = shared, *failed_round = shared + 1;
  *flag = 0;
  *failed_round = 0;
  pong<<<1, 64>>>(flag, failed_round, ROUNDS);
  HIP_CHECK_LAUNCH();
  unsigned done = 0;
  auto start = std::chrono::steady_clock::now();
  std::thread host([&] { done = ping(flag, ROUNDS); });
  HIP_CHECK(hipDeviceSynchronize());
  host.join();
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
#ifdef NON_COHERENT
  // Stale: a side's spin limit tripped. A kernel that gave up stores no more, so the host's
  // giving up follows from it and only the kernel's is told.
  if (*failed_round != 0) {
    unsigned r = *failed_round - 1;
    printf("STALE: %s scope on %s memory: round %u: the kernel never saw the host's store of %u after %llu polls\n", SCOPE_NAME,
           MEMORY_NAME, r, 2 * r + 1, SPIN_LIMIT);
    return 1;
  }
  if (done != ROUNDS) {
    printf("STALE: %s scope on %s memory: round %u: the host never saw the kernel's store of %u after %llu polls\n", SCOPE_NAME,
           MEMORY_NAME, done, 2 * done + 2, SPIN_LIMIT);
    return 1;
  }
#endif
  if (*failed_round != 0) FAIL("%s scope: the kernel gave up waiting in round %u", SCOPE_NAME, *failed_round - 1);
  if (done != ROUNDS) FAIL("%s scope: the host gave up waiting in round %u", SCOPE_NAME, done);
  if (*flag != 2 * ROUNDS) FAIL("%s scope: flag %u after the last round, expected %u", SCOPE_NAME, *flag, 2 * ROUNDS);
  HIP_CHECK(hipHostFree(shared));
  printf("PASS host_pingpong: %u round trips at %s scope on %s memory, %.0f ns each\n", ROUNDS, SCOPE_NAME, MEMORY_NAME, ns / ROUNDS);
  return 0;
}
