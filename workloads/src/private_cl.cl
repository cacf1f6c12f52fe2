// private_cl.cl -- the private-memory gather of private.hip in OpenCL C: on targets that
// address scratch through buffer instructions (gfx8, gfx9, gfx10 OpenCL), the private array is
// reached with MUBUF instructions through the private-segment buffer resource.
//
// Kernel:  private_gather_cl(global const uint *in, global uint *out, uint n)
// For each i < n (i = group_id.x * local_size.x + local_id.x):
//   buf[k] = in[(i + k) % n] * (k + 1) for k = 0..63;  j = in[i] & 63;  m = (in[i] >> 6) & 63
//   out[i] = buf[j] + buf[m] + buf[(j + m) & 63]
// Grid:    1-D, >= n work-items, block (256, 1, 1) or smaller.
// Buffers: in: n u32 (input); out: n u32 (output).

kernel void private_gather_cl(global const uint *in, global uint *out, uint n) {
  uint i = __builtin_amdgcn_workgroup_id_x() * __builtin_amdgcn_workgroup_size_x()
         + __builtin_amdgcn_workitem_id_x();
  if (i >= n)
    return;
  uint buf[64];
  for (uint k = 0; k < 64; k++)
    buf[k] = in[(i + k) % n] * (k + 1);
  uint v = in[i];
  uint j = v & 63, m = (v >> 6) & 63;
  out[i] = buf[j] + buf[m] + buf[(j + m) & 63];
}
