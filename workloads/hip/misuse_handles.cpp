// misuse_handles.cpp -- handles used after they were destroyed, with the codes ROCm's runtime
// returns (clr hipamd/src: hip_stream.cpp, hip_event.cpp, hip_memory.cpp, hip_platform.cpp,
// hip_module.cpp, hip_graph.cpp, hip_texture.cpp):
//  * streams: destroying, synchronising or querying a destroyed stream, and recording an
//    event or copying on it, is hipErrorContextIsDestroyed; launching on it is
//    hipErrorInvalidValue; waiting on it for an event is hipErrorInvalidHandle; destroying the
//    null stream is hipErrorInvalidHandle;
//  * events: destroying one twice is hipErrorContextIsDestroyed, a null one
//    hipErrorInvalidHandle; an event never recorded synchronises and queries as complete and
//    cannot be timed (hipErrorInvalidHandle);
//  * modules: unloading one twice, and looking a kernel or variable up in an unloaded one, is
//    hipErrorNotFound;
//  * graphs: destroying one twice is hipErrorIllegalState, a null one hipErrorInvalidValue;
//    launching a destroyed executable graph is hipErrorInvalidValue;
//  * textures: on a GPU with image support destroying one twice, or asking for its resource
//    description after destroy, is hipErrorInvalidValue (its memory was freed); gfx94x and
//    gfx950 have none and answer hipErrorNotSupported.
// Where ROCm's runtime uses the freed object without checking (recording a destroyed event,
// launching a function of an unloaded module), hipscope's answer is checked: the code ROCm
// gives for a null handle in the same call. module_kernel.co is read from beside the
// executable, or argv[1]. Prints "PASS misuse_handles" when every check holds.
#include "hip_check.h"
#include <cstring>
#include <string>

__global__ void inc(int* p) { p[threadIdx.x] += 1; }

static void callback(hipStream_t, hipError_t, void*) {}

static void streams_and_events(int* d) {
  hipStream_t s;
  HIP_CHECK(hipStreamCreate(&s));
  HIP_CHECK(hipStreamDestroy(s));
  hipEvent_t e;
  HIP_CHECK(hipEventCreate(&e));
  int host[64] = {0};
  const hipError_t gone = hipErrorContextIsDestroyed;
  expect("hipStreamDestroy twice", hipStreamDestroy(s), gone);
  expect("hipStreamDestroy of the null stream", hipStreamDestroy(nullptr), hipErrorInvalidHandle);
  expect("hipStreamSynchronize of a destroyed stream", hipStreamSynchronize(s), gone);
  expect("hipStreamQuery of a destroyed stream", hipStreamQuery(s), gone);
  expect("hipMemcpyAsync on a destroyed stream", hipMemcpyAsync(d, host, sizeof host, hipMemcpyHostToDevice, s), gone);
  expect("hipEventRecord on a destroyed stream", hipEventRecord(e, s), gone);
  expect("hipStreamAddCallback on a destroyed stream", hipStreamAddCallback(s, callback, nullptr, 0), gone);
  expect("hipStreamWaitEvent of a destroyed stream", hipStreamWaitEvent(s, e, 0), hipErrorInvalidHandle);
  void* args[] = {&d};
  expect("hipLaunchKernel on a destroyed stream", hipLaunchKernel((const void*)inc, dim3(1), dim3(64), args, 0, s),
         hipErrorInvalidValue);

  // An event never recorded is complete, and has no time.
  hipEvent_t never;
  HIP_CHECK(hipEventCreate(&never));
  expect("hipEventSynchronize of an event never recorded", hipEventSynchronize(never), hipSuccess);
  expect("hipEventQuery of an event never recorded", hipEventQuery(never), hipSuccess);
  float ms = 0;
  expect("hipEventElapsedTime of events never recorded", hipEventElapsedTime(&ms, never, e), hipErrorInvalidHandle);
  expect("hipEventElapsedTime into a null pointer", hipEventElapsedTime(nullptr, never, e), hipErrorInvalidValue);
  expect("hipStreamWaitEvent for an event never recorded", hipStreamWaitEvent(0, never, 0), hipSuccess);
  HIP_CHECK(hipEventDestroy(e));
  expect("hipEventDestroy twice", hipEventDestroy(e), gone);
  expect("hipEventDestroy of a null event", hipEventDestroy(nullptr), hipErrorInvalidHandle);
  expect("hipEventRecord of a null event", hipEventRecord(nullptr, 0), hipErrorInvalidHandle);
  // (ROCm uses the freed event here; hipscope answers as for a null one.)
  expect("hipEventRecord of a destroyed event", hipEventRecord(e, 0), hipErrorInvalidHandle);
  HIP_CHECK(hipEventDestroy(never));
}

static void modules(const std::string& path, int* d) {
  hipModule_t m;
  HIP_CHECK(hipModuleLoad(&m, path.c_str()));
  hipFunction_t f;
  HIP_CHECK(hipModuleGetFunction(&f, m, "axpb"));
  HIP_CHECK(hipModuleUnload(m));
  expect("hipModuleUnload twice", hipModuleUnload(m), hipErrorNotFound);
  expect("hipModuleUnload of a null module", hipModuleUnload(nullptr), hipErrorInvalidResourceHandle);
  expect("hipModuleGetFunction in an unloaded module", hipModuleGetFunction(&f, m, "axpb"), hipErrorNotFound);
  hipDeviceptr_t p;
  size_t bytes;
  expect("hipModuleGetGlobal in an unloaded module", hipModuleGetGlobal(&p, &bytes, m, "bias"), hipErrorNotFound);
  float a = 1.0f;
  int n = 16;
  void* params[] = {&d, &d, &a, &n};
  // (ROCm frees the function with its module; hipscope answers as for an unknown function.)
  expect("hipModuleLaunchKernel of a function of an unloaded module", hipModuleLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, 0, params, nullptr),
         hipErrorInvalidResourceHandle);
}

static void graphs(int* d) {
  hipGraph_t g;
  HIP_CHECK(hipGraphCreate(&g, 0));
  hipGraphNode_t node;
  hipKernelNodeParams k = {};
  void* args[] = {&d};
  k.func = (void*)inc;
  k.gridDim = dim3(1);
  k.blockDim = dim3(64);
  k.kernelParams = args;
  HIP_CHECK(hipGraphAddKernelNode(&node, g, nullptr, 0, &k));
  hipGraphExec_t x;
  HIP_CHECK(hipGraphInstantiate(&x, g, nullptr, nullptr, 0));
  HIP_CHECK(hipGraphLaunch(x, 0));
  HIP_CHECK(hipGraphExecDestroy(x));
  expect("hipGraphLaunch of a destroyed executable graph", hipGraphLaunch(x, 0), hipErrorInvalidValue);
  HIP_CHECK(hipGraphDestroy(g));
  expect("hipGraphDestroy twice", hipGraphDestroy(g), hipErrorIllegalState);
  expect("hipGraphDestroy of a null graph", hipGraphDestroy(nullptr), hipErrorInvalidValue);
  hipGraph_t clone;
  expect("hipGraphClone of a destroyed graph", hipGraphClone(&clone, g), hipErrorInvalidValue);
  // A kernel node whose block ROCm refuses.
  hipGraph_t g2;
  HIP_CHECK(hipGraphCreate(&g2, 0));
  k.blockDim = dim3(2048);
  expect("hipGraphAddKernelNode with a block of 2048", hipGraphAddKernelNode(&node, g2, nullptr, 0, &k), hipErrorInvalidValue);
  HIP_CHECK(hipGraphDestroy(g2));
}

static void textures(int* d) {
  hipDeviceProp_t prop;
  HIP_CHECK(hipGetDeviceProperties(&prop, 0));
  bool images = strncmp(prop.gcnArchName, "gfx94", 5) != 0 && strncmp(prop.gcnArchName, "gfx95", 5) != 0;
  hipResourceDesc r = {};
  r.resType = hipResourceTypeLinear;
  r.res.linear.devPtr = d;
  r.res.linear.desc = hipCreateChannelDesc<int>();
  r.res.linear.sizeInBytes = 64 * sizeof(int);
  hipTextureDesc td = {};
  hipTextureObject_t t = 0;
  if (!images) {
    expect("hipCreateTextureObject without image support", hipCreateTextureObject(&t, &r, &td, nullptr), hipErrorNotSupported);
    expect("hipDestroyTextureObject without image support", hipDestroyTextureObject((hipTextureObject_t)0x1000), hipErrorNotSupported);
    return;
  }
  HIP_CHECK(hipCreateTextureObject(&t, &r, &td, nullptr));
  HIP_CHECK(hipDestroyTextureObject(t));
  expect("hipDestroyTextureObject twice", hipDestroyTextureObject(t), hipErrorInvalidValue);
  // (ROCm reads the freed object here; hipscope answers as ROCm does for a null one.)
  hipResourceDesc back = {};
  expect("hipGetTextureObjectResourceDesc of a destroyed object", hipGetTextureObjectResourceDesc(&back, t), hipErrorInvalidValue);
  expect("hipDestroyTextureObject of a null object", hipDestroyTextureObject(0), hipSuccess);
}

int main(int argc, char** argv) {
  std::string path = argc > 1 ? argv[1] : std::string(argv[0]).substr(0, std::string(argv[0]).rfind('/') + 1) + "module_kernel.co";
  int* d = nullptr;
  HIP_CHECK(hipMalloc(&d, 64 * sizeof(int)));
  HIP_CHECK(hipMemset(d, 0, 64 * sizeof(int)));
  streams_and_events(d);
  modules(path, d);
  graphs(d);
  textures(d);
  // The one graph launch above incremented every element once; the runtime still works.
  (void)hipGetLastError();
  inc<<<1, 64>>>(d);
  HIP_CHECK_LAUNCH();
  int got[64];
  HIP_CHECK(hipMemcpy(got, d, sizeof got, hipMemcpyDeviceToHost));
  for (int i = 0; i < 64; i++)
    if (got[i] != 2) FAIL("inc: d[%d] = %d, expected 2", i, got[i]);
  HIP_CHECK(hipFree(d));
  if (expect_failures) {
    fprintf(stderr, "FAIL misuse_handles: %d check(s)\n", expect_failures);
    return 1;
  }
  printf("PASS misuse_handles\n");
  return 0;
}
