// module_kernel.hip -- the device code module_launch loads at run time with hipModuleLoad
// (built with --cuda-device-only into one offload bundle for every target).
#include <hip/hip_runtime.h>

__device__ float bias = 0.5f;

extern "C" __global__ void axpb(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + bias;
}
