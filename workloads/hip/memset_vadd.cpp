// memset_vadd -- hipMemset, hipMemsetD32 and hipMemsetD8 on device memory, then a vector add.
//
// 1. c (n + TAIL floats) is filled with the byte 0xA5 by hipMemset and copied back: every byte
//    must be 0xA5. Then hipMemset clears it to 0 and vadd writes only c[0..n): c[i] must be
//    a[i] + b[i] (exact in float for the small integers used) and the TAIL floats after n must
//    still be 0, so the clear happened and the kernel stayed in bounds.
// 2. hipMemsetD32 writes a 32-bit pattern to words [4, 4 + W) of a buffer pre-cleared to 0, and
//    hipMemsetD8 writes a byte to bytes [3, 3 + B) of another; the words/bytes just outside
//    those ranges must be untouched (0), so count and offset are honoured exactly.
#include "hip_check.h"
#include <cstdint>
#include <cstring>
#include <vector>

__global__ void vadd(const float *a, const float *b, float *c, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main() {
  const unsigned n = 1000;  // not a multiple of the block size: the guard matters
  const unsigned TAIL = 24;
  const size_t total = n + TAIL;
  std::vector<float> a(n), b(n), c(total);
  for (unsigned i = 0; i < n; i++) {
    a[i] = (float)i;
    b[i] = (float)(3 * i + 1);
  }
  float *da, *db, *dc;
  HIP_CHECK(hipMalloc(&da, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&db, n * sizeof(float)));
  HIP_CHECK(hipMalloc(&dc, total * sizeof(float)));
  HIP_CHECK(hipMemcpy(da, a.data(), n * sizeof(float), hipMemcpyHostToDevice));
  HIP_CHECK(hipMemcpy(db, b.data(), n * sizeof(float), hipMemcpyHostToDevice));

  // hipMemset fills bytes.
  HIP_CHECK(hipMemset(dc, 0xA5, total * sizeof(float)));
  std::vector<unsigned char> bytes(total * sizeof(float));
  HIP_CHECK(hipMemcpy(bytes.data(), dc, bytes.size(), hipMemcpyDeviceToHost));
  for (size_t i = 0; i < bytes.size(); i++)
    if (bytes[i] != 0xA5) FAIL("hipMemset(0xA5): byte %zu is 0x%02x", i, bytes[i]);

  HIP_CHECK(hipMemset(dc, 0, total * sizeof(float)));
  vadd<<<(n + 255) / 256, 256>>>(da, db, dc, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(c.data(), dc, total * sizeof(float), hipMemcpyDeviceToHost));
  for (unsigned i = 0; i < n; i++)
    if (c[i] != a[i] + b[i]) FAIL("vadd: c[%u] = %g, expected %g", i, c[i], a[i] + b[i]);
  for (size_t i = n; i < total; i++)
    if (c[i] != 0.0f) FAIL("vadd: c[%zu] past n = %g, expected 0 (hipMemset clear)", i, c[i]);

  // hipMemsetD32: words [4, 4 + W) of a zeroed buffer of W + 8 words.
  const size_t W = 333;
  const uint32_t pattern = 0xDEADBEEFu;
  uint32_t *dw;
  HIP_CHECK(hipMalloc(&dw, (W + 8) * sizeof(uint32_t)));
  HIP_CHECK(hipMemset(dw, 0, (W + 8) * sizeof(uint32_t)));
  HIP_CHECK(hipMemsetD32((hipDeviceptr_t)(dw + 4), (int)pattern, W));
  std::vector<uint32_t> w(W + 8);
  HIP_CHECK(hipMemcpy(w.data(), dw, w.size() * sizeof(uint32_t), hipMemcpyDeviceToHost));
  for (size_t i = 0; i < w.size(); i++) {
    uint32_t want = (i >= 4 && i < 4 + W) ? pattern : 0;
    if (w[i] != want) FAIL("hipMemsetD32: word %zu = 0x%08x, expected 0x%08x", i, w[i], want);
  }

  // hipMemsetD8: bytes [3, 3 + B) of a zeroed buffer of B + 7 bytes (odd offset and length).
  const size_t B = 101;
  unsigned char *d8;
  HIP_CHECK(hipMalloc(&d8, B + 7));
  HIP_CHECK(hipMemset(d8, 0, B + 7));
  HIP_CHECK(hipMemsetD8((hipDeviceptr_t)(d8 + 3), 0x5A, B));
  std::vector<unsigned char> b8(B + 7);
  HIP_CHECK(hipMemcpy(b8.data(), d8, b8.size(), hipMemcpyDeviceToHost));
  for (size_t i = 0; i < b8.size(); i++) {
    unsigned char want = (i >= 3 && i < 3 + B) ? 0x5A : 0;
    if (b8[i] != want) FAIL("hipMemsetD8: byte %zu = 0x%02x, expected 0x%02x", i, b8[i], want);
  }

  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(dc));
  HIP_CHECK(hipFree(dw));
  HIP_CHECK(hipFree(d8));
  printf("PASS memset_vadd\n");
  return 0;
}
