// blas1.cl -- BLAS level-1 style kernels in f32 and f64 (OpenCL C 2.0, clang builtins only:
// no device library, so get_global_id() etc. are spelled with __builtin_amdgcn_*; fp64 is a
// core feature on every AMDGPU target).
// Index i = group_id.x * local_size.x + local_id.x (no global offset).
//
// Kernel 1: saxpy(float a, global const float *x, global float *y, uint n)
//   y[i] = a * x[i] + y[i] for i < n (the compiler contracts this into one f32 fma).
//   Grid: 1-D, >= n work-items, e.g. grid (n rounded up to 256, 1, 1), block (256, 1, 1);
//   any block size up to 256 (OpenCL's default maximum work-group size).
//   Buffers: x: n f32 (input); y: n f32 (input and output).
//
// Kernel 2: daxpy(double a, global const double *x, global double *y, uint n)
//   y[i] = fma(a, x[i], y[i]) for i < n.
//   Grid/block as saxpy. Buffers: x: n f64 (input); y: n f64 (input and output).
//
// Kernel 3: ddot(global const double *x, global const double *y, global double *partial, uint n)
//   Per-work-group partial dot product through a 256-entry f64 LDS tree:
//   s[t] = x[i] * y[i] (0 if i >= n), then for stride = 128, 64, ..., 1:
//   s[t] += s[t + stride] for t < stride, with a work-group barrier after every step;
//   partial[group_id.x] = s[0]. (Bit-exact against a CPU doing the same tree; exact in any
//   order when the products are small integers.)
//   Grid: 1-D, (ceil(n/256)*256, 1, 1); Block: exactly (256, 1, 1) (reqd_work_group_size).
//   LDS: 2 KiB static. Buffers: x, y: n f64 (inputs); partial: ceil(n/256) f64 (output).

static inline uint gid_x(void) {
  return __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x()
       + __builtin_amdgcn_workitem_id_x();
}

// work_group_barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE) without the device library.
static inline void wg_barrier(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

kernel void saxpy(float a, global const float *x, global float *y, uint n) {
  uint i = gid_x();
  if (i < n)
    y[i] = a * x[i] + y[i];
}

kernel void daxpy(double a, global const double *x, global double *y, uint n) {
  uint i = gid_x();
  if (i < n)
    y[i] = __builtin_fma(a, x[i], y[i]);
}

#define DOT_BLOCK 256

kernel __attribute__((reqd_work_group_size(DOT_BLOCK, 1, 1)))
void ddot(global const double *x, global const double *y, global double *partial, uint n) {
  local double s[DOT_BLOCK];
  uint t = __builtin_amdgcn_workitem_id_x();
  uint i = __builtin_amdgcn_workgroup_id_x() * DOT_BLOCK + t;
  s[t] = i < n ? x[i] * y[i] : 0.0;
  wg_barrier();
  for (uint stride = DOT_BLOCK / 2; stride > 0; stride >>= 1) {
    if (t < stride)
      s[t] += s[t + stride];
    wg_barrier();
  }
  if (t == 0)
    partial[__builtin_amdgcn_workgroup_id_x()] = s[0];
}
