// student_spin -- three spin loops students write, each of which cannot finish on an AMD GPU.
//
//   student_spin lock     every thread of every block takes one lock with atomicCAS in a
//                         while loop, bumps a counter and releases the lock. A wave runs all
//                         its lanes as one instruction stream under the EXEC mask (AMD GCN3 /
//                         CDNA3 ISA, "EXEC register": an instruction acts on the lanes whose
//                         EXEC bit is set; there is no per-lane program counter). The lane
//                         whose CAS succeeds leaves the loop and is masked off until its wave's
//                         other lanes leave it too; they wait for that lane's release, which
//                         comes after the loop: the wave can never leave the loop.
//   student_spin barrier  a grid barrier (atomic counter, then spin until it reaches the
//                         number of blocks) over 8192 blocks of 256 threads: more than fit on
//                         the GPU at once (MI300X: 304 CUs, at most 32 waves per CU of which a
//                         block takes 4, so at most 8 blocks per CU = 2432), so the blocks
//                         that wait keep the rest from ever starting.
//   student_spin bounded  the lock of `lock`, with each thread giving up after 2^32 - 1 failed
//                         attempts: it ends, but only after ~2^32 iterations of the loop.
// Each prints what it saw if the kernel ever returns.
#include "hip_check.h"
#include <string.h>

__global__ void spin_lock(int *lock, int *counter) {
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  *counter += 1;
  __threadfence();
  atomicExch(lock, 0);
}

__global__ void grid_barrier(unsigned *arrived, int *out) {
  __syncthreads();
  if (threadIdx.x == 0) {
    atomicAdd(arrived, 1u);
    while (__hip_atomic_load(arrived, __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT) < gridDim.x) {
    }
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

__global__ void spin_lock_bounded(int *lock, int *counter, unsigned *gave_up) {
  bool taken = false;
  for (unsigned spins = 0; spins != 0xffffffffu; ++spins) {
    if (atomicCAS(lock, 0, 1) == 0) {
      taken = true;
      break;
    }
  }
  if (taken) {
    *counter += 1;
    __threadfence();
    atomicExch(lock, 0);
  } else {
    atomicAdd(gave_up, 1u);
  }
}

int main(int argc, char **argv) {
  const char *which = argc > 1 ? argv[1] : "";
  int *buf = nullptr;
  const int blocks = 8192, threads = 256;
  HIP_CHECK(hipMalloc(&buf, (size_t)blocks * threads * sizeof(int)));
  HIP_CHECK(hipMemset(buf, 0, (size_t)blocks * threads * sizeof(int)));
  int host[3] = {0, 0, 0};
  if (strcmp(which, "lock") == 0) {
    spin_lock<<<4, 256>>>(buf, buf + 1);
  } else if (strcmp(which, "barrier") == 0) {
    grid_barrier<<<blocks, threads>>>((unsigned *)buf, buf + 1);
  } else if (strcmp(which, "bounded") == 0) {
    spin_lock_bounded<<<4, 256>>>(buf, buf + 1, (unsigned *)(buf + 2));
  } else {
    FAIL("usage: student_spin lock|barrier|bounded");
  }
  HIP_CHECK_LAUNCH();
  HIP_CHECK(hipDeviceSynchronize());
  HIP_CHECK(hipMemcpy(host, buf, sizeof(host), hipMemcpyDeviceToHost));
  printf("%s: lock %d counter %d gave up %d\n", which, host[0], host[1], host[2]);
  HIP_CHECK(hipFree(buf));
  return 0;
}
