	.amdgcn_target "amdgcn-amd-amdhsa--gfx942"
	.text
	.globl	first
	.p2align	8
	.type	first,@function
first:
	s_cmp_eq_u32 s0, 0
	s_cbranch_scc1 label_Skip
	v_mov_b32_e32 v0, 1
label_Skip:
	v_mov_b32_e32 v1, 2
	s_endpgm
.Lfirst_end:
	.size	first, .Lfirst_end-first
	.globl	second
	.p2align	8
	.type	second,@function
second:
	v_mov_b32_e32 v2, 3
	s_endpgm
.Lsecond_end:
	.size	second, .Lsecond_end-second
