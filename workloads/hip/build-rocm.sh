#!/bin/sh
# build-rocm.sh -- the HIP test programs of this directory as current ROCm builds them:
# clang-22 with the HIP headers of ROCm 6.4 (Debian unstable's libamdhip64-dev) or 7.2
# (experimental's), that release's device libraries, compressed offload bundles
# (--offload-compress: CCOB v3, zstd), linked against the release's libamdhip64.so.6 / .so.7
# (so they import its symbol versions). Outputs: bin-rocm6.4/<prog>, bin-rocm7.2/<prog>.
#
# Usage: workloads/hip/build-rocm.sh [6.4|7.2 ...]      (default: both)
# Needs clang-22 (apt-get install clang-22 lld-22 llvm-22) and the release's root from
# scripts/rocm-root.sh (default ~/.cache/hipscope/rocm-root-<release>, or
# $HIPSCOPE_ROCM_ROOT_64 / $HIPSCOPE_ROCM_ROOT_72).
#
# Known: ROCm 6.4's headers define warpSize from __AMDGCN_WAVEFRONT_SIZE, a macro clang-22
# no longer predefines (6.4 pairs with clang-21), so 6.4 builds define it as 64 and target
# only wave64 processors (gfx90a, gfx942); 7.2's headers ask the compiler at run time and
# also build for gfx950 (MI355X) and gfx1100. -cuid fixes the __hip_cuid_* symbol so builds are reproducible.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
cd "$HERE"
CXX=${CXX:-clang++-22}
RESOURCE=$("$CXX" -print-resource-dir)
STRIP=${STRIP:-llvm-strip-22}
PROGRAMS="memset_vadd device_props struct_shared streams_events constant_symbols device_counter managed_host module_launch bad_calls memcpy3d textures graphs host_threads host_funcs"
# Built a second time with -fgpu-default-stream=per-thread (HIP_API_PER_THREAD_DEFAULT_STREAM):
# every stream-taking call becomes its `_spt` twin, and the null stream the thread's own.
PER_THREAD="host_threads streams_events graphs"

for release in ${*:-6.4 7.2}; do
  case $release in
    6.4) root=${HIPSCOPE_ROCM_ROOT_64:-$HOME/.cache/hipscope/rocm-root-6.4}; llvm=21
         archs="--offload-arch=gfx90a --offload-arch=gfx942"; extra="-D__AMDGCN_WAVEFRONT_SIZE=64" ;;
    7.2) root=${HIPSCOPE_ROCM_ROOT_72:-$HOME/.cache/hipscope/rocm-root-7.2}; llvm=22
         archs="--offload-arch=gfx90a --offload-arch=gfx942 --offload-arch=gfx950 --offload-arch=gfx1100"; extra="" ;;
    *) echo "build-rocm.sh: unknown release $release (6.4 or 7.2)" >&2; exit 2 ;;
  esac
  if [ ! -f "$root/var/lib/hipscope-rocm-root/done" ]; then
    echo "build-rocm.sh: no ROCm $release root at $root; make it with scripts/rocm-root.sh $release" >&2
    exit 2
  fi
  out="bin-rocm$release"
  mkdir -p "$out"
  devlibs="$root/usr/lib/llvm-$llvm/lib/clang/$llvm/amdgcn/bitcode"
  for p in $PROGRAMS; do
    # shellcheck disable=SC2086
    "$CXX" -x hip -O2 -std=c++17 --hip-path="$root/usr" -nogpuinc -isystem "$RESOURCE" -isystem "$root/usr/include" \
      --rocm-device-lib-path="$devlibs" $archs --offload-compress -D__HIP_PLATFORM_AMD__ $extra \
      -Wno-unused-result -cuid="$p" "$p.cpp" -c -o "$out/$p.o"
    "$CXX" "$out/$p.o" -o "$out/$p" -L"$root/usr/lib/x86_64-linux-gnu" -lamdhip64 -Wl,--allow-shlib-undefined
    rm "$out/$p.o"
    "$STRIP" "$out/$p"
  done
  for p in $PER_THREAD; do
    # shellcheck disable=SC2086
    "$CXX" -x hip -O2 -std=c++17 --hip-path="$root/usr" -nogpuinc -isystem "$RESOURCE" -isystem "$root/usr/include" \
      --rocm-device-lib-path="$devlibs" $archs --offload-compress -D__HIP_PLATFORM_AMD__ $extra \
      -fgpu-default-stream=per-thread -Wno-unused-result -cuid="$p" "$p.cpp" -c -o "$out/${p}_spt.o"
    "$CXX" "$out/${p}_spt.o" -o "$out/${p}_spt" -L"$root/usr/lib/x86_64-linux-gnu" -lamdhip64 -Wl,--allow-shlib-undefined
    rm "$out/${p}_spt.o"
    "$STRIP" "$out/${p}_spt"
  done
  # The device-code bundle module_launch loads, built the same way.
  # shellcheck disable=SC2086
  "$CXX" -x hip -O2 -std=c++17 --hip-path="$root/usr" -nogpuinc -isystem "$RESOURCE" -isystem "$root/usr/include" \
    --rocm-device-lib-path="$devlibs" $archs --offload-compress -D__HIP_PLATFORM_AMD__ $extra \
    --cuda-device-only -cuid=module_kernel module_kernel.hip -o "$out/module_kernel.co"
  echo "built $out: $PROGRAMS, per-thread: $PER_THREAD, module_kernel.co"
done
