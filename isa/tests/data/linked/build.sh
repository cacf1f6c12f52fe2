#!/bin/sh
# Code objects linked from several relocatable objects, as Tensile links rocBLAS's kernel
# libraries (`ld.lld -shared a.o b.o`): each object keeps its own NT_AMDGPU_METADATA note.
#   linked.co               scale_a and scale_b, two metadata notes (same target)
#   linked-other-target.co  linked.co plus the note of a gfx90a:xnack+ object (scale_c) in
#                           a section .note.dup: the notes disagree on the target
set -eu
cd "$(dirname "$0")"
t=$(mktemp -d)
cl() { clang-19 -target amdgcn-amd-amdhsa -mcpu="$1" -nogpulib -O2 -x cl -cl-std=CL2.0 -DKNAME="$2" -c k.cl -o "$t/$2.o"; }
cl gfx90a:xnack- scale_a
cl gfx90a:xnack- scale_b
cl gfx90a:xnack+ scale_c
ld.lld-19 -shared "$t/scale_a.o" "$t/scale_b.o" -o linked.co
llvm-objcopy-19 --dump-section .note="$t/c.note" "$t/scale_c.o"
llvm-objcopy-19 --add-section .note.dup="$t/c.note" --set-section-type .note.dup=7 linked.co linked-other-target.co
rm -r "$t"
