#!/bin/sh
# Rebuild labels.co: two gfx942 functions, the first with a non-local label inside it (as
# hand-written kernels such as Tensile's keep in their symbol tables). Reproducible.
set -eu
cd "$(dirname "$0")"
llvm-mc-19 -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj labels.s -o labels.o
ld.lld-19 -shared labels.o -o labels.co
rm labels.o
