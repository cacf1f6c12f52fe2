// One kernel, named by -DKERNEL=..., for the compressed-bundle test inputs (build.sh). No HIP
// headers (-nogpuinc): clang's host-side kernel stub only needs these declarations.
#define __global__ __attribute__((global))
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#ifndef KERNEL
#define KERNEL k
#endif
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
typedef struct ihipStream_t *hipStream_t;
extern "C" int hipLaunchKernel(const void *, dim3, dim3, void **, unsigned long, hipStream_t);
extern "C" __global__ void KERNEL(float *p) { p[__builtin_amdgcn_workitem_id_x()] += 1.0f; }
