// memcpy3d -- pitched allocations, 2D and 3D copies and fills, and the remaining linear copies.
//
// 1. hipMallocPitch: a W x H float matrix (rows padded to the returned pitch, which must hold a
//    row). hipMemcpy2D host -> device, a kernel that indexes by the pitch (m = m * 2 + 1),
//    hipMemcpy2DAsync back on a stream: every element against the CPU.
// 2. hipMemset2D of a sub-rectangle (rows 3..3+RH, bytes 8..8+RW) to 0x7f, then the whole pitched
//    block (padding included) copied back as bytes: exactly the rectangle changed. hipMemset2DAsync
//    on a stream clears it again.
// 3. hipMalloc3D: X x Y x Z ints; hipMemset3D to 0xff; hipMemcpy3D host -> device; a kernel that
//    adds z * 1000 through the pitched pointer; hipMemcpy3DAsync of a sub-box (srcPos) back to a
//    tightly packed host box; hipMemset3DAsync of another sub-box to 0, then hipMemcpy3D of the
//    whole volume back: every int against the CPU.
// 4. hipMemcpyParam2D device -> device between two pitched matrices (sub-rectangle at an x/y
//    offset), hipMemcpyParam2DAsync device -> host: against the CPU.
// 5. hipMemcpyWithStream (host waits, no synchronize), hipMemcpyPeer(Async) on device 0,
//    hipMemcpyHtoDAsync/DtoDAsync/DtoHAsync, hipMemPtrGetInfo (the size asked for).
// 6. Errors: a 2D copy wider than its pitch is hipErrorInvalidPitchValue, a peer copy to device 1
//    hipErrorInvalidDevice, hipMemPtrGetInfo of a host pointer hipErrorInvalidValue.
#include "hip_check.h"
#include <cstring>
#include <vector>

__global__ void twice_plus_one(float *m, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) {
    float *row = (float *)((char *)m + y * pitch);
    row[x] = row[x] * 2.0f + 1.0f;
  }
}

__global__ void add_slice(hipPitchedPtr p, int w, int h, int d) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x < w && y < h && z < d) {
    int *row = (int *)((char *)p.ptr + (z * p.ysize + y) * p.pitch);
    row[x] += z * 1000;
  }
}

__global__ void negate(int *v, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = -v[i];
}

int main() {
  hipStream_t s;
  HIP_CHECK(hipStreamCreate(&s));

  // 1. hipMallocPitch, hipMemcpy2D, a pitched kernel, hipMemcpy2DAsync.
  const int W = 37, H = 19;
  float *m;
  size_t pitch = 0;
  HIP_CHECK(hipMallocPitch((void **)&m, &pitch, W * sizeof(float), H));
  if (pitch < W * sizeof(float)) FAIL("hipMallocPitch: pitch %zu < row of %zu bytes", pitch, W * sizeof(float));
  std::vector<float> hm(W * H), back(W * H, -1.0f);
  for (int i = 0; i < W * H; i++) hm[i] = (float)(i % 101) - 50.0f;
  HIP_CHECK(hipMemcpy2D(m, pitch, hm.data(), W * sizeof(float), W * sizeof(float), H, hipMemcpyHostToDevice));
  twice_plus_one<<<dim3(1, H), 64>>>(m, pitch, W, H);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipMemcpy2DAsync(back.data(), W * sizeof(float), m, pitch, W * sizeof(float), H, hipMemcpyDeviceToHost, s));
  HIP_CHECK(hipStreamSynchronize(s));
  for (int i = 0; i < W * H; i++)
    if (back[i] != hm[i] * 2.0f + 1.0f) FAIL("pitched matrix [%d][%d] = %g, expected %g", i / W, i % W, back[i], hm[i] * 2.0f + 1.0f);

  // 2. hipMemset2D of a sub-rectangle: exactly those bytes change.
  const int RY = 3, RH = 5, RX = 8, RW = 50;
  std::vector<unsigned char> before(pitch * H), after(pitch * H);
  HIP_CHECK(hipMemcpy(before.data(), m, pitch * H, hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemset2D((char *)m + RY * pitch + RX, pitch, 0x7f, RW, RH));
  HIP_CHECK(hipMemcpy(after.data(), m, pitch * H, hipMemcpyDeviceToHost));
  for (size_t y = 0; y < (size_t)H; y++)
    for (size_t x = 0; x < pitch; x++) {
      bool inside = y >= RY && y < RY + RH && x >= RX && x < RX + RW;
      unsigned char want = inside ? 0x7f : before[y * pitch + x];
      if (after[y * pitch + x] != want) FAIL("hipMemset2D: byte (%zu, %zu) = 0x%02x, expected 0x%02x", y, x, after[y * pitch + x], want);
    }
  HIP_CHECK(hipMemset2DAsync(m, pitch, 0, W * sizeof(float), H, s));
  HIP_CHECK(hipMemcpy2DAsync(back.data(), W * sizeof(float), m, pitch, W * sizeof(float), H, hipMemcpyDeviceToHost, s));
  HIP_CHECK(hipStreamSynchronize(s));
  for (int i = 0; i < W * H; i++)
    if (back[i] != 0.0f) FAIL("hipMemset2DAsync: [%d] = %g", i, back[i]);

  // 3. hipMalloc3D, hipMemset3D, hipMemcpy3D, a 3D kernel, sub-box copies and fills.
  const int X = 21, Y = 6, Z = 4;
  hipPitchedPtr vol;
  HIP_CHECK(hipMalloc3D(&vol, make_hipExtent(X * sizeof(int), Y, Z)));
  if (vol.pitch < X * sizeof(int) || vol.xsize != X * sizeof(int) || vol.ysize != (size_t)Y)
    FAIL("hipMalloc3D: pitch %zu xsize %zu ysize %zu", vol.pitch, vol.xsize, vol.ysize);
  HIP_CHECK(hipMemset3D(vol, 0xff, make_hipExtent(X * sizeof(int), Y, Z)));
  std::vector<int> hv(X * Y * Z), want(X * Y * Z);
  for (int i = 0; i < X * Y * Z; i++) hv[i] = i * 7 - 300;
  hipMemcpy3DParms up = {};
  up.srcPtr = make_hipPitchedPtr(hv.data(), X * sizeof(int), X, Y);
  up.dstPtr = vol;
  up.extent = make_hipExtent(X * sizeof(int), Y, Z);
  up.kind = hipMemcpyHostToDevice;
  HIP_CHECK(hipMemcpy3D(&up));
  add_slice<<<dim3(1, Y, Z), 32>>>(vol, X, Y, Z);
  HIP_CHECK_LAUNCH();
  for (int z = 0; z < Z; z++)
    for (int i = 0; i < X * Y; i++) want[z * X * Y + i] = hv[z * X * Y + i] + z * 1000;
  // A sub-box: x 2..2+BX, y 1..1+BY, z 1..1+BZ, into a packed host box.
  const int BX = 9, BY = 4, BZ = 3;
  std::vector<int> box(BX * BY * BZ, 12345);
  hipMemcpy3DParms down = {};
  down.srcPtr = vol;
  down.srcPos = make_hipPos(2 * sizeof(int), 1, 1);
  down.dstPtr = make_hipPitchedPtr(box.data(), BX * sizeof(int), BX, BY);
  down.extent = make_hipExtent(BX * sizeof(int), BY, BZ);
  down.kind = hipMemcpyDeviceToHost;
  HIP_CHECK(hipMemcpy3DAsync(&down, s));
  HIP_CHECK(hipStreamSynchronize(s));
  for (int z = 0; z < BZ; z++)
    for (int y = 0; y < BY; y++)
      for (int x = 0; x < BX; x++) {
        int got = box[(z * BY + y) * BX + x], w = want[((z + 1) * Y + y + 1) * X + x + 2];
        if (got != w) FAIL("hipMemcpy3DAsync sub-box (%d,%d,%d) = %d, expected %d", x, y, z, got, w);
      }
  // Clear x 0..4, y 2..5, z 0..2 (bytes of 0 make int 0).
  hipPitchedPtr corner = vol;
  corner.ptr = (char *)vol.ptr + 2 * vol.pitch;
  HIP_CHECK(hipMemset3DAsync(corner, 0, make_hipExtent(4 * sizeof(int), 3, 2), s));
  for (int z = 0; z < 2; z++)
    for (int y = 2; y < 5; y++)
      for (int x = 0; x < 4; x++) want[(z * Y + y) * X + x] = 0;
  std::vector<int> all(X * Y * Z, 777);
  hipMemcpy3DParms whole = {};
  whole.srcPtr = vol;
  whole.dstPtr = make_hipPitchedPtr(all.data(), X * sizeof(int), X, Y);
  whole.extent = make_hipExtent(X * sizeof(int), Y, Z);
  whole.kind = hipMemcpyDefault;
  HIP_CHECK(hipMemcpy3D(&whole));
  for (int i = 0; i < X * Y * Z; i++)
    if (all[i] != want[i]) FAIL("volume [%d] = %d, expected %d", i, all[i], want[i]);

  // 4. hipMemcpyParam2D between pitched matrices, then to the host.
  float *m2;
  size_t pitch2;
  HIP_CHECK(hipMallocPitch((void **)&m2, &pitch2, 16 * sizeof(float), 12));
  HIP_CHECK(hipMemcpy2D(m, pitch, hm.data(), W * sizeof(float), W * sizeof(float), H, hipMemcpyHostToDevice));
  HIP_CHECK(hipMemset2D(m2, pitch2, 0, 16 * sizeof(float), 12));
  hip_Memcpy2D p = {};
  p.srcMemoryType = hipMemoryTypeDevice;
  p.srcDevice = m;
  p.srcPitch = pitch;
  p.srcXInBytes = 5 * sizeof(float);
  p.srcY = 4;
  p.dstMemoryType = hipMemoryTypeDevice;
  p.dstDevice = m2;
  p.dstPitch = pitch2;
  p.dstXInBytes = 2 * sizeof(float);
  p.dstY = 1;
  p.WidthInBytes = 10 * sizeof(float);
  p.Height = 8;
  HIP_CHECK(hipMemcpyParam2D(&p));
  std::vector<float> h2(16 * 12, -1.0f);
  hip_Memcpy2D q = {};
  q.srcMemoryType = hipMemoryTypeDevice;
  q.srcDevice = m2;
  q.srcPitch = pitch2;
  q.dstMemoryType = hipMemoryTypeHost;
  q.dstHost = h2.data();
  q.dstPitch = 16 * sizeof(float);
  q.WidthInBytes = 16 * sizeof(float);
  q.Height = 12;
  HIP_CHECK(hipMemcpyParam2DAsync(&q, s));
  HIP_CHECK(hipStreamSynchronize(s));
  for (int y = 0; y < 12; y++)
    for (int x = 0; x < 16; x++) {
      bool in = y >= 1 && y < 9 && x >= 2 && x < 12;
      float w = in ? hm[(y - 1 + 4) * W + (x - 2 + 5)] : 0.0f;
      if (h2[y * 16 + x] != w) FAIL("hipMemcpyParam2D [%d][%d] = %g, expected %g", y, x, h2[y * 16 + x], w);
    }

  // 5. hipMemcpyWithStream, peer copies, the driver-style async copies, hipMemPtrGetInfo.
  const unsigned n = 1000;
  std::vector<int> a(n), r(n, 0);
  for (unsigned i = 0; i < n; i++) a[i] = (int)(i * 3) - 1000;
  int *da, *db;
  HIP_CHECK(hipMalloc(&da, n * sizeof(int)));
  HIP_CHECK(hipMalloc(&db, n * sizeof(int)));
  HIP_CHECK(hipMemcpyHtoDAsync(da, a.data(), n * sizeof(int), s));
  negate<<<(n + 255) / 256, 256, 0, s>>>(da, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipMemcpyWithStream(r.data(), da, n * sizeof(int), hipMemcpyDeviceToHost, s));
  for (unsigned i = 0; i < n; i++)
    if (r[i] != -a[i]) FAIL("hipMemcpyWithStream: [%u] = %d, expected %d", i, r[i], -a[i]);
  HIP_CHECK(hipMemcpyPeer(db, 0, da, 0, n * sizeof(int)));
  HIP_CHECK(hipMemcpyDtoDAsync(da, db, n / 2 * sizeof(int), s));
  negate<<<(n + 255) / 256, 256, 0, s>>>(da, n);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipMemcpyPeerAsync(db, 0, da, 0, n * sizeof(int), s));
  std::fill(r.begin(), r.end(), 0);
  HIP_CHECK(hipMemcpyDtoHAsync(r.data(), db, n * sizeof(int), s));
  HIP_CHECK(hipStreamSynchronize(s));
  for (unsigned i = 0; i < n; i++)
    if (r[i] != a[i]) FAIL("peer/DtoD copies: [%u] = %d, expected %d", i, r[i], a[i]);
  void *odd;
  HIP_CHECK(hipMalloc(&odd, 1000));
  size_t got = 0;
  HIP_CHECK(hipMemPtrGetInfo(odd, &got));
  if (got != 1000) FAIL("hipMemPtrGetInfo = %zu, expected 1000", got);

  // 6. Errors.
  expect("hipMemcpy2D wider than the pitch", hipMemcpy2D(m, 8, hm.data(), 8, 16, 2, hipMemcpyHostToDevice), hipErrorInvalidPitchValue);
  expect("hipMemcpyPeer to device 1", hipMemcpyPeer(db, 1, da, 0, 16), hipErrorInvalidDevice);
  expect("hipMemPtrGetInfo of host memory", hipMemPtrGetInfo(a.data(), &got), hipErrorInvalidValue);
  if (expect_failures) FAIL("%d error check(s) failed", expect_failures);

  HIP_CHECK(hipFree(odd));
  HIP_CHECK(hipFree(da));
  HIP_CHECK(hipFree(db));
  HIP_CHECK(hipFree(m2));
  HIP_CHECK(hipFree(vol.ptr));
  HIP_CHECK(hipFree(m));
  HIP_CHECK(hipStreamDestroy(s));
  printf("PASS memcpy3d\n");
  return 0;
}
