// module_launch.cpp -- the module API: a program with no device code of its own loads
// module_kernel.co (beside the executable, or argv[1]) with hipModuleLoad, finds a kernel and
// a variable by name, and launches it with kernelParams and with a packed `extra` buffer.
// Misuses return their error codes: an unknown kernel name, a packed buffer too short for
// the kernel's arguments, an unknown function handle. Results are checked on the CPU.
#include "hip_check.h"
#include <string>


static bool check(const char* what, const float* y, const float* x, float a, float b, int n) {
  for (int i = 0; i < n; i++)
    if (y[i] != a * x[i] + b) {
      fprintf(stderr, "FAIL %s: y[%d] = %g, expected %g\n", what, i, y[i], a * x[i] + b);
      return false;
    }
  return true;
}

int main(int argc, char** argv) {
  std::string path = argc > 1 ? argv[1] : std::string(argv[0]).substr(0, std::string(argv[0]).rfind('/') + 1) + "module_kernel.co";
  hipModule_t module;
  HIP_CHECK(hipModuleLoad(&module, path.c_str()));
  hipFunction_t f;
  HIP_CHECK(hipModuleGetFunction(&f, module, "axpb"));
  expect("hipModuleGetFunction of an unknown name", hipModuleGetFunction(&f, module, "no_such_kernel"), hipErrorNotFound);
  HIP_CHECK(hipModuleGetFunction(&f, module, "axpb"));

  hipDeviceptr_t bias_ptr;
  size_t bias_bytes = 0;
  HIP_CHECK(hipModuleGetGlobal(&bias_ptr, &bias_bytes, module, "bias"));
  if (bias_bytes != sizeof(float)) FAIL("bias is %zu bytes", bias_bytes);
  float bias = 0;
  HIP_CHECK(hipMemcpy(&bias, bias_ptr, sizeof bias, hipMemcpyDeviceToHost));
  if (bias != 0.5f) FAIL("bias reads %g, initialised to 0.5", bias);

  const int n = 1000;
  float x[n], y[n];
  for (int i = 0; i < n; i++) x[i] = (float)(i % 17) - 3.0f;
  float *dx, *dy;
  HIP_CHECK(hipMalloc(&dx, sizeof x));
  HIP_CHECK(hipMalloc(&dy, sizeof y));
  HIP_CHECK(hipMemcpy(dx, x, sizeof x, hipMemcpyHostToDevice));

  float a = 2.0f;
  int count = n;
  void* params[] = {&dy, &dx, &a, &count};
  HIP_CHECK(hipModuleLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, 0, params, nullptr));
  HIP_CHECK(hipMemcpy(y, dy, sizeof y, hipMemcpyDeviceToHost));
  if (!check("kernelParams launch", y, x, a, 0.5f, n)) expect_failures++;

  // The same kernel with its arguments packed as the kernarg segment lays them out, after
  // changing the variable through its device address.
  float new_bias = -1.0f;
  HIP_CHECK(hipMemcpy(bias_ptr, &new_bias, sizeof new_bias, hipMemcpyHostToDevice));
  struct {
    float* y;
    const float* x;
    float a;
    int n;
  } packed = {dy, dx, 3.0f, n};
  size_t size = sizeof packed;
  void* extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size, HIP_LAUNCH_PARAM_END};
  HIP_CHECK(hipModuleLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, 0, nullptr, extra));
  HIP_CHECK(hipMemcpy(y, dy, sizeof y, hipMemcpyDeviceToHost));
  if (!check("packed launch", y, x, 3.0f, -1.0f, n)) expect_failures++;

  size_t short_size = 8;
  void* short_extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &packed, HIP_LAUNCH_PARAM_BUFFER_SIZE, &short_size, HIP_LAUNCH_PARAM_END};
  expect("a packed buffer too short for the arguments",
         hipModuleLaunchKernel(f, 4, 1, 1, 256, 1, 1, 0, 0, nullptr, short_extra), hipErrorInvalidValue);
  expect("an unknown function handle",
         hipModuleLaunchKernel((hipFunction_t)&expect_failures, 4, 1, 1, 256, 1, 1, 0, 0, params, nullptr), hipErrorInvalidResourceHandle);

  HIP_CHECK(hipFree(dx));
  HIP_CHECK(hipFree(dy));
  HIP_CHECK(hipModuleUnload(module));
  if (expect_failures) return 1;
  printf("PASS module_launch\n");
  return 0;
}
