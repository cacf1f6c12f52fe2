// graphs -- HIP graphs, captured from a stream and built node by node.
//
// 1. Capture: on stream s, between hipStreamBeginCapture and hipStreamEndCapture, a host ->
//    device copy of `in`, kernel scale (b = a * factor + 1), a memset of c to 0, kernel accum
//    (c += b, twice), a device -> host copy of c into `out` and a host function that checks
//    `out` when it runs and counts its calls. While capturing nothing may run: hipStreamIsCapturing
//    says active, and afterwards the host function has not been called, `out` is untouched and
//    the device buffer a still holds the pattern set before the capture. The captured graph has
//    those 7 nodes (hipGraphGetNodes) of the expected types. The graph is instantiated and
//    launched 3 times, with new contents of `in` each time (a copy node reads its host source
//    when it runs) and `factor` changed after the capture (a kernel node keeps the arguments
//    it was captured with): each launch's `out` must be (in * 3 + 1) * 2, and the host
//    function must have run once per launch, after the copy.
// 2. A graph built with hipGraphAdd*Node: memset x = 5 (4-byte elements) -> kernel inc (x += 1)
//    and kernel dbl (y = x * 2) in parallel branches on separate buffers... joined by kernel
//    combine (z = x + y), then a 1D copy of z to the host and a host node. The nodes are added in
//    an order that is not a topological one (combine before dbl, its edge from dbl added later
//    with hipGraphAddDependencies), and the kernel arguments are locals overwritten after the
//    nodes are added. Launched twice; then hipGraphExecKernelNodeSetParams changes inc's
//    increment and a third launch must show it.
// 3. A fork/join capture over two streams: s records an event, s2 waits for it (joining the
//    capture), captures a kernel, records an event that s waits for, and s ends the capture.
//    The graph's launch result is checked; ending a capture that a second stream never joined
//    back is hipErrorStreamCaptureUnjoined.
// 4. A captured hipMemcpyToSymbolAsync: the variable is untouched by the capture, and each
//    launch copies the host buffer's contents at that time into it before the kernel reads it.
#include "hip_check.h"
#include <vector>

extern "C" hipError_t hipLaunchHostFunc(hipStream_t stream, hipHostFn_t fn, void *userData) __attribute__((weak));

__global__ void scale(const int *a, int *b, int factor, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = a[i] * factor + 1;
}

__global__ void accum(const int *b, int *c, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] += b[i];
}

__global__ void inc(int *x, int by, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += by + (int)i;
}

__global__ void dbl(const int *src, int *y, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = src[i] * 2;
}

__global__ void combine(const int *x, const int *y, int *z, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] + y[i];
}

__device__ int table[64];

__global__ void from_table(int *out) { out[threadIdx.x] = table[threadIdx.x] * 3 + 1; }

static const unsigned N = 1500;

struct HostCheck {
  const int *out;
  const int *in;
  int calls;
  int bad;
};

static void check_out(void *p) {
  HostCheck *h = (HostCheck *)p;
  h->calls++;
  for (unsigned i = 0; i < N; i++)
    if (h->out[i] != (h->in[i] * 3 + 1) * 2) {
      fprintf(stderr, "FAIL host node (call %d): out[%u] = %d, expected %d\n", h->calls, i, h->out[i], (h->in[i] * 3 + 1) * 2);
      h->bad++;
      return;
    }
}

static void count_call(void *p) { (*(int *)p)++; }

int main() {
  if (!hipLaunchHostFunc) FAIL("the HIP runtime does not define hipLaunchHostFunc");
  const unsigned blocks = (N + 255) / 256;
  const size_t bytes = N * sizeof(int);
  std::vector<int> in(N), out(N, -7);
  int *da, *db, *dc;
  HIP_CHECK(hipMalloc(&da, bytes));
  HIP_CHECK(hipMalloc(&db, bytes));
  HIP_CHECK(hipMalloc(&dc, bytes));
  HIP_CHECK(hipMemset(da, 0x11, bytes));
  hipStream_t s, s2;
  HIP_CHECK(hipStreamCreate(&s));
  HIP_CHECK(hipStreamCreate(&s2));

  // 1. Capture.
  HostCheck hc = {out.data(), in.data(), 0, 0};
  int factor = 3;
  HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  hipStreamCaptureStatus status = hipStreamCaptureStatusNone;
  HIP_CHECK(hipStreamIsCapturing(s, &status));
  if (status != hipStreamCaptureStatusActive) FAIL("hipStreamIsCapturing during capture: %d", (int)status);
  HIP_CHECK(hipMemcpyAsync(da, in.data(), bytes, hipMemcpyHostToDevice, s));
  scale<<<blocks, 256, 0, s>>>(da, db, factor, N);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipMemsetAsync(dc, 0, bytes, s));
  accum<<<blocks, 256, 0, s>>>(db, dc, N);
  HIP_CHECK_LAUNCH();
  accum<<<blocks, 256, 0, s>>>(db, dc, N);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipMemcpyAsync(out.data(), dc, bytes, hipMemcpyDeviceToHost, s));
  HIP_CHECK(hipLaunchHostFunc(s, check_out, &hc));
  hipGraph_t graph;
  HIP_CHECK(hipStreamEndCapture(s, &graph));
  factor = 100;
  HIP_CHECK(hipStreamIsCapturing(s, &status));
  if (status != hipStreamCaptureStatusNone) FAIL("hipStreamIsCapturing after capture: %d", (int)status);
  if (hc.calls != 0) FAIL("the host function ran during capture");
  for (unsigned i = 0; i < N; i++)
    if (out[i] != -7) FAIL("out[%u] changed during capture", i);
  std::vector<int> a_now(N);
  HIP_CHECK(hipMemcpy(a_now.data(), da, bytes, hipMemcpyDeviceToHost));
  for (unsigned i = 0; i < N; i++)
    if (a_now[i] != 0x11111111) FAIL("a[%u] = %#x: the captured copy ran", i, a_now[i]);
  size_t count = 0;
  HIP_CHECK(hipGraphGetNodes(graph, nullptr, &count));
  if (count != 7) FAIL("captured graph has %zu nodes, expected 7", count);
  std::vector<hipGraphNode_t> nodes(count);
  HIP_CHECK(hipGraphGetNodes(graph, nodes.data(), &count));
  const hipGraphNodeType want_types[7] = {hipGraphNodeTypeMemcpy, hipGraphNodeTypeKernel, hipGraphNodeTypeMemset, hipGraphNodeTypeKernel,
                                          hipGraphNodeTypeKernel, hipGraphNodeTypeMemcpy, hipGraphNodeTypeHost};
  for (size_t k = 0; k < count; k++) {
    hipGraphNodeType t;
    HIP_CHECK(hipGraphNodeGetType(nodes[k], &t));
    if (t != want_types[k]) FAIL("captured node %zu has type %d, expected %d", k, (int)t, (int)want_types[k]);
  }
  hipGraphExec_t exec;
  HIP_CHECK(hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0));
  for (int launch = 0; launch < 3; launch++) {
    for (unsigned i = 0; i < N; i++) in[i] = (int)((i * 13 + launch * 7) % 251) - 100;
    HIP_CHECK(hipGraphLaunch(exec, s));
    HIP_CHECK(hipStreamSynchronize(s));
    for (unsigned i = 0; i < N; i++)
      if (out[i] != (in[i] * 3 + 1) * 2) FAIL("launch %d: out[%u] = %d, expected %d", launch, i, out[i], (in[i] * 3 + 1) * 2);
    if (hc.calls != launch + 1) FAIL("launch %d: the host node ran %d times", launch, hc.calls);
  }
  if (hc.bad) FAIL("the host node saw wrong data");
  HIP_CHECK(hipGraphExecDestroy(exec));
  HIP_CHECK(hipGraphDestroy(graph));

  // 2. A graph built node by node.
  int *dx, *dy, *dz;
  HIP_CHECK(hipMalloc(&dx, bytes));
  HIP_CHECK(hipMalloc(&dy, bytes));
  HIP_CHECK(hipMalloc(&dz, bytes));
  hipGraph_t g;
  HIP_CHECK(hipGraphCreate(&g, 0));
  hipMemsetParams ms = {};
  ms.dst = dx;
  ms.elementSize = 4;
  ms.width = N;
  ms.height = 1;
  ms.value = 5;
  hipGraphNode_t n_set, n_inc, n_dbl, n_comb, n_copy, n_host, n_join;
  HIP_CHECK(hipGraphAddMemsetNode(&n_set, g, nullptr, 0, &ms));
  int by = 1;
  unsigned n = N;
  int *arg_x = dx, *arg_y = dy, *arg_z = dz;
  void *inc_args[] = {&arg_x, &by, &n};
  hipKernelNodeParams kp = {};
  kp.func = (void *)inc;
  kp.gridDim = dim3(blocks);
  kp.blockDim = dim3(256);
  kp.kernelParams = inc_args;
  HIP_CHECK(hipGraphAddKernelNode(&n_inc, g, &n_set, 1, &kp));
  // combine before dbl: its edge from dbl comes later.
  void *comb_args[] = {&arg_x, &arg_y, &arg_z, &n};
  kp.func = (void *)combine;
  kp.kernelParams = comb_args;
  HIP_CHECK(hipGraphAddKernelNode(&n_comb, g, &n_inc, 1, &kp));
  void *dbl_args[] = {&arg_x, &arg_y, &n};
  kp.func = (void *)dbl;
  kp.kernelParams = dbl_args;
  HIP_CHECK(hipGraphAddKernelNode(&n_dbl, g, &n_inc, 1, &kp));
  HIP_CHECK(hipGraphAddDependencies(g, &n_dbl, &n_comb, 1));
  // The argument values the nodes hold were copied: overwriting the locals changes nothing.
  arg_x = arg_y = arg_z = nullptr;
  by = 1000;
  n = 0;
  std::vector<int> z(N, -1);
  HIP_CHECK(hipGraphAddMemcpyNode1D(&n_copy, g, &n_comb, 1, z.data(), dz, bytes, hipMemcpyDeviceToHost));
  int host_calls = 0;
  hipHostNodeParams hp = {count_call, &host_calls};
  HIP_CHECK(hipGraphAddHostNode(&n_host, g, &n_copy, 1, &hp));
  hipGraphNode_t ends[2] = {n_host, n_dbl};
  HIP_CHECK(hipGraphAddEmptyNode(&n_join, g, ends, 2));
  size_t edges = 0;
  HIP_CHECK(hipGraphGetEdges(g, nullptr, nullptr, &edges));
  if (edges != 8) FAIL("built graph has %zu edges, expected 8", edges);
  hipGraphExec_t gx;
  HIP_CHECK(hipGraphInstantiateWithFlags(&gx, g, 0));
  for (int launch = 0; launch < 3; launch++) {
    int step = launch < 2 ? 1 : 40;
    if (launch == 2) {
      int new_by = 40;
      unsigned nn = N;
      int *px = dx;
      void *args2[] = {&px, &new_by, &nn};
      hipKernelNodeParams kp2 = {};
      kp2.func = (void *)inc;
      kp2.gridDim = dim3(blocks);
      kp2.blockDim = dim3(256);
      kp2.kernelParams = args2;
      HIP_CHECK(hipGraphExecKernelNodeSetParams(gx, n_inc, &kp2));
    }
    std::fill(z.begin(), z.end(), -1);
    HIP_CHECK(hipGraphLaunch(gx, s));
    HIP_CHECK(hipStreamSynchronize(s));
    for (unsigned i = 0; i < N; i++) {
      int x = 5 + step + (int)i;
      if (z[i] != x + 2 * x) FAIL("built graph launch %d: z[%u] = %d, expected %d", launch, i, z[i], 3 * x);
    }
    if (host_calls != launch + 1) FAIL("built graph launch %d: host node ran %d times", launch, host_calls);
  }
  HIP_CHECK(hipGraphExecDestroy(gx));
  HIP_CHECK(hipGraphDestroy(g));

  // 3. Fork/join capture over two streams.
  hipEvent_t fork, join;
  HIP_CHECK(hipEventCreate(&fork));
  HIP_CHECK(hipEventCreate(&join));
  HIP_CHECK(hipMemset(dx, 0, bytes));
  HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  HIP_CHECK(hipMemsetAsync(dy, 0, bytes, s));
  HIP_CHECK(hipEventRecord(fork, s));
  HIP_CHECK(hipStreamWaitEvent(s2, fork, 0));
  HIP_CHECK(hipStreamIsCapturing(s2, &status));
  if (status != hipStreamCaptureStatusActive) FAIL("s2 did not join the capture");
  inc<<<blocks, 256, 0, s2>>>(dx, 3, N);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipEventRecord(join, s2));
  inc<<<blocks, 256, 0, s>>>(dy, 7, N);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipStreamWaitEvent(s, join, 0));
  combine<<<blocks, 256, 0, s>>>(dx, dy, dz, N);
  HIP_CHECK_LAUNCH();
  hipGraph_t fj;
  HIP_CHECK(hipStreamEndCapture(s, &fj));
  HIP_CHECK(hipStreamIsCapturing(s2, &status));
  if (status != hipStreamCaptureStatusNone) FAIL("s2 still captures after the end of the capture");
  HIP_CHECK(hipGraphGetNodes(fj, nullptr, &count));
  if (count != 4) FAIL("fork/join graph has %zu nodes, expected 4", count);
  hipGraphExec_t fjx;
  HIP_CHECK(hipGraphInstantiate(&fjx, fj, nullptr, nullptr, 0));
  HIP_CHECK(hipGraphLaunch(fjx, s));
  HIP_CHECK(hipMemcpyAsync(z.data(), dz, bytes, hipMemcpyDeviceToHost, s));
  HIP_CHECK(hipStreamSynchronize(s));
  for (unsigned i = 0; i < N; i++) {
    int want = (3 + (int)i) + (7 + (int)i);
    if (z[i] != want) FAIL("fork/join graph: z[%u] = %d, expected %d", i, z[i], want);
  }
  // A fork never joined back.
  HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  HIP_CHECK(hipEventRecord(fork, s));
  HIP_CHECK(hipStreamWaitEvent(s2, fork, 0));
  inc<<<blocks, 256, 0, s2>>>(dx, 3, N);
  HIP_CHECK_LAUNCH();
  hipGraph_t broken = nullptr;
  expect("hipStreamEndCapture with an unjoined fork", hipStreamEndCapture(s, &broken), hipErrorStreamCaptureUnjoined);
  expect("hipStreamEndCapture on a stream not capturing", hipStreamEndCapture(s, &broken), hipErrorIllegalState);
  if (expect_failures) FAIL("%d error check(s) failed", expect_failures);
  // Handled: clear it (from ROCm 7.0 on the last error stays until hipGetLastError reads it).
  (void)hipGetLastError();

  // 4. A symbol copy in a capture.
  std::vector<int> hs(64), ho(64), before(64, -1);
  HIP_CHECK(hipStreamBeginCapture(s, hipStreamCaptureModeGlobal));
  HIP_CHECK(hipMemcpyToSymbolAsync(HIP_SYMBOL(table), hs.data(), 64 * sizeof(int), 0, hipMemcpyHostToDevice, s));
  from_table<<<1, 64, 0, s>>>(dz);
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipMemcpyAsync(ho.data(), dz, 64 * sizeof(int), hipMemcpyDeviceToHost, s));
  hipGraph_t gs;
  HIP_CHECK(hipStreamEndCapture(s, &gs));
  HIP_CHECK(hipMemcpyFromSymbol(before.data(), HIP_SYMBOL(table), 64 * sizeof(int), 0, hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    if (before[i] != 0) FAIL("table[%d] = %d after the capture: the captured symbol copy ran", i, before[i]);
  hipGraphExec_t gsx;
  HIP_CHECK(hipGraphInstantiate(&gsx, gs, nullptr, nullptr, 0));
  for (int launch = 0; launch < 2; launch++) {
    for (int i = 0; i < 64; i++) hs[i] = i * (launch + 2) - 17;
    HIP_CHECK(hipGraphLaunch(gsx, s));
    HIP_CHECK(hipStreamSynchronize(s));
    for (int i = 0; i < 64; i++)
      if (ho[i] != hs[i] * 3 + 1) FAIL("symbol graph launch %d: out[%d] = %d, expected %d", launch, i, ho[i], hs[i] * 3 + 1);
  }
  HIP_CHECK(hipGraphExecDestroy(gsx));
  HIP_CHECK(hipGraphDestroy(gs));

  HIP_CHECK(hipGraphExecDestroy(fjx));
  HIP_CHECK(hipGraphDestroy(fj));
  HIP_CHECK(hipEventDestroy(fork));
  HIP_CHECK(hipEventDestroy(join));
  for (int *p : {da, db, dc, dx, dy, dz}) HIP_CHECK(hipFree(p));
  HIP_CHECK(hipStreamDestroy(s));
  HIP_CHECK(hipStreamDestroy(s2));
  printf("PASS graphs\n");
  return 0;
}
