// constant_symbols -- __constant__ memory: a lookup table initialised in the source, and a
// coefficient table filled by hipMemcpyToSymbol and read back by hipMemcpyFromSymbol.
//
// lookup: out[i] = SQUARES[in[i] % 16] * coeffs[i % 8] + i, with SQUARES the initialised table
// (its values come from the code object's data, so they reach the device only if the loader
// places the variable) and coeffs written by the host. The CPU computes the same from its own
// copies. hipMemcpyToSymbol is used twice, the second time with an offset (coeffs[4..8) only),
// and hipMemcpyFromSymbol must return exactly what was written, at offset 0 and at an offset.
#include "hip_check.h"
#include <vector>

__constant__ int SQUARES[16] = {0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144, 169, 196, 225};
__constant__ int coeffs[8];

static const int HOST_SQUARES[16] = {0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 121, 144, 169, 196, 225};

__global__ void lookup(const int *in, int *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = SQUARES[in[i] % 16] * coeffs[i % 8] + (int)i;
}

int main() {
  const unsigned n = 777;
  std::vector<int> in(n), out(n);
  for (unsigned i = 0; i < n; i++) in[i] = (int)((i * 7 + 3) % 101);
  int host_coeffs[8] = {1, -2, 3, -4, 5, -6, 7, -8};
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(coeffs), host_coeffs, sizeof(host_coeffs)));
  // Overwrite the upper half through an offset.
  const int upper[4] = {50, 60, 70, 80};
  HIP_CHECK(hipMemcpyToSymbol(HIP_SYMBOL(coeffs), upper, sizeof(upper), 4 * sizeof(int)));
  for (int k = 0; k < 4; k++) host_coeffs[4 + k] = upper[k];

  int back[8] = {0};
  HIP_CHECK(hipMemcpyFromSymbol(back, HIP_SYMBOL(coeffs), sizeof(back)));
  for (int k = 0; k < 8; k++)
    if (back[k] != host_coeffs[k]) FAIL("hipMemcpyFromSymbol: coeffs[%d] = %d, expected %d", k, back[k], host_coeffs[k]);
  int tail[2] = {0, 0};
  HIP_CHECK(hipMemcpyFromSymbol(tail, HIP_SYMBOL(coeffs), sizeof(tail), 6 * sizeof(int)));
  if (tail[0] != host_coeffs[6] || tail[1] != host_coeffs[7])
    FAIL("hipMemcpyFromSymbol at offset 24: %d %d, expected %d %d", tail[0], tail[1], host_coeffs[6], host_coeffs[7]);
  // The initialised table, read back from the device.
  int squares[16] = {0};
  HIP_CHECK(hipMemcpyFromSymbol(squares, HIP_SYMBOL(SQUARES), sizeof(squares)));
  for (int k = 0; k < 16; k++)
    if (squares[k] != HOST_SQUARES[k]) FAIL("SQUARES[%d] on the device = %d, expected %d", k, squares[k], HOST_SQUARES[k]);

  int *din, *dout;
  HIP_CHECK(hipMalloc(&din, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&dout, n * sizeof(int)));
  HIP_CHECK(hipMemcpy(din, in.data(), n * sizeof(int), hipMemcpyHostToDevice));
  lookup<<<(n + 127) / 128, 128>>>(din, dout, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(int), hipMemcpyDeviceToHost));
  for (unsigned i = 0; i < n; i++) {
    int want = HOST_SQUARES[in[i] % 16] * host_coeffs[i % 8] + (int)i;
    if (out[i] != want) FAIL("lookup: out[%u] = %d, expected %d", i, out[i], want);
  }
  HIP_CHECK(hipFree(din));
  HIP_CHECK(hipFree(dout));
  printf("PASS constant_symbols\n");
  return 0;
}
