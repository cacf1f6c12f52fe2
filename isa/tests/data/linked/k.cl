kernel void KNAME(global float* a, float s) { a[__builtin_amdgcn_workitem_id_x()] *= s; }
