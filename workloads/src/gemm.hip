// gemm.hip -- half-precision matrix multiply on the matrix cores (MFMA), f32 accumulation.
//
// Kernel:  extern "C" gemm_f16_nt(const _Float16 *a, const _Float16 *b, float *c,
//                                 unsigned m, unsigned n, unsigned k)
//   c[i * n + j] = sum over p < k of a[i * k + p] * b[j * k + p]     (i < m, j < n)
// i.e. C = A * B^T with A (m x k) and B (n x k) both row-major: the "NT" GEMM, whose operands
// are both contiguous along k. Products and sums are taken in f32 by the matrix cores.
// Tiling: a block of 256 work-items (4 wave64s) computes a 128 x 128 tile of C; wave w takes
// the 64 x 64 quarter (rows 64 * (w / 2), columns 64 * (w % 2)) as 2 x 2 tiles of
// v_mfma_f32_32x32x8f16 (__builtin_amdgcn_mfma_f32_32x32x8f16), 4 per step of 8 along k.
// Operands come straight from global memory (the caches serve the reuse; no LDS).
// Register layouts (AMD Instinct MI200/MI300 ISA, "Dependent arithmetic: MFMA" sections; the
// AMD Matrix Instruction Calculator gives the same for v_mfma_f32_32x32x8f16): lane l supplies
// A[row l % 32][k 4 * (l / 32) .. +3] and B[column l % 32][the same k]; accumulator element e
// of lane l is C[row 8 * (e / 4) + 4 * (l / 32) + e % 4][column l % 32].
// Grid: 2-D, (n / 128 * 256, m / 128) work-items, block (256, 1, 1); m and n multiples of 128,
//   k a multiple of 32.
// Buffers: a: m * k f16, b: n * k f16 (inputs); c: m * n f32 (output, every element written).
// Targets: the CDNA processors (gfx908, gfx90a, gfx94x, gfx950); elsewhere the kernel is empty.
#include "hip_mini.h"

#if defined(__gfx908__) || defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || \
    defined(__gfx942__) || defined(__gfx950__)
#define HAVE_MFMA 1
#endif

typedef _Float16 half4 __attribute__((ext_vector_type(4)));
typedef float float16 __attribute__((ext_vector_type(16)));

extern "C" __global__ __launch_bounds__(256) void gemm_f16_nt(const _Float16 *a, const _Float16 *b, float *c,
                                                              unsigned m, unsigned n, unsigned k) {
#ifdef HAVE_MFMA
  unsigned lane = TID_X() % 64, wave = TID_X() / 64;
  unsigned row0 = BID_Y() * 128 + (wave / 2) * 64;
  unsigned col0 = BID_X() * 128 + (wave % 2) * 64;
  unsigned r = lane % 32, kq = (lane / 32) * 4;
  const _Float16 *pa = a + (unsigned long)(row0 + r) * k + kq;
  const _Float16 *pb = b + (unsigned long)(col0 + r) * k + kq;
  unsigned long step32 = 32ul * k;
  float16 acc00 = {}, acc01 = {}, acc10 = {}, acc11 = {};
  // Four steps of 8 along k at a time: their 16 loads are issued together, so one memory
  // latency is paid per 16 matrix instructions rather than per 4.
  for (unsigned p = 0; p < k; p += 32) {
    half4 a0[4], a1[4], b0[4], b1[4];
    for (unsigned s = 0; s < 4; ++s) {
      a0[s] = *(const half4 *)(pa + p + 8 * s);
      a1[s] = *(const half4 *)(pa + step32 + p + 8 * s);
      b0[s] = *(const half4 *)(pb + p + 8 * s);
      b1[s] = *(const half4 *)(pb + step32 + p + 8 * s);
    }
    for (unsigned s = 0; s < 4; ++s) {
      acc00 = __builtin_amdgcn_mfma_f32_32x32x8f16(a0[s], b0[s], acc00, 0, 0, 0);
      acc01 = __builtin_amdgcn_mfma_f32_32x32x8f16(a0[s], b1[s], acc01, 0, 0, 0);
      acc10 = __builtin_amdgcn_mfma_f32_32x32x8f16(a1[s], b0[s], acc10, 0, 0, 0);
      acc11 = __builtin_amdgcn_mfma_f32_32x32x8f16(a1[s], b1[s], acc11, 0, 0, 0);
    }
  }
  unsigned col = col0 + lane % 32;
  for (unsigned e = 0; e < 16; ++e) {
    unsigned row = row0 + 8 * (e / 4) + 4 * (lane / 32) + e % 4;
    c[(unsigned long)row * n + col] = acc00[e];
    c[(unsigned long)row * n + col + 32] = acc01[e];
    c[(unsigned long)(row + 32) * n + col] = acc10[e];
    c[(unsigned long)(row + 32) * n + col + 32] = acc11[e];
  }
#endif
}
