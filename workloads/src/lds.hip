// lds.hip -- two LDS (__shared__) kernels with work-group barriers.
//
// Kernel 1: extern "C" lds_reduce(const unsigned *in, unsigned *out, unsigned n)
//   Each work-group sums 256 consecutive u32 elements with a tree in LDS:
//   out[blockIdx.x] = sum(in[blockIdx.x*256 + t] for t in 0..256 if blockIdx.x*256 + t < n)
//   (elements past n count as 0; sums wrap modulo 2^32). Tree order: stride 128, 64, ..., 1,
//   each step followed by a barrier (__syncthreads = release fence, s_barrier, acquire fence).
//   Grid: 1-D, (ceil(n/256)*256, 1, 1) work-items; Block: exactly (256, 1, 1) (required:
//   the tree is sized for 256; launch bounds 256). LDS: 1 KiB static.
//   Buffers: in: n u32; out: ceil(n/256) u32.
//
// Kernel 2: extern "C" lds_transpose(const float *in, float *out, unsigned width, unsigned height)
//   Matrix transpose through a 16x16 LDS tile (padded to 16x17 to avoid bank conflicts):
//   in is height rows x width columns (row-major), out is width rows x height columns:
//   out[x * height + y] = in[y * width + x] for x < width, y < height.
//   Grid: 2-D, (ceil(width/16)*16, ceil(height/16)*16, 1) work-items; Block: exactly (16, 16, 1).
//   LDS: 1088 bytes static. Buffers: in, out: width*height f32.
#include "hip_mini.h"

#define RED_BLOCK 256

extern "C" __global__ __launch_bounds__(RED_BLOCK)
void lds_reduce(const unsigned *in, unsigned *out, unsigned n) {
  __shared__ unsigned s[RED_BLOCK];
  unsigned t = TID_X();
  unsigned i = BID_X() * RED_BLOCK + t;
  s[t] = i < n ? in[i] : 0u;
  sync_threads();
  for (unsigned stride = RED_BLOCK / 2; stride > 0; stride >>= 1) {
    if (t < stride)
      s[t] += s[t + stride];
    sync_threads();
  }
  if (t == 0)
    out[BID_X()] = s[0];
}

#define TILE 16

extern "C" __global__ __launch_bounds__(TILE * TILE)
void lds_transpose(const float *in, float *out, unsigned width, unsigned height) {
  __shared__ float tile[TILE][TILE + 1];
  unsigned tx = TID_X(), ty = TID_Y();
  unsigned x = BID_X() * TILE + tx;   // column in `in`
  unsigned y = BID_Y() * TILE + ty;   // row in `in`
  if (x < width && y < height)
    tile[ty][tx] = in[y * width + x];
  sync_threads();
  // Swap the block coordinates: this thread writes element (row ty of the tile's transpose).
  unsigned ox = BID_Y() * TILE + tx;  // column in `out` (= row in `in`)
  unsigned oy = BID_X() * TILE + ty;  // row in `out` (= column in `in`)
  if (ox < height && oy < width)
    out[oy * height + ox] = tile[tx][ty];
}
