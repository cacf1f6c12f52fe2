// gfx950 kernels for sim/tests/ds_transpose.rs (built by build.sh): the LDS transpose loads
// and the 12/16-byte LDS-DMA loads, through their clang builtins. One wave of 64 lanes.
#include <stdint.h>
#define __global__ __attribute__((global))
#define LDS __attribute__((address_space(3)))
#define GLOBAL __attribute__((address_space(1)))
#define __shared__ __attribute__((shared))

static __attribute__((device)) void sync_group() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}

typedef int v2i __attribute__((ext_vector_type(2)));
typedef int v3i __attribute__((ext_vector_type(3)));
typedef short v4s __attribute__((ext_vector_type(4)));

// LDS holds in[0..256) (1 KiB). Lane l reads at byte 16 * ((5 * l + 3) % 64) with each of
// the four transpose loads and stores its 2+2+2+3 result dwords at out[9 * l ..].
extern "C" __global__ void tr_loads(const uint32_t *in, uint32_t *out) {
  __shared__ uint32_t lds[256];
  unsigned l = __builtin_amdgcn_workitem_id_x();
  for (unsigned k = 0; k < 4; ++k)
    lds[4 * l + k] = in[4 * l + k];
  sync_group();
  LDS char *base = (LDS char *)(LDS void *)lds + 16 * ((5 * l + 3) % 64);
  v2i a = __builtin_amdgcn_ds_read_tr4_b64_v2i32((LDS v2i *)base);
  v2i b = __builtin_amdgcn_ds_read_tr8_b64_v2i32((LDS v2i *)base);
  v4s c = __builtin_amdgcn_ds_read_tr16_b64_v4i16((LDS v4s *)base);
  v3i d = __builtin_amdgcn_ds_read_tr6_b96_v3i32((LDS v3i *)base);
  uint32_t *o = out + 9 * l;
  o[0] = a.x; o[1] = a.y;
  o[2] = b.x; o[3] = b.y;
  o[4] = (unsigned short)c.x | (unsigned)(unsigned short)c.y << 16;
  o[5] = (unsigned short)c.z | (unsigned)(unsigned short)c.w << 16;
  o[6] = d.x; o[7] = d.y; o[8] = d.z;
}

// Lane l copies 12 bytes from in + 12 * ((7 * l) % 64) bytes, then 16 bytes from
// in + 16 * ((3 * l) % 64) bytes, straight into LDS (M0 = 0 and 768); then
// the wave copies the 1024 + 768 bytes of LDS out, as dwords.
extern "C" __global__ void load_lds(const uint32_t *in, uint32_t *out) {
  __shared__ uint32_t lds[448];
  unsigned l = __builtin_amdgcn_workitem_id_x();
  for (unsigned k = 0; k < 7; ++k)
    lds[64 * k + l] = 0xdeadbeef;
  sync_group();
  GLOBAL char *src = (GLOBAL char *)(GLOBAL void *)(uint32_t *)in;
  __builtin_amdgcn_global_load_lds((GLOBAL void *)(src + 12 * ((7 * l) % 64)), (LDS void *)lds, 12, 0, 0);
  __builtin_amdgcn_global_load_lds((GLOBAL void *)(src + 16 * ((3 * l) % 64)), (LDS void *)(lds + 192), 16, 0, 0);
  __builtin_amdgcn_s_waitcnt(0);
  sync_group();
  for (unsigned k = 0; k < 7; ++k)
    out[64 * k + l] = lds[64 * k + l];
}
