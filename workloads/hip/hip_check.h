// hip_check.h -- shared by the HIP test programs in this directory.
// HIP_CHECK wraps every runtime call: a call that does not return hipSuccess prints where, what
// and the runtime's error string, and exits 1, so a missing or wrong runtime feature can never
// pass silently. FAIL reports a result that differs from the CPU reference and exits 1.
#pragma once
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>

#define HIP_CHECK(call)                                                                  \
  do {                                                                                   \
    hipError_t err_ = (call);                                                            \
    if (err_ != hipSuccess) {                                                            \
      fprintf(stderr, "FAIL %s:%d: %s returned %d (%s)\n", __FILE__, __LINE__, #call,  \
              (int)err_, hipGetErrorString(err_));                                       \
      exit(1);                                                                           \
    }                                                                                    \
  } while (0)

// After a <<<>>> launch: the launch itself reports errors only through hipGetLastError.
#define HIP_CHECK_LAUNCH() HIP_CHECK(hipGetLastError())

#define FAIL(...)                                                                        \
  do {                                                                                   \
    fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                 \
    fprintf(stderr, __VA_ARGS__);                                                        \
    fprintf(stderr, "\n");                                                               \
    exit(1);                                                                             \
  } while (0)

// Checks of calls that must fail: EXPECT_ERROR-style, counting the mismatches in
// expect_failures (a program reports them at its end) and printing one line per check.
inline int expect_failures = 0;

inline void expect(const char* what, hipError_t got, hipError_t want) {
  if (got != want) {
    fprintf(stderr, "FAIL %s: returned %d (%s), expected %d (%s)\n", what, (int)got,
            hipGetErrorName(got), (int)want, hipGetErrorName(want));
    expect_failures++;
  } else {
    printf("ok %s -> %s\n", what, hipGetErrorName(got));
  }
}
