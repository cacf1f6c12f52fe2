// hiprand_gen.cpp -- the checks of rocrand_gen.cpp through hipRAND's host API
// (hiprandCreateGenerator, hiprandSetPseudoRandomGeneratorSeed, hiprandGenerate,
// hiprandGenerateUniform, hiprandGenerateUniformDouble, hiprandGenerateNormal)
// for HIPRAND_RNG_PSEUDO_XORWOW, PHILOX4_32_10 and MRG32K3A. On AMD, hipRAND 5.3.3 forwards
// each call to the rocRAND call of the same name and the generator type to the rocRAND type
// of the same name (hipRAND rocm-5.3.3, library/src/hcc_detail/hiprand.cpp), so the CPU
// reference is rand_reference.h's: uint32 and uniform outputs bit for bit, normals to 1e-4.
// One generator per engine, seeded (offset 0), then a sequence of calls: uint32, float, double,
// normals into a misaligned buffer with an odd count, uint32 into a misaligned buffer.
//   usage: hiprand_gen [n]   (default n = 262144 = 2^18 uint32 values: 2 per XORWOW engine)
#include "rand_reference.h"  // first: it sets rocRAND's configuration macros
#include <hip/hip_runtime.h>
#include <hiprand/hiprand.h>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>
#include "../hip/hip_check.h"

#define RAND_CHECK(call)                                                                  \
  do {                                                                                    \
    hiprandStatus_t st_ = (call);                                                         \
    if (st_ != HIPRAND_STATUS_SUCCESS) FAIL("%s returned hiprand status %d", #call, (int)st_); \
  } while (0)

static int failures = 0;

static hiprandStatus_t gen(hiprandGenerator_t g, unsigned* p, size_t n, randref::U32) { return hiprandGenerate(g, p, n); }
static hiprandStatus_t gen(hiprandGenerator_t g, float* p, size_t n, randref::UniformF) { return hiprandGenerateUniform(g, p, n); }
static hiprandStatus_t gen(hiprandGenerator_t g, double* p, size_t n, randref::UniformD) {
  return hiprandGenerateUniformDouble(g, p, n);
}
static hiprandStatus_t gen(hiprandGenerator_t g, float* p, size_t n, randref::NormalF d) {
  return hiprandGenerateNormal(g, p, n, d.mean, d.stddev);
}

// One generate call of n values at element `skew` of the device buffer, on the device and on
// the reference; compares them.
template <class Ref, class Dist>
static void step(const char* engine, const char* what, hiprandGenerator_t g, Ref& ref, void* buf, size_t skew, size_t n,
                 Dist dist = Dist()) {
  using T = typename Dist::T;
  T* d = (T*)buf + skew;
  HIP_CHECK(hipMemset(buf, 0xff, (n + skew) * sizeof(T)));
  RAND_CHECK(gen(g, d, n, dist));
  std::vector<T> got(n);
  HIP_CHECK(hipMemcpy(got.data(), d, n * sizeof(T), hipMemcpyDeviceToHost));
  std::vector<T> want = ref.template generate<Dist>(n, (uintptr_t)d, dist);
  char label[160];
  snprintf(label, sizeof label, "%s %s (n = %zu%s)", engine, what, n, skew ? ", misaligned" : "");
  if constexpr (std::is_same_v<Dist, randref::NormalF>) {
    double err;
    size_t bad = randref::compare_close(label, got, want, 1e-4, &err);
    if (bad) ++failures;
    else printf("%s: ok (within 1e-4 of the CPU reference; largest difference %.1e)\n", label, err);
  } else {
    if (randref::compare_exact(label, got, want)) ++failures;
    else printf("%s: ok (bitwise)\n", label);
  }
}

template <class Ref>
static void run(hiprandRngType_t type, const char* engine, size_t n, void* buf) {
  Ref ref;
  hiprandGenerator_t g;
  RAND_CHECK(hiprandCreateGenerator(&g, type));
  const unsigned long long seed = 0x2c5a3ef1d4b7ULL;
  RAND_CHECK(hiprandSetPseudoRandomGeneratorSeed(g, seed));
  ref.set_seed(seed);
  // Offset 0, the default (rocrand_gen checks a non-zero offset): the engines are initialised
  // once, at the first call.
  step<Ref, randref::U32>(engine, "hiprandGenerate uint32", g, ref, buf, 0, n);
  step<Ref, randref::UniformF>(engine, "hiprandGenerateUniform float", g, ref, buf, 0, n / 2 + 5);
  step<Ref, randref::UniformD>(engine, "hiprandGenerateUniformDouble", g, ref, buf, 0, n / 4 + 3);
  step<Ref, randref::NormalF>(engine, "hiprandGenerateNormal float (mean 0.5, stddev 2)", g, ref, buf, 1, n / 4 + 1,
                              randref::NormalF{0.5f, 2.0f});
  step<Ref, randref::U32>(engine, "hiprandGenerate uint32", g, ref, buf, 1, n / 2 + 3);
  RAND_CHECK(hiprandDestroyGenerator(g));
}

int main(int argc, char** argv) {
  size_t n = argc > 1 ? strtoull(argv[1], nullptr, 0) : (1u << 18);
  if (randref::self_test()) FAIL("the CPU reference fails its own checks");
  void* buf = nullptr;
  HIP_CHECK(hipMalloc(&buf, (n + 16) * sizeof(unsigned)));
  run<randref::XorwowRef>(HIPRAND_RNG_PSEUDO_XORWOW, "XORWOW", n, buf);
  run<randref::PhiloxRef>(HIPRAND_RNG_PSEUDO_PHILOX4_32_10, "PHILOX4_32_10", n, buf);
  run<randref::Mrg32k3aRef>(HIPRAND_RNG_PSEUDO_MRG32K3A, "MRG32K3A", n, buf);
  HIP_CHECK(hipFree(buf));
  if (failures) FAIL("%d checks differ from the CPU reference", failures);
  printf("PASS\n");
  return 0;
}
