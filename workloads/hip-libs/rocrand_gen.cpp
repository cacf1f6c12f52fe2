// rocrand_gen.cpp -- rocRAND's precompiled generator kernels on the simulated GPU: the host API
// (rocrand_create_generator, rocrand_set_seed, rocrand_set_offset, rocrand_generate,
// rocrand_generate_uniform, rocrand_generate_uniform_double, rocrand_generate_normal) for
// XORWOW, Philox4x32-10 and MRG32k3a, each output checked against the CPU reference of
// rand_reference.h: uint32 and uniform outputs bit for bit, normal outputs to a tolerance
// (Box-Muller through the device's and the host's sin/cos/log).
// One generator per engine, seeded and given a non-zero offset (1000003: XORWOW and MRG32k3a
// engines below 1000003 mod 131072 start one value further on), then a sequence of calls, so
// the engine state carried from call to call is checked too: uint32, float, double, normals
// into a misaligned buffer with an odd count (head and tail paths), uint32 into a misaligned
// buffer with an odd count.
//   usage: rocrand_gen [n]   (default n = 262144 = 2^18 uint32 values: 2 per XORWOW engine)
#include "rand_reference.h"  // first: it sets rocRAND's configuration macros
#include <hip/hip_runtime.h>
#include <rocrand/rocrand.h>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <vector>
#include "../hip/hip_check.h"

#define RAND_CHECK(call)                                                                  \
  do {                                                                                    \
    rocrand_status st_ = (call);                                                          \
    if (st_ != ROCRAND_STATUS_SUCCESS) FAIL("%s returned rocrand status %d", #call, (int)st_); \
  } while (0)

static int failures = 0;

static rocrand_status gen(rocrand_generator g, unsigned* p, size_t n, randref::U32) { return rocrand_generate(g, p, n); }
static rocrand_status gen(rocrand_generator g, float* p, size_t n, randref::UniformF) { return rocrand_generate_uniform(g, p, n); }
static rocrand_status gen(rocrand_generator g, double* p, size_t n, randref::UniformD) {
  return rocrand_generate_uniform_double(g, p, n);
}
static rocrand_status gen(rocrand_generator g, float* p, size_t n, randref::NormalF d) {
  return rocrand_generate_normal(g, p, n, d.mean, d.stddev);
}

// One generate call of n values at element `skew` of the device buffer, on the device and on
// the reference; compares them.
template <class Ref, class Dist>
static void step(const char* engine, const char* what, rocrand_generator g, Ref& ref, void* buf, size_t skew, size_t n,
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
static void run(rocrand_rng_type type, const char* engine, size_t n, void* buf) {
  Ref ref;
  rocrand_generator g;
  RAND_CHECK(rocrand_create_generator(&g, type));
  const unsigned long long seed = 0x2c5a3ef1d4b7ULL, offset = 1000003;
  RAND_CHECK(rocrand_set_seed(g, seed));
  ref.set_seed(seed);
  // The offset is set before the first call, so that the engines are initialised once: the
  // library's XORWOW initialisation (131072 skip-aheads to subsequence e through 160x160-bit
  // jump matrices) is most of this program's simulated work.
  RAND_CHECK(rocrand_set_offset(g, offset));
  ref.set_offset(offset);
  char label[64];
  snprintf(label, sizeof label, "%s (offset %llu)", engine, offset);
  step<Ref, randref::U32>(label, "rocrand_generate uint32", g, ref, buf, 0, n);
  step<Ref, randref::UniformF>(label, "rocrand_generate_uniform float", g, ref, buf, 0, n / 2 + 5);
  step<Ref, randref::UniformD>(label, "rocrand_generate_uniform_double", g, ref, buf, 0, n / 4 + 3);
  step<Ref, randref::NormalF>(label, "rocrand_generate_normal float (mean 0.5, stddev 2)", g, ref, buf, 1, n / 4 + 1,
                              randref::NormalF{0.5f, 2.0f});
  step<Ref, randref::U32>(label, "rocrand_generate uint32", g, ref, buf, 1, n / 2 + 3);
  RAND_CHECK(rocrand_destroy_generator(g));
}

int main(int argc, char** argv) {
  size_t n = argc > 1 ? strtoull(argv[1], nullptr, 0) : (1u << 18);
  if (randref::self_test()) FAIL("the CPU reference fails its own checks");
  void* buf = nullptr;
  HIP_CHECK(hipMalloc(&buf, (n + 16) * sizeof(unsigned)));
  run<randref::XorwowRef>(ROCRAND_RNG_PSEUDO_XORWOW, "XORWOW", n, buf);
  run<randref::PhiloxRef>(ROCRAND_RNG_PSEUDO_PHILOX4_32_10, "PHILOX4_32_10", n, buf);
  run<randref::Mrg32k3aRef>(ROCRAND_RNG_PSEUDO_MRG32K3A, "MRG32K3A", n, buf);
  HIP_CHECK(hipFree(buf));
  if (failures) FAIL("%d checks differ from the CPU reference", failures);
  printf("PASS\n");
  return 0;
}
