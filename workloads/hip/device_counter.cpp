// device_counter -- a __device__ variable updated by atomicAdd from every thread, read back
// with hipMemcpyFromSymbol and through the address hipGetSymbolAddress gives.
//
// count_all: every one of the n threads (n not a multiple of the block size, so the last block
// is partial) adds 1 to `counter` and its global index to `index_sum`. After one launch counter
// must be n and index_sum n(n-1)/2 (computed on the CPU in 64 bits); the counter starts at its
// initialiser 0 and is not written by the host before the first launch. Then the host reads
// the counter through hipGetSymbolAddress + hipMemcpy, resets it with hipMemcpyToSymbol, and a
// second kernel increments it through that pointer passed as an ordinary argument: the result
// must be the reset value plus the second grid's size, which shows the symbol address is the
// variable the kernels use.
#include "hip_check.h"

__device__ unsigned counter = 0;
__device__ unsigned long long index_sum = 0;

__global__ void count_all(unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(&counter, 1u);
    atomicAdd(&index_sum, (unsigned long long)i);
  }
}

__global__ void count_through(unsigned *p, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(p, 2u);
}

int main() {
  const unsigned n = 3000;
  count_all<<<(n + 255) / 256, 256>>>(n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());

  unsigned got = 0;
  unsigned long long sum = 0;
  HIP_CHECK(hipMemcpyFromSymbol(&got, HIP_SYMBOL(counter), sizeof(got)));
  HIP_CHECK(hipMemcpyFromSymbol(&sum, HIP_SYMBOL(index_sum), sizeof(sum)));
  const unsigned long long want_sum = (unsigned long long)n * (n - 1) / 2;
  if (got != n) FAIL("counter = %u after %u atomicAdds, expected %u", got, n, n);
  if (sum != want_sum) FAIL("index_sum = %llu, expected %llu", sum, want_sum);

  void *addr = nullptr;
  HIP_CHECK(hipGetSymbolAddress(&addr, HIP_SYMBOL(counter)));
  if (addr == nullptr) FAIL("hipGetSymbolAddress(counter) gave a null pointer");
  size_t size = 0;
  HIP_CHECK(hipGetSymbolSize(&size, HIP_SYMBOL(counter)));
  if (size != sizeof(unsigned)) FAIL("hipGetSymbolSize(counter) = %zu, expected %zu", size, sizeof(unsigned));
  unsigned via_ptr = 0;
  HIP_CHECK(hipMemcpy(&via_ptr, addr, sizeof(via_ptr), hipMemcpyDeviceToHost));
  if (via_ptr != n) FAIL("counter read through hipGetSymbolAddress = %u, expected %u", via_ptr, n);

  const unsigned reset = 100, m = 500;
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(counter), &reset, sizeof(reset)));
  count_through<<<(m + 63) / 64, 64>>>((unsigned *)addr, m);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpyFromSymbol(&got, HIP_SYMBOL(counter), sizeof(got)));
  if (got != reset + 2 * m) FAIL("counter = %u after the pointer kernel, expected %u", got, reset + 2 * m);

  printf("PASS device_counter\n");
  return 0;
}
