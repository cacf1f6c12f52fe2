// hip_mini.h -- the few HIP spellings our kernels need, without the HIP headers.
// The kernels are compiled with -nogpuinc -nogpulib, so nothing from hip_runtime.h
// exists. Everything below is a clang attribute or a clang AMDGPU builtin; the
// synchronisation helpers mirror what the HIP runtime headers expand to
// (see shared/notes/memory-model-lowering.md, section 4.2).
#ifndef HIPSCOPE_HIP_MINI_H
#define HIPSCOPE_HIP_MINI_H

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __host__ __attribute__((host))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
// __launch_bounds__(N): maximum flat work-group size N (metadata .max_flat_workgroup_size).
#define __launch_bounds__(n) __attribute__((amdgpu_flat_work_group_size(1, n)))

// threadIdx.x / blockIdx.x / blockDim.x. blockDim comes from the hidden
// kernel arguments (code object v5: hidden_group_size_x), i.e. what the
// dispatch packet says, so a spec may pick any block size.
#define TID_X()  __builtin_amdgcn_workitem_id_x()
#define TID_Y()  __builtin_amdgcn_workitem_id_y()
#define BID_X()  __builtin_amdgcn_workgroup_id_x()
#define BID_Y()  __builtin_amdgcn_workgroup_id_y()
#define BDIM_X() __builtin_amdgcn_workgroup_size_x()
#define BDIM_Y() __builtin_amdgcn_workgroup_size_y()
// warpSize: 32 or 64, a compile-time constant per build. LLVM 22 no longer defines
// __AMDGCN_WAVEFRONT_SIZE__ (deprecated since LLVM 20); the gfx950 builds (clang-22) are
// GFX9, whose waves are always 64 wide (AMDGPUUsage processor table: wave64 only before GFX10).
#if defined(__AMDGCN_WAVEFRONT_SIZE__)
#define WAVE_SIZE __AMDGCN_WAVEFRONT_SIZE__
#elif defined(__GFX9__)
#define WAVE_SIZE 64
#else
#error "wave size unknown: build with clang-19, or for a GFX9 processor"
#endif

// __syncthreads(): release fence, s_barrier, acquire fence (all at work-group scope).
static __device__ inline void sync_threads(void) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

#endif
