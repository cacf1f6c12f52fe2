// copy_bandwidth -- the rate of 64 MiB copies between the host and GPU 0 (from and to pageable
// malloc memory and from and to pinned hipHostMalloc memory) and, on a node of two GPUs or more,
// from GPU 0 to GPU 1 with hipMemcpyPeer. Each copy is timed with a pair of hipEvents on GPU 0's
// null stream; the bytes are checked after every round trip, so a copy that moved nothing
// cannot pass.
//
// Prints one `copy KIND BYTES bytes MS ms GBPS GB/s` line per copy (KIND: h2d-pageable,
// d2h-pageable, h2d-pinned, d2h-pinned, peer-0-1), then `PASS copy_bandwidth`.
#include "hip_check.h"
#include <cstdint>
#include <cstring>
#include <vector>

constexpr size_t BYTES = size_t(64) << 20;

// The simulated milliseconds of `copy()` between two events of the current device's null
// stream, printed as a line of the kind above.
template <typename F>
static void timed(const char *kind, F copy) {
  hipEvent_t start, stop;
  HIP_CHECK(hipEventCreate(&start));
  HIP_CHECK(hipEventCreate(&stop));
  HIP_CHECK(hipEventRecord(start, 0));
  copy();
  HIP_CHECK(hipEventRecord(stop, 0));
  HIP_CHECK(hipEventSynchronize(stop));
  float ms = 0;
  HIP_CHECK(hipEventElapsedTime(&ms, start, stop));
  double gbps = ms > 0 ? double(BYTES) / (double(ms) * 1e6) : 0.0;
  printf("copy %s %zu bytes %.6f ms %.3f GB/s\n", kind, BYTES, ms, gbps);
  HIP_CHECK(hipEventDestroy(start));
  HIP_CHECK(hipEventDestroy(stop));
}

// A pattern no two words of the buffer share, different for each `salt`.
static void fill(uint32_t *p, uint32_t salt) {
  for (size_t i = 0; i < BYTES / 4; ++i) p[i] = uint32_t(i) * 2654435761u + salt;
}

static void check(const char *what, const uint32_t *got, uint32_t salt) {
  for (size_t i = 0; i < BYTES / 4; ++i)
    if (got[i] != uint32_t(i) * 2654435761u + salt) FAIL("%s: word %zu is %u", what, i, got[i]);
}

int main() {
  int count = 0;
  HIP_CHECK(hipGetDeviceCount(&count));
  printf("devices %d\n", count);
  HIP_CHECK(hipSetDevice(0));
  void *dev = nullptr;
  HIP_CHECK(hipMalloc(&dev, BYTES));

  std::vector<uint32_t> pageable(BYTES / 4), back(BYTES / 4);
  fill(pageable.data(), 1);
  timed("h2d-pageable", [&] { HIP_CHECK(hipMemcpy(dev, pageable.data(), BYTES, hipMemcpyHostToDevice)); });
  timed("d2h-pageable", [&] { HIP_CHECK(hipMemcpy(back.data(), dev, BYTES, hipMemcpyDeviceToHost)); });
  check("pageable round trip", back.data(), 1);

  uint32_t *pinned = nullptr, *pinned_back = nullptr;
  HIP_CHECK(hipHostMalloc((void **)&pinned, BYTES, hipHostMallocDefault));
  HIP_CHECK(hipHostMalloc((void **)&pinned_back, BYTES, hipHostMallocDefault));
  fill(pinned, 2);
  timed("h2d-pinned", [&] { HIP_CHECK(hipMemcpyAsync(dev, pinned, BYTES, hipMemcpyHostToDevice, 0)); });
  timed("d2h-pinned", [&] { HIP_CHECK(hipMemcpyAsync(pinned_back, dev, BYTES, hipMemcpyDeviceToHost, 0)); });
  check("pinned round trip", pinned_back, 2);

  if (count >= 2) {
    void *peer = nullptr;
    HIP_CHECK(hipSetDevice(1));
    HIP_CHECK(hipMalloc(&peer, BYTES));
    HIP_CHECK(hipSetDevice(0));
    timed("peer-0-1", [&] { HIP_CHECK(hipMemcpyPeerAsync(peer, 1, dev, 0, BYTES, 0)); });
    memset(pinned_back, 0, BYTES);
    HIP_CHECK(hipMemcpy(pinned_back, peer, BYTES, hipMemcpyDeviceToHost));
    check("peer copy", pinned_back, 2);
    HIP_CHECK(hipFree(peer));
  }
  HIP_CHECK(hipHostFree(pinned));
  HIP_CHECK(hipHostFree(pinned_back));
  HIP_CHECK(hipFree(dev));
  printf("PASS copy_bandwidth\n");
  return 0;
}
