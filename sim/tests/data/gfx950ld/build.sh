#!/bin/sh
# Rebuilds k.co (gfx950 code object) and its llvm-objdump-22 listing from k.hip. The tests
# (sim/tests/suite/ds_transpose.rs) read the committed outputs and need no LLVM. Needs clang++-22
# and llvm-objdump-22.
set -eu
cd "$(dirname "$0")"
clang++-22 -x hip -nogpulib -nogpuinc -O2 --offload-arch=gfx950 --cuda-device-only --no-gpu-bundle-output -o k.co k.hip
llvm-objdump-22 -d --no-show-raw-insn k.co > k.objdump.txt
