#!/bin/sh
# Rebuild pingpong.co (gfx942) from pingpong.hip: device code only, no HIP headers or device
# libraries (the kernels use compiler builtins only). Reproducible.
set -eu
cd "$(dirname "$0")"
clang++-19 -x hip -O2 -std=c++17 --cuda-device-only -nogpuinc -nogpulib --offload-arch=gfx942 \
  --no-gpu-bundle-output pingpong.hip -o pingpong.co
