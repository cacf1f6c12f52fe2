// textures -- texture objects over linear memory (tex1Dfetch) and pitched 2D memory (tex2D).
//
// 1. float: N floats in device memory, a hipResourceTypeLinear texture of 32-bit float
//    channels; a kernel reads element (i * 7) % N for each i through tex1Dfetch<float>, and
//    reads index 4 * N + 5: past the buffer resource's NUM_RECORDS, which ROCm sets to the
//    texture's size in bytes, so the hardware's range check returns 0. Against the CPU.
// 2. int4: a 4 x 32-bit signed texture read as int4 (element type), negative values included.
// 3. uchar4: an 8-bit unsigned 4-channel texture read as uchar4 (element type), and a second
//    texture over the same bytes with hipReadModeNormalizedFloat read as float4: v / 255.
// 4. short2 normalized: 16-bit signed 2-channel, hipReadModeNormalizedFloat, read as float2
//    (SNORM: v / 32767, clamped at -1), and as float4 (z = 0, w = 1 for a 2-channel texture).
// 5. hipGetTextureObjectResourceDesc gives back the descriptor; hipCreateChannelDesc<T>()
//    gives the channel sizes and kind; a 3-channel texture is refused (hipErrorInvalidValue).
// 6. tex2D over hipMallocPitch memory (a W x H float image whose rows are padded to the pitch,
//    and a uchar4 image read as normalized floats): a grid of coordinates inside and around
//    the image, sampled with point and linear filtering, normalized and unnormalized
//    coordinates, and the clamp, wrap, mirror and border address modes; each result against
//    a CPU reference of the filtering (CUDA Programming Guide, "Texture Fetching": point
//    T[floor(x)], linear the blend of the four texels around x - 0.5 by their fractions,
//    border texels 0). Point results must match exactly; linear ones to the 8-bit precision
//    of the hardware's filter weights. A pitch that is not a multiple of 256 bytes is refused.
//
// gfx94x (MI300) and gfx950 (MI355X) have no image instructions: clang defines
// __HIP_NO_IMAGE_SUPPORT for them, which makes the texture functions unavailable in their
// device code, and ROCm's runtime answers hipErrorNotSupported to hipCreateTextureObject there. On such a GPU (by gcnArchName) the
// program checks exactly that and runs no texture kernel.
#include "hip_check.h"
#include <cmath>
#include <cstring>
#include <vector>

#if defined(__HIP_NO_IMAGE_SUPPORT) && __HIP_NO_IMAGE_SUPPORT
#define FETCH(T, t, i) T{}
#define SAMPLE(T, t, x, y) T{}
#else
#define FETCH(T, t, i) tex1Dfetch<T>(t, i)
#define SAMPLE(T, t, x, y) tex2D<T>(t, x, y)
#endif

__global__ void fetch_float(hipTextureObject_t t, float *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = FETCH(float, t, (int)((i * 7) % n));
  if (i == n) out[i] = FETCH(float, t, 4 * (int)n + 5);
}

__global__ void fetch_int4(hipTextureObject_t t, int4 *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = FETCH(int4, t, (int)(n - 1 - i));
}

__global__ void fetch_uchar4(hipTextureObject_t t, uchar4 *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = FETCH(uchar4, t, (int)i);
}

__global__ void fetch_float4(hipTextureObject_t t, float4 *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = FETCH(float4, t, (int)i);
}

__global__ void fetch_float2(hipTextureObject_t t, float2 *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = FETCH(float2, t, (int)i);
}

static hipTextureObject_t linear(void *p, size_t bytes, hipChannelFormatDesc d, hipTextureReadMode mode) {
  hipResourceDesc r = {};
  r.resType = hipResourceTypeLinear;
  r.res.linear.devPtr = p;
  r.res.linear.desc = d;
  r.res.linear.sizeInBytes = bytes;
  hipTextureDesc td = {};
  td.readMode = mode;
  td.filterMode = hipFilterModePoint;
  hipTextureObject_t t = 0;
  HIP_CHECK(hipCreateTextureObject(&t, &r, &td, nullptr));
  return t;
}

__global__ void sample_float(hipTextureObject_t t, const float2 *xy, float *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = SAMPLE(float, t, xy[i].x, xy[i].y);
}

__global__ void sample_float4(hipTextureObject_t t, const float2 *xy, float4 *out, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = SAMPLE(float4, t, xy[i].x, xy[i].y);
}

// CPU reference of 2D sampling: C channels per texel, row-major W x H.
struct Image2D {
  int w, h, c;
  std::vector<float> v;
  float at(int i, int j, int ch, int mode) const {
    auto axis = [mode](int k, int n) -> int {
      switch (mode) {
        case hipAddressModeWrap: return ((k % n) + n) % n;
        case hipAddressModeMirror: {
          int m = ((k % (2 * n)) + 2 * n) % (2 * n);
          return m >= n ? 2 * n - 1 - m : m;
        }
        case hipAddressModeClamp: return k < 0 ? 0 : (k >= n ? n - 1 : k);
        default: return (k < 0 || k >= n) ? -1 : k;  // border
      }
    };
    int x = axis(i, w), y = axis(j, h);
    if (x < 0 || y < 0) return 0.0f;
    return v[((size_t)y * w + x) * c + ch];
  }
  // The value and the tolerance of a sample.
  void sample(float x, float y, bool normalized, bool linear, int mode, int ch, float *value, float *tol) const {
    if (!normalized && (mode == hipAddressModeWrap || mode == hipAddressModeMirror)) mode = hipAddressModeClamp;
    float u = normalized ? x * w : x, t = normalized ? y * h : y;
    if (!linear) {
      *value = at((int)std::floor(u), (int)std::floor(t), ch, mode);
      *tol = 0.0f;
      return;
    }
    float ub = u - 0.5f, vb = t - 0.5f;
    int i0 = (int)std::floor(ub), j0 = (int)std::floor(vb);
    float a = ub - i0, b = vb - j0;
    float t00 = at(i0, j0, ch, mode), t10 = at(i0 + 1, j0, ch, mode), t01 = at(i0, j0 + 1, ch, mode), t11 = at(i0 + 1, j0 + 1, ch, mode);
    *value = (1 - a) * (1 - b) * t00 + a * (1 - b) * t10 + (1 - a) * b * t01 + a * b * t11;
    float lo = std::fmin(std::fmin(t00, t10), std::fmin(t01, t11)), hi = std::fmax(std::fmax(t00, t10), std::fmax(t01, t11));
    // The hardware's weights have 8 fractional bits.
    *tol = (hi - lo) * (2.0f / 256.0f) + 1e-5f * std::fmax(1.0f, std::fabs(*value));
  }
};

static hipTextureObject_t pitched(void *p, size_t pitch, int w, int h, hipChannelFormatDesc d, hipTextureReadMode read,
                                  hipTextureFilterMode filter, hipTextureAddressMode mode, bool normalized) {
  hipResourceDesc r = {};
  r.resType = hipResourceTypePitch2D;
  r.res.pitch2D.devPtr = p;
  r.res.pitch2D.desc = d;
  r.res.pitch2D.width = w;
  r.res.pitch2D.height = h;
  r.res.pitch2D.pitchInBytes = pitch;
  hipTextureDesc td = {};
  td.addressMode[0] = td.addressMode[1] = mode;
  td.filterMode = filter;
  td.readMode = read;
  td.normalizedCoords = normalized;
  hipTextureObject_t t = 0;
  HIP_CHECK(hipCreateTextureObject(&t, &r, &td, nullptr));
  return t;
}

// Sample points: unnormalized ones from -2.6 to size + 2.4 in steps that avoid texel edges
// (point filtering of a coordinate on an edge depends on rounding), normalized the same / size.
static std::vector<float2> grid(int w, int h, bool normalized) {
  std::vector<float2> xy;
  for (float y = -2.6f; y < h + 2.5f; y += 0.9f)
    for (float x = -2.6f; x < w + 2.5f; x += 0.7f) {
      float fx = x - std::floor(x), fy = y - std::floor(y);
      if (fx < 0.05f || fx > 0.95f || fy < 0.05f || fy > 0.95f) continue;
      xy.push_back(normalized ? make_float2(x / w, y / h) : make_float2(x, y));
    }
  return xy;
}

static bool close(float a, float b) { return std::fabs(a - b) <= 1e-6f * std::fmax(1.0f, std::fabs(b)); }

int main() {
  hipDeviceProp_t prop;
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  if (strncmp(prop.gcnArchName, "gfx94", 5) == 0 || strncmp(prop.gcnArchName, "gfx95", 5) == 0) {
    float *p;
    HIP_CHECK(hipMalloc(&p, 4096));
    hipResourceDesc r = {};
    r.resType = hipResourceTypeLinear;
    r.res.linear.devPtr = p;
    r.res.linear.desc = hipCreateChannelDesc<float>();
    r.res.linear.sizeInBytes = 4096;
    hipTextureDesc td = {};
    hipTextureObject_t t;
    expect("hipCreateTextureObject on gfx94x/gfx950", hipCreateTextureObject(&t, &r, &td, nullptr), hipErrorNotSupported);
    if (expect_failures) FAIL("%d error check(s) failed", expect_failures);
    HIP_CHECK(hipFree(p));
    printf("PASS textures\n");
    return 0;
  }
  const unsigned N = 1000;
  const unsigned blocks = (N + 1 + 255) / 256;

  // 1. float.
  std::vector<float> f(N), fo(N + 1, -1.0f);
  for (unsigned i = 0; i < N; i++) f[i] = 0.25f * (float)i - 100.0f;
  float *df, *dfo;
  HIP_CHECK(hipMalloc(&df, N * sizeof(float)));
  HIP_CHECK(hipMalloc(&dfo, (N + 1) * sizeof(float)));
  HIP_CHECK(hipMemcpy(df, f.data(), N * sizeof(float), hipMemcpyHostToDevice));
  hipChannelFormatDesc fd = hipCreateChannelDesc<float>();
  if (fd.x != 32 || fd.y != 0 || fd.f != hipChannelFormatKindFloat) FAIL("hipCreateChannelDesc<float>() = {%d,%d,%d,%d,%d}", fd.x, fd.y, fd.z, fd.w, (int)fd.f);
  hipTextureObject_t tf = linear(df, N * sizeof(float), fd, hipReadModeElementType);
  fetch_float<<<blocks, 256>>>(tf, dfo, N);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipMemcpy(fo.data(), dfo, (N + 1) * sizeof(float), hipMemcpyDeviceToHost));
  for (unsigned i = 0; i < N; i++)
    if (fo[i] != f[(i * 7) % N]) FAIL("tex1Dfetch<float>(%u) = %g, expected %g", (i * 7) % N, fo[i], f[(i * 7) % N]);
  if (fo[N] != 0.0f) FAIL("tex1Dfetch<float> past NUM_RECORDS = %g, expected 0", fo[N]);

  // 2. int4.
  std::vector<int4> iv(N), io(N);
  for (unsigned i = 0; i < N; i++) iv[i] = make_int4((int)i, -(int)i * 3, (int)(i * i) - 5000, -7);
  int4 *di, *dio;
  HIP_CHECK(hipMalloc(&di, N * sizeof(int4)));
  HIP_CHECK(hipMalloc(&dio, N * sizeof(int4)));
  HIP_CHECK(hipMemcpy(di, iv.data(), N * sizeof(int4), hipMemcpyHostToDevice));
  hipTextureObject_t ti = linear(di, N * sizeof(int4), hipCreateChannelDesc<int4>(), hipReadModeElementType);
  fetch_int4<<<blocks, 256>>>(ti, dio, N);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipMemcpy(io.data(), dio, N * sizeof(int4), hipMemcpyDeviceToHost));
  for (unsigned i = 0; i < N; i++) {
    int4 w = iv[N - 1 - i], g = io[i];
    if (g.x != w.x || g.y != w.y || g.z != w.z || g.w != w.w)
      FAIL("tex1Dfetch<int4>(%u) = (%d,%d,%d,%d), expected (%d,%d,%d,%d)", N - 1 - i, g.x, g.y, g.z, g.w, w.x, w.y, w.z, w.w);
  }

  // 3. uchar4, element type and normalized.
  std::vector<uchar4> cv(N), co(N);
  for (unsigned i = 0; i < N; i++) cv[i] = make_uchar4(i & 255, (i * 3) & 255, 255 - (i & 255), (i * 7 + 1) & 255);
  uchar4 *dc, *dco;
  float4 *dcf;
  HIP_CHECK(hipMalloc(&dc, N * sizeof(uchar4)));
  HIP_CHECK(hipMalloc(&dco, N * sizeof(uchar4)));
  HIP_CHECK(hipMalloc(&dcf, N * sizeof(float4)));
  HIP_CHECK(hipMemcpy(dc, cv.data(), N * sizeof(uchar4), hipMemcpyHostToDevice));
  // HIP 5.2's hipCreateChannelDesc<uchar4>() says hipChannelFormatKindSigned (fixed in later
  // headers): element reads do not care, normalized ones would be SNORM. Say unsigned.
  hipChannelFormatDesc cd = hipCreateChannelDesc(8, 8, 8, 8, hipChannelFormatKindUnsigned);
  hipTextureObject_t tc = linear(dc, N * sizeof(uchar4), cd, hipReadModeElementType);
  hipTextureObject_t tcn = linear(dc, N * sizeof(uchar4), cd, hipReadModeNormalizedFloat);
  fetch_uchar4<<<blocks, 256>>>(tc, dco, N);
  HIP_CHECK_LAUNCH();
  fetch_float4<<<blocks, 256>>>(tcn, dcf, N);
  HIP_CHECK_LAUNCH();
  std::vector<float4> cf(N);
  HIP_CHECK(hipMemcpy(co.data(), dco, N * sizeof(uchar4), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(cf.data(), dcf, N * sizeof(float4), hipMemcpyDeviceToHost));
  for (unsigned i = 0; i < N; i++) {
    uchar4 w = cv[i], g = co[i];
    if (g.x != w.x || g.y != w.y || g.z != w.z || g.w != w.w)
      FAIL("tex1Dfetch<uchar4>(%u) = (%d,%d,%d,%d), expected (%d,%d,%d,%d)", i, g.x, g.y, g.z, g.w, w.x, w.y, w.z, w.w);
    float4 n = cf[i];
    if (!close(n.x, w.x / 255.0f) || !close(n.y, w.y / 255.0f) || !close(n.z, w.z / 255.0f) || !close(n.w, w.w / 255.0f))
      FAIL("normalized tex1Dfetch<float4>(%u) = (%g,%g,%g,%g), expected (%d,%d,%d,%d) / 255", i, n.x, n.y, n.z, n.w, w.x, w.y, w.z, w.w);
  }

  // 4. short2, normalized: SNORM.
  std::vector<short2> sv(N);
  for (unsigned i = 0; i < N; i++) sv[i] = make_short2((short)(i * 65 - 32768), (short)(32767 - i * 33));
  short2 *ds;
  float2 *ds2;
  float4 *ds4;
  HIP_CHECK(hipMalloc(&ds, N * sizeof(short2)));
  HIP_CHECK(hipMalloc(&ds2, N * sizeof(float2)));
  HIP_CHECK(hipMalloc(&ds4, N * sizeof(float4)));
  HIP_CHECK(hipMemcpy(ds, sv.data(), N * sizeof(short2), hipMemcpyHostToDevice));
  hipTextureObject_t ts = linear(ds, N * sizeof(short2), hipCreateChannelDesc<short2>(), hipReadModeNormalizedFloat);
  fetch_float2<<<blocks, 256>>>(ts, ds2, N);
  HIP_CHECK_LAUNCH();
  fetch_float4<<<blocks, 256>>>(ts, ds4, N);
  HIP_CHECK_LAUNCH();
  std::vector<float2> s2(N);
  std::vector<float4> s4(N);
  HIP_CHECK(hipMemcpy(s2.data(), ds2, N * sizeof(float2), hipMemcpyDeviceToHost));
  HIP_CHECK(hipMemcpy(s4.data(), ds4, N * sizeof(float4), hipMemcpyDeviceToHost));
  for (unsigned i = 0; i < N; i++) {
    float wx = std::fmax(sv[i].x / 32767.0f, -1.0f), wy = std::fmax(sv[i].y / 32767.0f, -1.0f);
    if (!close(s2[i].x, wx) || !close(s2[i].y, wy)) FAIL("snorm tex1Dfetch<float2>(%u) = (%g,%g), expected (%g,%g)", i, s2[i].x, s2[i].y, wx, wy);
    if (!close(s4[i].x, wx) || !close(s4[i].y, wy) || s4[i].z != 0.0f || s4[i].w != 1.0f)
      FAIL("snorm tex1Dfetch<float4>(%u) = (%g,%g,%g,%g), expected (%g,%g,0,1)", i, s4[i].x, s4[i].y, s4[i].z, s4[i].w, wx, wy);
  }

  // 5. Descriptor queries and a refused format.
  hipResourceDesc back = {};
  HIP_CHECK(hipGetTextureObjectResourceDesc(&back, ti));
  if (back.resType != hipResourceTypeLinear || back.res.linear.devPtr != di || back.res.linear.sizeInBytes != N * sizeof(int4) ||
      back.res.linear.desc.x != 32 || back.res.linear.desc.w != 32 || back.res.linear.desc.f != hipChannelFormatKindSigned)
    FAIL("hipGetTextureObjectResourceDesc gave another descriptor");
  hipResourceDesc r3 = {};
  r3.resType = hipResourceTypeLinear;
  r3.res.linear.devPtr = df;
  r3.res.linear.desc = hipCreateChannelDesc(32, 32, 32, 0, hipChannelFormatKindFloat);
  r3.res.linear.sizeInBytes = 12 * 10;
  hipTextureDesc td = {};
  hipTextureObject_t t3;
  expect("hipCreateTextureObject with 3 channels", hipCreateTextureObject(&t3, &r3, &td, nullptr), hipErrorInvalidValue);
  if (expect_failures) FAIL("%d error check(s) failed", expect_failures);
  // Handled: clear it (from ROCm 7.0 on the last error stays until hipGetLastError reads it).
  (void)hipGetLastError();

  // 6. tex2D over pitched memory.
  const int W = 37, H = 19;
  float *img;
  size_t pitch;
  HIP_CHECK(hipMallocPitch((void **)&img, &pitch, W * sizeof(float), H));
  Image2D ref = {W, H, 1, std::vector<float>(W * H)};
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) ref.v[y * W + x] = (float)((x * 7 + y * 13) % 23) - 0.25f * (float)y;
  HIP_CHECK(hipMemcpy2D(img, pitch, ref.v.data(), W * sizeof(float), W * sizeof(float), H, hipMemcpyHostToDevice));
  struct Case {
    const char *name;
    hipTextureFilterMode filter;
    hipTextureAddressMode mode;
    bool normalized;
  } cases[] = {
      {"point clamp", hipFilterModePoint, hipAddressModeClamp, false},
      {"linear clamp", hipFilterModeLinear, hipAddressModeClamp, false},
      {"linear border", hipFilterModeLinear, hipAddressModeBorder, false},
      {"point wrap normalized", hipFilterModePoint, hipAddressModeWrap, true},
      {"linear wrap normalized", hipFilterModeLinear, hipAddressModeWrap, true},
      {"linear mirror normalized", hipFilterModeLinear, hipAddressModeMirror, true},
      {"point border normalized", hipFilterModePoint, hipAddressModeBorder, true},
  };
  for (const Case &k : cases) {
    std::vector<float2> xy = grid(W, H, k.normalized);
    unsigned n = xy.size();
    float2 *dxy;
    float *dout;
    HIP_CHECK(hipMalloc(&dxy, n * sizeof(float2)));
    HIP_CHECK(hipMalloc(&dout, n * sizeof(float)));
    HIP_CHECK(hipMemcpy(dxy, xy.data(), n * sizeof(float2), hipMemcpyHostToDevice));
    hipTextureObject_t t = pitched(img, pitch, W, H, hipCreateChannelDesc<float>(), hipReadModeElementType, k.filter, k.mode, k.normalized);
    sample_float<<<(n + 255) / 256, 256>>>(t, dxy, dout, n);
    HIP_CHECK_LAUNCH();
    std::vector<float> out(n);
    HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(float), hipMemcpyDeviceToHost));
    for (unsigned i = 0; i < n; i++) {
      float want, tol;
      ref.sample(xy[i].x, xy[i].y, k.normalized, k.filter == hipFilterModeLinear, k.mode, 0, &want, &tol);
      if (std::fabs(out[i] - want) > tol)
        FAIL("tex2D %s at (%g, %g) = %.7g, expected %.7g (tolerance %g)", k.name, xy[i].x, xy[i].y, out[i], want, tol);
    }
    HIP_CHECK(hipDestroyTextureObject(t));
    HIP_CHECK(hipFree(dxy));
    HIP_CHECK(hipFree(dout));
  }
  // uchar4 read as normalized floats, bilinear, clamp.
  uchar4 *img4;
  size_t pitch4;
  const int W4 = 23, H4 = 11;
  HIP_CHECK(hipMallocPitch((void **)&img4, &pitch4, W4 * sizeof(uchar4), H4));
  std::vector<uchar4> px(W4 * H4);
  Image2D ref4 = {W4, H4, 4, std::vector<float>(W4 * H4 * 4)};
  for (int i = 0; i < W4 * H4; i++) {
    px[i] = make_uchar4((i * 37) & 255, (i * 11 + 5) & 255, 255 - ((i * 3) & 255), (i * 101) & 255);
    ref4.v[4 * i] = px[i].x / 255.0f;
    ref4.v[4 * i + 1] = px[i].y / 255.0f;
    ref4.v[4 * i + 2] = px[i].z / 255.0f;
    ref4.v[4 * i + 3] = px[i].w / 255.0f;
  }
  HIP_CHECK(hipMemcpy2D(img4, pitch4, px.data(), W4 * sizeof(uchar4), W4 * sizeof(uchar4), H4, hipMemcpyHostToDevice));
  {
    std::vector<float2> xy = grid(W4, H4, false);
    unsigned n = xy.size();
    float2 *dxy;
    float4 *dout;
    HIP_CHECK(hipMalloc(&dxy, n * sizeof(float2)));
    HIP_CHECK(hipMalloc(&dout, n * sizeof(float4)));
    HIP_CHECK(hipMemcpy(dxy, xy.data(), n * sizeof(float2), hipMemcpyHostToDevice));
    hipTextureObject_t t = pitched(img4, pitch4, W4, H4, hipCreateChannelDesc(8, 8, 8, 8, hipChannelFormatKindUnsigned), hipReadModeNormalizedFloat,
                                   hipFilterModeLinear, hipAddressModeClamp, false);
    sample_float4<<<(n + 255) / 256, 256>>>(t, dxy, dout, n);
    HIP_CHECK_LAUNCH();
    std::vector<float4> out(n);
    HIP_CHECK(hipMemcpy(out.data(), dout, n * sizeof(float4), hipMemcpyDeviceToHost));
    for (unsigned i = 0; i < n; i++) {
      float got[4] = {out[i].x, out[i].y, out[i].z, out[i].w};
      for (int ch = 0; ch < 4; ch++) {
        float want, tol;
        ref4.sample(xy[i].x, xy[i].y, false, true, hipAddressModeClamp, ch, &want, &tol);
        if (std::fabs(got[ch] - want) > tol)
          FAIL("tex2D<float4> uchar4 linear at (%g, %g) channel %d = %.7g, expected %.7g", xy[i].x, xy[i].y, ch, got[ch], want);
      }
    }
    HIP_CHECK(hipDestroyTextureObject(t));
    HIP_CHECK(hipFree(dxy));
    HIP_CHECK(hipFree(dout));
  }
  hipResourceDesc rbad = {};
  rbad.resType = hipResourceTypePitch2D;
  rbad.res.pitch2D.devPtr = img;
  rbad.res.pitch2D.desc = hipCreateChannelDesc<float>();
  rbad.res.pitch2D.width = W;
  rbad.res.pitch2D.height = H;
  rbad.res.pitch2D.pitchInBytes = W * sizeof(float);
  hipTextureDesc tdbad = {};
  hipTextureObject_t tbad;
  expect("hipCreateTextureObject with a 148-byte pitch", hipCreateTextureObject(&tbad, &rbad, &tdbad, nullptr), hipErrorInvalidValue);
  if (expect_failures) FAIL("%d error check(s) failed", expect_failures);
  HIP_CHECK(hipFree(img));
  HIP_CHECK(hipFree(img4));

  for (hipTextureObject_t t : {tf, ti, tc, tcn, ts}) HIP_CHECK(hipDestroyTextureObject(t));
  for (void *p : {(void *)df, (void *)dfo, (void *)di, (void *)dio, (void *)dc, (void *)dco, (void *)dcf, (void *)ds, (void *)ds2, (void *)ds4}) HIP_CHECK(hipFree(p));
  printf("PASS textures\n");
  return 0;
}
