// rand_reference.h -- CPU reference for rocRAND's (and so hipRAND's) host-API pseudo-random
// generators XORWOW, Philox4x32-10 and MRG32k3a, shared by rocrand_gen.cpp and hiprand_gen.cpp.
//
// The engines: rocRAND's device-API headers (Debian's librocrand-dev 5.3.3, /usr/include/rocrand)
// are host-callable when FQUALIFIERS includes __host__; on the host path they skip ahead with the
// h_* tables (h_xorwow_jump_matrices, h_xorwow_sequence_jump_matrices in
// rocrand_xorwow_precomputed.h, h_A1/h_A2/h_A1P67/h_A2P67 in rocrand_mrg32k3a_precomputed.h) instead
// of the d_* copies in device memory. The reference runs those engines on the CPU through the
// public device API only: rocrand_init, rocrand, rocrand_uniform, rocrand_uniform_double,
// rocrand_normal2, skipahead. self_test() checks the engines themselves against numbers that
// do not come from rocRAND's headers (Random123's known-answer vector, a brute-force walk, a
// separately written XORWOW / MRG32k3a recurrence).
//
// The LAYOUT -- which engine writes which output -- is not part of the device API; it is the
// host library's. The facts below are read from rocRAND's source at tag rocm-5.3.3 (commit
// f992bf7c18c787607eab2d28aeb6c277e6285702, the version Debian 12 packages as librocrand1
// 5.3.3-4). The model is written from those facts, not copied.
//
//   library/src/rocrand.cpp
//     R1  ROCRAND_RNG_PSEUDO_XORWOW -> rocrand_xorwow, PHILOX4_32_10 -> rocrand_philox4x32_10,
//         MRG32K3A -> rocrand_mrg32k3a; rocrand_generate / _uniform / _uniform_double / _normal
//         call the generator's generate<T>() with the distribution of R6.
//   library/src/rng/generator_type.hpp
//     R2  a new generator has seed 0 and offset 0.
//   library/src/rng/xorwow.hpp, library/src/rng/mrg32k3a.hpp (identical structure)
//     R3  s_blocks = 512, s_threads = 256: an array of S = 131072 engines, kept in device memory
//         between calls. init() (first generate after creation / set_seed / set_offset):
//         start = offset % S; engine e = engine(seed, subsequence e,
//         offset / S + (e < start ? 1 : 0)).
//     R4  generate_kernel, with W_in/W_out the distribution's input/output widths: the data
//         pointer's misalignment in elements, head = min(n, (W_out - addr/sizeof(T) % W_out) %
//         W_out), tail = (n - head) % W_out, groups = (n - head) / W_out. Group g (W_out values at
//         data[head + g W_out]) is made by engine (g + start) mod S from its next W_in engine
//         outputs; thread id handles groups id, id + S, ... in order. If W_out > 1, the thread
//         whose loop stops at index == groups -- engine (groups + start) mod S -- then makes
//         the head (data[0..head)) and after it the tail (data[n-tail..n)), one distribution call
//         each, after its regular groups.
//     R5  after the launch, start = (start + ceil(n / W_out)) mod S (engines are not reset).
//         The MRG32k3a generator replaces seed 0 by ROCRAND_MRG32K3A_DEFAULT_SEED.
//   library/src/rng/distribution/uniform.hpp, normal.hpp
//     R6  (W_in, W_out) for XORWOW and Philox: uint32 (1,1) identity; float (1,1)
//         uniform_distribution(v); double (2,1) uniform_distribution_double(v1, v2); normal
//         float (2,2) normal_distribution2(v1, v2) scaled as mean + v * stddev.
//         For MRG32k3a (mrg_* distributions): uint32 (1,1) mrg_uniform_distribution_uint(v);
//         float (1,1); double (1,1) mrg_uniform_distribution_double(v); normal float (2,2).
//         These are the functions behind the device API's rocrand / rocrand_uniform /
//         rocrand_uniform_double / rocrand_normal2 for the same engine (rocrand_uniform.h,
//         rocrand_normal.h, rocrand_mrg32k3a.h), so the reference calls those.
//   library/src/rng/philox4x32_10.hpp
//     R7  one engine: init() makes engine(seed, subsequence 0, offset); generate() launches
//         s_blocks = 1024 x s_threads = 256 = 262144 threads (the stride) on a copy of it and
//         afterwards discards ceil(n / W_out) * W_in values from it.
//     R8  generate_kernel: P = 4 / W_in groups per thread-step, F = P W_out outputs per vector;
//         head = min(n, (F - addr/sizeof(T) % F) % F), tail = (n - head) % F, vecs = (n - head)/F.
//         Thread t first discards 4t + head values if t > 0; thread 0 instead makes the head
//         from the first values (ceil(head / W_out) groups, W_in values each). Vector j (thread
//         j mod stride) is made from the 4 values starting at base(t) + 4 (j - t), base(t) =
//         the thread's position after the above (next4_leap(stride) returns 4 consecutive values
//         and skips 4 stride). The thread that stops at index == vecs makes the tail from its
//         next values, group by group. For W_in = 1 (uint32, float) this is the stream written
//         in order; with W_in = 2 and an odd head the library's own offsets overlap, and the
//         model reproduces what the code does.
#pragma once

// The rocRAND headers default FQUALIFIERS to __forceinline__ __device__; with __host__ too the
// engines and distributions compile for the CPU (rocRAND's library does the same in
// library/src/rng/common.hpp and device_engines.hpp).
#define FQUALIFIERS __forceinline__ __host__ __device__
// Only this file's own device code would use rocRAND's inline assembly (the reference runs on the
// host); without this, rocrand_version.h enables it and rocrand_common.h warns for gfx90a.
#define ROCRAND_DISABLE_INLINE_ASM
#include <rocrand/rocrand_kernel.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace randref {

// ---- distributions: one "group" = W_out outputs made by one distribution call (R6) --------

struct U32 {
  using T = unsigned int;
  static constexpr unsigned in = 1, out = 1;  // W_in as for XORWOW / Philox
  template <class S> void operator()(S* s, T* o) const { o[0] = rocrand(s); }
};
struct UniformF {
  using T = float;
  static constexpr unsigned in = 1, out = 1;
  template <class S> void operator()(S* s, T* o) const { o[0] = rocrand_uniform(s); }
};
struct UniformD {
  using T = double;
  static constexpr unsigned in = 2, out = 1;  // XORWOW / Philox: 2 values; MRG32k3a: 1
  template <class S> void operator()(S* s, T* o) const { o[0] = rocrand_uniform_double(s); }
};
struct NormalF {
  using T = float;
  static constexpr unsigned in = 2, out = 2;
  float mean, stddev;
  template <class S> void operator()(S* s, T* o) const {
    float2 v = rocrand_normal2(s);
    o[0] = mean + v.x * stddev;
    o[1] = mean + v.y * stddev;
  }
};

// ---- XORWOW and MRG32k3a: an array of engines (R3-R5) -------------------------------------

template <class State>
class EngineArray {
 public:
  static constexpr unsigned S = 512 * 256;

  explicit EngineArray(bool mrg) : mrg_(mrg) {}
  void set_seed(unsigned long long seed) {
    seed_ = (mrg_ && seed == 0) ? ROCRAND_MRG32K3A_DEFAULT_SEED : seed;
    ready_ = false;
  }
  void set_offset(unsigned long long offset) {
    offset_ = offset;
    ready_ = false;
  }

  // The n outputs a generate call writes to a device buffer at address addr.
  template <class Dist>
  std::vector<typename Dist::T> generate(size_t n, uintptr_t addr, Dist dist = Dist()) {
    using T = typename Dist::T;
    init();
    const size_t w = Dist::out;
    const size_t mis = (w - addr / sizeof(T) % w) % w;
    const size_t head = std::min(n, mis), tail = (n - head) % w, groups = (n - head) / w;
    std::vector<T> out(n);
    T tmp[Dist::out];
    for (size_t g = 0; g < groups; ++g) dist(&engines_[(g + start_) % S], &out[head + g * w]);
    if (w > 1) {
      State& e = engines_[(groups + start_) % S];
      if (head > 0) {
        dist(&e, tmp);
        std::copy(tmp, tmp + head, out.begin());
      }
      if (tail > 0) {
        dist(&e, tmp);
        std::copy(tmp, tmp + tail, out.end() - tail);
      }
    }
    start_ = (unsigned)((start_ + (n + w - 1) / w) % S);
    return out;
  }

 private:
  void init() {
    if (ready_) return;
    engines_.resize(S);
    start_ = (unsigned)(offset_ % S);
    for (unsigned e = 0; e < S; ++e)
      rocrand_init(seed_, e, offset_ / S + (e < start_ ? 1 : 0), &engines_[e]);
    ready_ = true;
  }

  bool mrg_;
  unsigned long long seed_ = 0, offset_ = 0;
  bool ready_ = false;
  unsigned start_ = 0;
  std::vector<State> engines_;
};

struct XorwowRef : EngineArray<rocrand_state_xorwow> {
  XorwowRef() : EngineArray(false) {}
};
struct Mrg32k3aRef : EngineArray<rocrand_state_mrg32k3a> {
  Mrg32k3aRef() : EngineArray(true) {}
};

// MRG32k3a's distributions read one engine value for a double (R6): only W_in differs, and
// EngineArray does not use W_in, so the same distribution objects serve.

// ---- Philox4x32-10: one engine, stream positions (R7, R8) ----------------------------------

class PhiloxRef {
 public:
  static constexpr unsigned long long STRIDE = 1024 * 256;

  void set_seed(unsigned long long seed) { seed_ = seed; ready_ = false; }
  void set_offset(unsigned long long offset) { offset_ = offset; ready_ = false; }

  template <class Dist>
  std::vector<typename Dist::T> generate(size_t n, uintptr_t addr, Dist dist = Dist()) {
    using T = typename Dist::T;
    if (!ready_) {
      rocrand_init(seed_, 0, offset_, &base_);
      pos_ = 0;
      ready_ = true;
    }
    const size_t win = Dist::in, wout = Dist::out, per = 4 / win, full = per * wout;
    const size_t mis = (full - addr / sizeof(T) % full) % full;
    const size_t head = std::min(n, mis), tail = (n - head) % full, vecs = (n - head) / full;
    const size_t head_groups = (head + wout - 1) / wout;
    std::vector<T> out(n);
    T tmp[Dist::out];
    // One distribution call at stream position q (relative to the engine of this launch).
    auto group_at = [&](unsigned long long q, T* o) {
      rocrand_state_philox4x32_10 s = base_;
      skipahead(pos_ + q, &s);
      dist(&s, o);
    };
    // Where thread t's vectors start (R8).
    auto base_of = [&](size_t t) -> unsigned long long { return t == 0 ? head_groups * win : 4 * t + head; };
    for (size_t g = 0; g < head_groups; ++g) {
      group_at(g * win, tmp);
      for (size_t o = 0; o < wout && g * wout + o < head; ++o) out[g * wout + o] = tmp[o];
    }
    for (size_t j = 0; j < vecs; ++j) {
      const size_t t = j % STRIDE;
      const unsigned long long p = base_of(t) + 4 * (unsigned long long)(j - t);
      for (size_t s = 0; s < per; ++s) group_at(p + s * win, &out[head + j * full + s * wout]);
    }
    if (tail > 0) {
      const size_t t = vecs % STRIDE;
      const unsigned long long p = base_of(t) + 4 * (unsigned long long)(vecs - t);
      for (size_t g = 0; g * wout < tail; ++g) {
        group_at(p + g * win, tmp);
        for (size_t o = 0; o < wout && g * wout + o < tail; ++o) out[n - tail + g * wout + o] = tmp[o];
      }
    }
    pos_ += (n + wout - 1) / wout * win;
    return out;
  }

 private:
  unsigned long long seed_ = 0, offset_ = 0, pos_ = 0;
  bool ready_ = false;
  rocrand_state_philox4x32_10 base_;
};

// ---- comparisons -------------------------------------------------------------------------

// Bitwise equality (uint32 and uniform outputs). Returns the number of mismatches and prints
// the first few.
template <class T>
inline size_t compare_exact(const char* what, const std::vector<T>& got, const std::vector<T>& ref) {
  size_t bad = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (memcmp(&got[i], &ref[i], sizeof(T)) != 0) {
      if (bad < 5)
        fprintf(stderr, "FAIL %s: [%zu] = %.17g, CPU reference %.17g\n", what, i, (double)got[i], (double)ref[i]);
      ++bad;
    }
  }
  if (bad) fprintf(stderr, "FAIL %s: %zu of %zu values differ\n", what, bad, ref.size());
  return bad;
}

// Normal outputs: the device computes Box-Muller with __sincosf / ocml logf, the host with
// libm, so values agree to a few ulps of the inputs, not bitwise. |got - ref| <= tol; a value
// from the wrong engine or position differs by O(1).
inline size_t compare_close(const char* what, const std::vector<float>& got, const std::vector<float>& ref, double tol,
                            double* max_err) {
  size_t bad = 0;
  double worst = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    double d = std::fabs((double)got[i] - (double)ref[i]);
    if (!(d <= tol)) {
      if (bad < 5) fprintf(stderr, "FAIL %s: [%zu] = %.9g, CPU reference %.9g\n", what, i, got[i], ref[i]);
      ++bad;
    }
    if (d > worst) worst = d;
  }
  if (bad) fprintf(stderr, "FAIL %s: %zu of %zu values differ by more than %g\n", what, bad, ref.size(), tol);
  *max_err = worst;
  return bad;
}

// ---- checks of the CPU engines against numbers that are not rocRAND's ----------------------

// Returns the number of failed checks; prints one line per check.
inline int self_test() {
  int bad = 0;
  auto report = [&](const char* what, bool ok) {
    printf("reference self-test: %s: %s\n", what, ok ? "ok" : "FAILED");
    if (!ok) ++bad;
  };
  // Philox4x32-10 known-answer vector from Random123 (examples/kat_vectors, "philox4x32 10",
  // counter 0, key 0): rocRAND's seed is the key and subsequence/offset the counter, so seed 0
  // starts with this block.
  {
    rocrand_state_philox4x32_10 s;
    rocrand_init(0, 0, 0, &s);
    unsigned v[4];
    for (unsigned& x : v) x = rocrand(&s);
    report("Philox4x32-10 Random123 known answer (counter 0, key 0)",
           v[0] == 0x6627e8d5u && v[1] == 0xe169c58du && v[2] == 0xbc57ac4cu && v[3] == 0x9b00dbd8u);
  }
  // Philox skipahead and offset against stepping.
  {
    rocrand_state_philox4x32_10 a, b;
    rocrand_init(42, 0, 0, &a);
    rocrand_init(42, 0, 1001, &b);
    for (int i = 0; i < 1001; ++i) rocrand(&a);
    bool ok = true;
    for (int i = 0; i < 16; ++i) ok &= rocrand(&a) == rocrand(&b);
    report("Philox4x32-10 offset 1001 = 1001 steps", ok);
  }
  // XORWOW: Marsaglia's xorwow recurrence written out here, from the seeded state of
  // rocrand_xorwow.h's constructor (x = 123456789, 362436069, 521288629, 88675123, 5783321,
  // d = 6615241, mixed with the seed), against engine (seed, 0, 0); and the jump tables
  // (offset 100000) against stepping.
  {
    const unsigned long long seed = 0x0123456789abcdefULL;
    unsigned x[5] = {123456789u, 362436069u, 521288629u, 88675123u, 5783321u}, d = 6615241u;
    const unsigned t0 = 1228688033u * ((unsigned)seed ^ 0x2c7f967fu);
    const unsigned t1 = 2073658381u * ((unsigned)(seed >> 32) ^ 0xa03697cbu);
    x[0] += t0; x[1] ^= t0; x[2] += t1; x[3] ^= t1; x[4] += t0; d += t1 + t0;
    rocrand_state_xorwow s;
    rocrand_init(seed, 0, 0, &s);
    bool ok = true;
    for (int i = 0; i < 1000; ++i) {
      unsigned t = x[0] ^ (x[0] >> 2);
      x[0] = x[1]; x[1] = x[2]; x[2] = x[3]; x[3] = x[4];
      x[4] = (x[4] ^ (x[4] << 4)) ^ (t ^ (t << 1));
      d += 362437u;
      ok &= rocrand(&s) == d + x[4];
    }
    report("XORWOW engine 0 = independent xorwow recurrence (1000 values)", ok);
    rocrand_state_xorwow a, b;
    rocrand_init(seed, 3, 0, &a);
    rocrand_init(seed, 3, 100000, &b);
    for (int i = 0; i < 100000; ++i) rocrand(&a);
    ok = true;
    for (int i = 0; i < 16; ++i) ok &= rocrand(&a) == rocrand(&b);
    report("XORWOW offset 100000 = 100000 steps (subsequence 3)", ok);
  }
  // MRG32k3a: L'Ecuyer's recurrence in 64-bit arithmetic, from the seeding of
  // rocrand_mrg32k3a.h (g1 = (x s, y s, x s) mod m1, g2 = (y s, x s, y s) mod m2 with
  // x = lo(s) ^ 0x55555555, y = hi(s) ^ 0xaaaaaaaa), against engine (seed, 0, 0) through
  // rocrand(), which maps the engine value v in [1, m1] to (v - 1) * (2^32 - 1) / (m1 - 1).
  // The seed is below 2^32: rocRAND's mod_mul_m1/m2 compute s * x mod m exactly only then
  // (for larger seeds its 64-bit intermediate products wrap).
  {
    const unsigned long long seed = 0x9e3779b9ULL;
    const uint64_t m1 = 4294967087ULL, m2 = 4294944443ULL;
    const uint64_t xs = (uint32_t)seed ^ 0x55555555u, ys = (uint32_t)((seed >> 32) ^ 0xaaaaaaaau);
    auto mulmod = [](uint64_t a, uint64_t b, uint64_t m) { return (uint64_t)((unsigned __int128)a * b % m); };
    int64_t g1[3] = {(int64_t)mulmod(xs, seed, m1), (int64_t)mulmod(ys, seed, m1), (int64_t)mulmod(xs, seed, m1)};
    int64_t g2[3] = {(int64_t)mulmod(ys, seed, m2), (int64_t)mulmod(xs, seed, m2), (int64_t)mulmod(ys, seed, m2)};
    rocrand_state_mrg32k3a s;
    rocrand_init(seed, 0, 0, &s);
    bool ok = true;
    for (int i = 0; i < 1000; ++i) {
      int64_t p1 = (1403580 * g1[1] - 810728 * g1[0]) % (int64_t)m1;
      if (p1 < 0) p1 += m1;
      g1[0] = g1[1]; g1[1] = g1[2]; g1[2] = p1;
      int64_t p2 = (527612 * g2[2] - 1370589 * g2[0]) % (int64_t)m2;
      if (p2 < 0) p2 += m2;
      g2[0] = g2[1]; g2[1] = g2[2]; g2[2] = p2;
      uint64_t v = p1 > p2 ? p1 - p2 : p1 - p2 + m1;  // in [1, m1]
      // ROCRAND_MRG32K3A_UINT_NORM's value, (2^32 - 1) / (m1 - 1) rounded as rocRAND writes it
      unsigned want = (unsigned)((double)(v - 1) * 1.000000048661607);
      unsigned got = rocrand(&s);
      ok &= got == want;
    }
    report("MRG32k3a engine 0 = independent MRG32k3a recurrence (1000 values)", ok);
    rocrand_state_mrg32k3a a, b;
    rocrand_init(seed, 5, 0, &a);
    rocrand_init(seed, 5, 100000, &b);
    for (int i = 0; i < 100000; ++i) rocrand(&a);
    ok = true;
    for (int i = 0; i < 16; ++i) ok &= rocrand(&a) == rocrand(&b);
    report("MRG32k3a offset 100000 = 100000 steps (subsequence 5)", ok);
  }
  return bad;
}

}  // namespace randref
