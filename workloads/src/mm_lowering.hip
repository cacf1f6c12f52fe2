// mm_lowering.hip -- one probe kernel per memory operation of a litmus test, so the grader's
// lowering tables (grade/src/lower) can be checked against what clang-19 emits for every config.
//
// Kernels (182): extern "C" mm_<op>(int *p, int *q, int *out), all per lane (t = threadIdx.x):
//   mm_load_<order>__<scope>      r = atomic load p[t]                 order: relaxed acquire seq_cst
//   mm_store_<order>__<scope>     atomic store p[t] = 2                order: relaxed release seq_cst
//   mm_add_<order>__<scope>       r = atomic fetch_add(p[t], 2)        order: relaxed acquire release
//   mm_xchg_<order>__<scope>      r = atomic exchange(p[t], 2)                acq_rel seq_cst
//   mm_add_noret_<order>__<scope> atomic fetch_add(p[t], 2), result unused (5 orders as add)
//   mm_{sub,and,or,xor,min,max}_acq_rel__agent  r = atomic fetch_<op>(p[t], 2)
//   mm_cas_<order>__<scope>       r = atomic compare_exchange_strong(p[t], 0 -> 2); r consumed,
//                                 so is the success flag       order: relaxed (relaxed/relaxed),
//                                 acq_rel (acq_rel/acquire), seq_cst (seq_cst/seq_cst)
//   mm_fence_<order>__<scope>     __builtin_amdgcn_fence(order, scope)  order: acquire release
//                                                                              acq_rel seq_cst
//   mm_fence_<space>_<order>__<scope>  __builtin_amdgcn_fence(order, scope, "<space>"), a fence
//                                 on one address space; space: global | local
//   <scope>: wavefront | workgroup | agent | system (__HIP_MEMORY_SCOPE_*; fence scope strings
//            "wavefront" / "workgroup" / "agent" / ""); plus a few at singlethread scope:
//            load_acquire, store_release, add_acq_rel, xchg_seq_cst, cas_seq_cst,
//            fence_acq_rel, fence_seq_cst
//   mm_plain_load, mm_plain_store  r = p[t]; p[t] = 2 (non-atomic)
//   mm_barrier                     __syncthreads() (hip_mini.h sync_threads)
//   mm_barrier_global, mm_barrier_local  the same with fences on one address space
//   mm_lds_load_<order>__workgroup, mm_lds_store_<order>__workgroup: the same atomic load and
//                                  store on a __shared__ int (lds[t ^ 2]), work-group scope;
//   mm_lds_add_{relaxed,acq_rel,seq_cst}__workgroup, mm_lds_xchg_acq_rel__workgroup,
//   mm_lds_cas_seq_cst__workgroup, mm_lds_{sub,and,or,xor,min,max}_relaxed__workgroup: LDS
//   RMWs the same way; mm_lds_store_seq_cst__agent, mm_lds_load_seq_cst__agent,
//   mm_lds_add_seq_cst__system: LDS atomics at wider scopes.
// Every kernel has the same frame, so the operation's instructions are easy to cut out:
//   1. an empty asm that reads the three pointers: the kernel-argument load is waited for
//      before it, so its s_waitcnt lgkmcnt(0) is not mixed into the operation;
//   2. one access of each counter left in flight: an LDS store (lgkmcnt / dscnt), a global
//      store (vmcnt / vscnt / storecnt) and a global load (vmcnt / loadcnt). Without them the
//      compiler would drop the memory model's waits as already satisfied; with them every wait
//      of the sequence is emitted;
//   3. MARK (s_setprio 0, which the compiler never emits itself), the operation, MARK;
//   4. the results consumed (out[t] = ...), after the second MARK.
// The grader's test (grade/tests/lowering.rs) takes the instructions between the two MARKs.
// Built with -mllvm -amdgpu-atomic-optimizer-strategy=None (workloads/build.sh), so RMWs stay
// one atomic per lane as a litmus thread's RMW is.
#include "hip_mini.h"

#define MARK() asm volatile("s_setprio 0" ::: "memory")

#define FRAME_BEGIN                                                                           \
  __shared__ int lds[1024];                                                                   \
  asm volatile("" ::"s"(p), "s"(q), "s"(out) : "memory");                                     \
  unsigned t = TID_X();                                                                       \
  lds[t] = (int)t;                                                                            \
  q[t] = 1;                                                                                   \
  int pre = q[t + 1024];                                                                      \
  int r = 0, ok = 0;                                                                          \
  MARK();

#define FRAME_END                                                                             \
  MARK();                                                                                     \
  out[t] = r + pre + ok + lds[t ^ 1];

#define KERNEL(NAME, BODY)                                                                    \
  extern "C" __global__ void mm_##NAME(int *p, int *q, int *out) {                           \
    FRAME_BEGIN                                                                               \
    BODY;                                                                                     \
    FRAME_END                                                                                 \
  }

#define W __HIP_MEMORY_SCOPE_WAVEFRONT
#define G __HIP_MEMORY_SCOPE_WORKGROUP
#define A __HIP_MEMORY_SCOPE_AGENT
#define S __HIP_MEMORY_SCOPE_SYSTEM

// Each operation at the four scopes.
#define SCOPES(NAME, OP)                                                                      \
  KERNEL(NAME##__wavefront, OP(W))                                                            \
  KERNEL(NAME##__workgroup, OP(G))                                                            \
  KERNEL(NAME##__agent, OP(A))                                                                \
  KERNEL(NAME##__system, OP(S))

#define LOAD_R(sc) r = __hip_atomic_load(&p[t], __ATOMIC_RELAXED, sc)
#define LOAD_A(sc) r = __hip_atomic_load(&p[t], __ATOMIC_ACQUIRE, sc)
#define LOAD_S(sc) r = __hip_atomic_load(&p[t], __ATOMIC_SEQ_CST, sc)
SCOPES(load_relaxed, LOAD_R)
SCOPES(load_acquire, LOAD_A)
SCOPES(load_seq_cst, LOAD_S)

#define STORE_R(sc) __hip_atomic_store(&p[t], 2, __ATOMIC_RELAXED, sc)
#define STORE_L(sc) __hip_atomic_store(&p[t], 2, __ATOMIC_RELEASE, sc)
#define STORE_S(sc) __hip_atomic_store(&p[t], 2, __ATOMIC_SEQ_CST, sc)
SCOPES(store_relaxed, STORE_R)
SCOPES(store_release, STORE_L)
SCOPES(store_seq_cst, STORE_S)

#define ADD_R(sc) r = __hip_atomic_fetch_add(&p[t], 2, __ATOMIC_RELAXED, sc)
#define ADD_A(sc) r = __hip_atomic_fetch_add(&p[t], 2, __ATOMIC_ACQUIRE, sc)
#define ADD_L(sc) r = __hip_atomic_fetch_add(&p[t], 2, __ATOMIC_RELEASE, sc)
#define ADD_AR(sc) r = __hip_atomic_fetch_add(&p[t], 2, __ATOMIC_ACQ_REL, sc)
#define ADD_S(sc) r = __hip_atomic_fetch_add(&p[t], 2, __ATOMIC_SEQ_CST, sc)
SCOPES(add_relaxed, ADD_R)
SCOPES(add_acquire, ADD_A)
SCOPES(add_release, ADD_L)
SCOPES(add_acq_rel, ADD_AR)
SCOPES(add_seq_cst, ADD_S)

// fetch_add with the result unused: the no-return atomic (no glc / sc0 / TH_ATOMIC_RETURN; on
// GFX10+ its completion is counted by vscnt / storecnt instead of vmcnt / loadcnt).
#define NORET_R(sc) __hip_atomic_fetch_add(&p[t], 2, __ATOMIC_RELAXED, sc)
#define NORET_A(sc) __hip_atomic_fetch_add(&p[t], 2, __ATOMIC_ACQUIRE, sc)
#define NORET_L(sc) __hip_atomic_fetch_add(&p[t], 2, __ATOMIC_RELEASE, sc)
#define NORET_AR(sc) __hip_atomic_fetch_add(&p[t], 2, __ATOMIC_ACQ_REL, sc)
#define NORET_S(sc) __hip_atomic_fetch_add(&p[t], 2, __ATOMIC_SEQ_CST, sc)
SCOPES(add_noret_relaxed, NORET_R)
SCOPES(add_noret_acquire, NORET_A)
SCOPES(add_noret_release, NORET_L)
SCOPES(add_noret_acq_rel, NORET_AR)
SCOPES(add_noret_seq_cst, NORET_S)

#define XCHG_R(sc) r = __hip_atomic_exchange(&p[t], 2, __ATOMIC_RELAXED, sc)
#define XCHG_A(sc) r = __hip_atomic_exchange(&p[t], 2, __ATOMIC_ACQUIRE, sc)
#define XCHG_L(sc) r = __hip_atomic_exchange(&p[t], 2, __ATOMIC_RELEASE, sc)
#define XCHG_AR(sc) r = __hip_atomic_exchange(&p[t], 2, __ATOMIC_ACQ_REL, sc)
#define XCHG_S(sc) r = __hip_atomic_exchange(&p[t], 2, __ATOMIC_SEQ_CST, sc)
SCOPES(xchg_relaxed, XCHG_R)
SCOPES(xchg_acquire, XCHG_A)
SCOPES(xchg_release, XCHG_L)
SCOPES(xchg_acq_rel, XCHG_AR)
SCOPES(xchg_seq_cst, XCHG_S)

// The other RMW operations, acq_rel at agent scope (their sequences are add's; the mnemonic
// is what differs). int operands, so min / max are the signed forms.
KERNEL(sub_acq_rel__agent, r = __hip_atomic_fetch_sub(&p[t], 2, __ATOMIC_ACQ_REL, A))
KERNEL(and_acq_rel__agent, r = __hip_atomic_fetch_and(&p[t], 2, __ATOMIC_ACQ_REL, A))
KERNEL(or_acq_rel__agent, r = __hip_atomic_fetch_or(&p[t], 2, __ATOMIC_ACQ_REL, A))
KERNEL(xor_acq_rel__agent, r = __hip_atomic_fetch_xor(&p[t], 2, __ATOMIC_ACQ_REL, A))
KERNEL(min_acq_rel__agent, r = __hip_atomic_fetch_min(&p[t], 2, __ATOMIC_ACQ_REL, A))
KERNEL(max_acq_rel__agent, r = __hip_atomic_fetch_max(&p[t], 2, __ATOMIC_ACQ_REL, A))

#define CAS(sc, SO, FO)                                                                       \
  do {                                                                                        \
    int e = 0;                                                                                \
    ok = __hip_atomic_compare_exchange_strong(&p[t], &e, 2, SO, FO, sc);                      \
    r = e;                                                                                    \
  } while (0)
#define CAS_R(sc) CAS(sc, __ATOMIC_RELAXED, __ATOMIC_RELAXED)
#define CAS_AR(sc) CAS(sc, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#define CAS_S(sc) CAS(sc, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
SCOPES(cas_relaxed, CAS_R)
SCOPES(cas_acq_rel, CAS_AR)
SCOPES(cas_seq_cst, CAS_S)

// Fences take the scope as a string.
#define FENCES(NAME, ORDER)                                                                   \
  KERNEL(fence_##NAME##__wavefront, __builtin_amdgcn_fence(ORDER, "wavefront"))               \
  KERNEL(fence_##NAME##__workgroup, __builtin_amdgcn_fence(ORDER, "workgroup"))               \
  KERNEL(fence_##NAME##__agent, __builtin_amdgcn_fence(ORDER, "agent"))                       \
  KERNEL(fence_##NAME##__system, __builtin_amdgcn_fence(ORDER, ""))
FENCES(acquire, __ATOMIC_ACQUIRE)
FENCES(release, __ATOMIC_RELEASE)
FENCES(acq_rel, __ATOMIC_ACQ_REL)
FENCES(seq_cst, __ATOMIC_SEQ_CST)

// Fences on one address space (the third argument of __builtin_amdgcn_fence: OpenCL
// atomic_work_item_fence with only CLK_GLOBAL_MEM_FENCE or CLK_LOCAL_MEM_FENCE).
#define SPACE_FENCES(SPACE, NAME, ORDER)                                                      \
  KERNEL(fence_##SPACE##_##NAME##__wavefront, __builtin_amdgcn_fence(ORDER, "wavefront", #SPACE)) \
  KERNEL(fence_##SPACE##_##NAME##__workgroup, __builtin_amdgcn_fence(ORDER, "workgroup", #SPACE)) \
  KERNEL(fence_##SPACE##_##NAME##__agent, __builtin_amdgcn_fence(ORDER, "agent", #SPACE))     \
  KERNEL(fence_##SPACE##_##NAME##__system, __builtin_amdgcn_fence(ORDER, "", #SPACE))
SPACE_FENCES(global, acquire, __ATOMIC_ACQUIRE)
SPACE_FENCES(global, release, __ATOMIC_RELEASE)
SPACE_FENCES(global, acq_rel, __ATOMIC_ACQ_REL)
SPACE_FENCES(global, seq_cst, __ATOMIC_SEQ_CST)
SPACE_FENCES(local, acquire, __ATOMIC_ACQUIRE)
SPACE_FENCES(local, release, __ATOMIC_RELEASE)
SPACE_FENCES(local, acq_rel, __ATOMIC_ACQ_REL)
SPACE_FENCES(local, seq_cst, __ATOMIC_SEQ_CST)

// Single-thread scope (HSA / OpenCL work-item scope), a few operations.
#define T __HIP_MEMORY_SCOPE_SINGLETHREAD
KERNEL(load_acquire__singlethread, LOAD_A(T))
KERNEL(store_release__singlethread, STORE_L(T))
KERNEL(add_acq_rel__singlethread, ADD_AR(T))
KERNEL(xchg_seq_cst__singlethread, XCHG_S(T))
KERNEL(cas_seq_cst__singlethread, CAS_S(T))
KERNEL(fence_acq_rel__singlethread, __builtin_amdgcn_fence(__ATOMIC_ACQ_REL, "singlethread"))
KERNEL(fence_seq_cst__singlethread, __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "singlethread"))

KERNEL(plain_load, r = p[t])
KERNEL(plain_store, p[t] = 2)
KERNEL(barrier, sync_threads())
// A barrier whose fences order one address space (OpenCL barrier(CLK_LOCAL_MEM_FENCE) /
// barrier(CLK_GLOBAL_MEM_FENCE)).
#define SPACE_BARRIER(SPACE)                                                                  \
  KERNEL(barrier_##SPACE, __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup", #SPACE);      \
         __builtin_amdgcn_s_barrier();                                                        \
         __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup", #SPACE))
SPACE_BARRIER(global)
SPACE_BARRIER(local)

// LDS (__shared__) atomics at work-group scope, on lds[t ^ 2] (the frame's LDS array: a
// __shared__ variable that is never stored would be folded away as uninitialised).
#define CAS_LDS(SO, FO)                                                                       \
  do {                                                                                        \
    int e = 0;                                                                                \
    ok = __hip_atomic_compare_exchange_strong(&lds[t ^ 2], &e, 2, SO, FO, G);                 \
    r = e;                                                                                    \
  } while (0)
#define LDS_KERNEL(NAME, BODY)                                                                \
  extern "C" __global__ void mm_lds_##NAME##__workgroup(int *p, int *q, int *out) {          \
    FRAME_BEGIN                                                                               \
    BODY;                                                                                     \
    FRAME_END                                                                                 \
  }
LDS_KERNEL(load_relaxed, r = __hip_atomic_load(&lds[t ^ 2], __ATOMIC_RELAXED, G))
LDS_KERNEL(load_acquire, r = __hip_atomic_load(&lds[t ^ 2], __ATOMIC_ACQUIRE, G))
LDS_KERNEL(load_seq_cst, r = __hip_atomic_load(&lds[t ^ 2], __ATOMIC_SEQ_CST, G))
LDS_KERNEL(store_relaxed, __hip_atomic_store(&lds[t ^ 2], 2, __ATOMIC_RELAXED, G))
LDS_KERNEL(store_release, __hip_atomic_store(&lds[t ^ 2], 2, __ATOMIC_RELEASE, G))
LDS_KERNEL(store_seq_cst, __hip_atomic_store(&lds[t ^ 2], 2, __ATOMIC_SEQ_CST, G))
LDS_KERNEL(add_relaxed, r = __hip_atomic_fetch_add(&lds[t ^ 2], 2, __ATOMIC_RELAXED, G))
LDS_KERNEL(add_acq_rel, r = __hip_atomic_fetch_add(&lds[t ^ 2], 2, __ATOMIC_ACQ_REL, G))
LDS_KERNEL(add_seq_cst, r = __hip_atomic_fetch_add(&lds[t ^ 2], 2, __ATOMIC_SEQ_CST, G))
LDS_KERNEL(xchg_acq_rel, r = __hip_atomic_exchange(&lds[t ^ 2], 2, __ATOMIC_ACQ_REL, G))
LDS_KERNEL(cas_seq_cst, CAS_LDS(__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
LDS_KERNEL(sub_relaxed, r = __hip_atomic_fetch_sub(&lds[t ^ 2], 2, __ATOMIC_RELAXED, G))
LDS_KERNEL(and_relaxed, r = __hip_atomic_fetch_and(&lds[t ^ 2], 2, __ATOMIC_RELAXED, G))
LDS_KERNEL(or_relaxed, r = __hip_atomic_fetch_or(&lds[t ^ 2], 2, __ATOMIC_RELAXED, G))
LDS_KERNEL(xor_relaxed, r = __hip_atomic_fetch_xor(&lds[t ^ 2], 2, __ATOMIC_RELAXED, G))
LDS_KERNEL(min_relaxed, r = __hip_atomic_fetch_min(&lds[t ^ 2], 2, __ATOMIC_RELAXED, G))
LDS_KERNEL(max_relaxed, r = __hip_atomic_fetch_max(&lds[t ^ 2], 2, __ATOMIC_RELAXED, G))
// LDS atomics at scopes wider than the work-group (LDS is work-group memory: the compiler
// treats the scope as work-group scope).
extern "C" __global__ void mm_lds_store_seq_cst__agent(int *p, int *q, int *out) {
  FRAME_BEGIN
  __hip_atomic_store(&lds[t ^ 2], 2, __ATOMIC_SEQ_CST, A);
  FRAME_END
}
extern "C" __global__ void mm_lds_load_seq_cst__agent(int *p, int *q, int *out) {
  FRAME_BEGIN
  r = __hip_atomic_load(&lds[t ^ 2], __ATOMIC_SEQ_CST, A);
  FRAME_END
}
extern "C" __global__ void mm_lds_add_seq_cst__system(int *p, int *q, int *out) {
  FRAME_BEGIN
  r = __hip_atomic_fetch_add(&lds[t ^ 2], 2, __ATOMIC_SEQ_CST, S);
  FRAME_END
}

