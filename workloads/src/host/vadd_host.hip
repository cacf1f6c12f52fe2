// vadd_host.hip -- host + device translation unit for the HIP host-executable test input
// (bin/host/vadd_host). It includes the vadd kernel and adds the few host-side HIP runtime
// declarations that clang needs for a <<<grid, block>>> launch, written here because the
// build uses no HIP headers (-nogpuinc -nogpulib). Clang's HIP host code generation then
// emits: the kernel handle `vadd`, its stub, a registration constructor calling
// __hipRegisterFatBinary / __hipRegisterFunction, __hipUnregisterFatBinary at exit, and the
// device code for every --offload-arch in a .hip_fatbin section (a clang offload bundle).
// The runtime functions are defined in hip_stubs.c (no HIP runtime is linked).
// Exported host function: int vadd_launch(const float *a, const float *b, float *c, unsigned n)
//   launches vadd with grid ceil(n/256) blocks of 256 threads; returns the launch status.
#include "../hip_mini.h"

// These must be declared before the kernel definition: clang emits the kernel stub
// (which calls hipLaunchKernel) where the __global__ function is defined.
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
typedef struct ihipStream_t *hipStream_t;
typedef int hipError_t;

extern "C" hipError_t hipLaunchKernel(const void *function_address, dim3 num_blocks,
                                      dim3 block_dim, void **args, unsigned long shared_mem_bytes,
                                      hipStream_t stream);
extern "C" hipError_t __hipPushCallConfiguration(dim3 grid_dim, dim3 block_dim,
                                                 unsigned long shared_mem = 0,
                                                 hipStream_t stream = 0);
extern "C" hipError_t __hipPopCallConfiguration(dim3 *grid_dim, dim3 *block_dim,
                                                unsigned long *shared_mem, hipStream_t *stream);

#include "../vadd.hip"

extern "C" int vadd_launch(const float *a, const float *b, float *c, unsigned n) {
  vadd<<<dim3((n + 255) / 256), dim3(256)>>>(a, b, c, n);
  return 0;
}
