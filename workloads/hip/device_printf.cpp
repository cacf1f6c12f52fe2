// device_printf -- printf from device code, checked by the program itself.
//
// talk (2 blocks of 64 threads) prints one line from each thread whose threadIdx.x % 16 == 3
// (8 lines, with %d, %u, %.2f of a float, %x and %s); say_once (1 thread, a second launch)
// prints one line with %c and %lld. The program points its stdout (file descriptor 1) at a
// temporary file around the two launches and hipDeviceSynchronize, as device printf output is
// the runtime's to deliver by then, and compares what arrived with the lines the CPU formats
// with the same format strings: the first launch's 8 lines in any order (threads print
// concurrently), then the second launch's line, nothing else. It then prints the captured text
// on its real stdout, so a test can check the exact lines too, and PASS.
#include "hip_check.h"
#include <algorithm>
#include <string>
#include <unistd.h>
#include <vector>

__global__ void talk(int base) {
  unsigned t = threadIdx.x;
  if (t % 16 == 3) {
    int v = base + (int)(blockIdx.x * blockDim.x + t);
    printf("block %d thread %u: %d squared is %u, half is %.2f, hex %x %s\n", (int)blockIdx.x, t, v,
           (unsigned)(v * v), (float)v / 2.0f, (unsigned)v, "ok");
  }
}

__global__ void say_once(char a, char b, long long big) { printf("second launch %c%c %lld\n", a, b, big); }

int main() {
  const int base = 10;
  const long long big = -1234567890123LL;
  std::vector<std::string> first;
  for (int blk = 0; blk < 2; blk++)
    for (unsigned t = 0; t < 64; t++)
      if (t % 16 == 3) {
        int v = base + blk * 64 + (int)t;
        char line[160];
        snprintf(line, sizeof(line), "block %d thread %u: %d squared is %u, half is %.2f, hex %x %s", blk, t, v,
                 (unsigned)(v * v), (double)((float)v / 2.0f), (unsigned)v, "ok");
        first.push_back(line);
      }
  char last[80];
  snprintf(last, sizeof(last), "second launch %c%c %lld", 'o', 'k', big);

  // Capture file descriptor 1 while the kernels run.
  fflush(stdout);
  FILE *cap = tmpfile();
  if (!cap) FAIL("tmpfile failed");
  int saved = dup(1);
  if (saved < 0 || dup2(fileno(cap), 1) < 0) FAIL("cannot redirect stdout");
  talk<<<2, 64>>>(base);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  say_once<<<1, 1>>>('o', 'k', big);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  fflush(stdout);
  if (dup2(saved, 1) < 0) FAIL("cannot restore stdout");
  close(saved);

  std::string text;
  rewind(cap);
  char buf[4096];
  size_t got;
  while ((got = fread(buf, 1, sizeof(buf), cap)) > 0) text.append(buf, got);
  fclose(cap);
  fputs(text.c_str(), stdout);

  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) FAIL("device printf output ends without a newline: \"%s\"", text.c_str() + pos);
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  if (lines.size() != first.size() + 1)
    FAIL("device printf gave %zu lines, expected %zu", lines.size(), first.size() + 1);
  std::vector<std::string> got_first(lines.begin(), lines.end() - 1);
  std::sort(got_first.begin(), got_first.end());
  std::sort(first.begin(), first.end());
  for (size_t i = 0; i < first.size(); i++)
    if (got_first[i] != first[i]) FAIL("first launch line \"%s\", expected \"%s\"", got_first[i].c_str(), first[i].c_str());
  if (lines.back() != last) FAIL("second launch line \"%s\", expected \"%s\"", lines.back().c_str(), last);
  printf("PASS device_printf\n");
  return 0;
}
