#!/bin/sh
# rocwmma-samples.sh: build rocWMMA's own sample programs (samples/*.cpp of a rocWMMA source
# tree: wave-level GEMM/GEMV/DLRM through rocWMMA fragments, which become MFMA on CDNA and
# WMMA on RDNA3) and run each unmodified under `hipscope exec`, checking the sample's own
# verdict (it compares the GPU result with its CPU reference and prints PASSED! or FAILED!),
# then write that rocWMMA version's section of reports/rocwmma-samples.md.
#
# Usage: scripts/rocwmma-samples.sh [-g GPU[,GPU...]] [-m functional|timing|both] ROCWMMA_SRC
#        scripts/rocwmma-samples.sh -r [-v VERSION]
#   ROCWMMA_SRC  a rocWMMA source tree (library/include/ and samples/). Its version (the
#                VERSION_STRING of its CMakeLists.txt) picks the ROCm root:
#                1.x: ROCm 6.4's HIP headers (rocWMMA 1.6, e.g. a checkout of
#                     https://github.com/ROCm/rocWMMA at release/rocm-rel-6.3.0.1; its headers do
#                     not build against 7.2's). 1.6 knows no gfx950.
#                2.x: ROCm 7.2's HIP headers (rocWMMA 2.2, which knows gfx950; upstream it lives
#                     in https://github.com/ROCm/rocm-libraries, projects/rocwmma).
#   -g           simulated GPUs (default mi300x,rx7900xtx for 1.x; mi300x,mi355x,rx7900xtx for
#                2.x); the samples are built for the processors of these GPUs
#   -m           modes (default both)
#   -r           only rewrite the report section of one version (-v, default: every version
#                with results) from the last run's results (target/rocwmma-samples/rows-VER.tsv;
#                no ROCWMMA_SRC needed)
#
# Why this way: Debian's librocwmma-dev 7.2.4 ships only rocWMMA's five top-level headers
# (rocwmma.hpp includes internal/*.hpp, which the package lacks), and 6.4 has no rocWMMA
# package, so the headers come from the source tree. HIP headers and device libraries are the
# root's (scripts/rocm-root.sh); the compiler is clang-22. ROCm 6.4's headers take the wave
# size from __AMDGCN_WAVEFRONT_SIZE, which clang-22 no longer defines, so with 1.x each wave
# size is a separate build (wave64: CDNA; wave32: RDNA3); 7.2's headers do not need it.
#
# Besides the samples as they are, simple_hgemm_bf16 is simple_hgemm (f16 inputs and output,
# f32 accumulation) with bf16 in place of f16: its source is compiled unmodified after a
# prelude (-include) that includes the HIP and rocWMMA headers and then defines the token
# float16_t as bfloat16_t, so the sample's kernel, data and CPU check all use bf16 (the
# check's tolerance scales with the type's epsilon). rocWMMA ships no bf16 GEMM sample that
# runs without hipRTC.
#
# Outputs: target/rocwmma-samples/bin/<sample>-<processor>-<version>, .../logs/<sample>-<gpu>-
# <mode>-<version>.log and reports/rocwmma-samples.md (one section per rocWMMA version; a run
# rewrites only its own). Needs clang-22 and the root: ~/.cache/hipscope/rocm-root-6.4 or
# $HIPSCOPE_ROCM_ROOT_64 (1.x), ~/.cache/hipscope/rocm-root-7.2 or $HIPSCOPE_ROCM_ROOT_72 (2.x).
# The programs run on this host (not in the root): `hipscope exec` supplies the HIP runtime they
# link against.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
gpus=
modes="functional timing"
report_only=0
only=
while getopts g:m:rv: o; do
    case $o in
        g) gpus=$OPTARG ;;
        m) case $OPTARG in both) modes="functional timing" ;; *) modes=$OPTARG ;; esac ;;
        r) report_only=1 ;;
        v) only=$OPTARG ;;
        *) sed -n '2,/^set -eu/p' "$0" >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
cd "$here"
out=target/rocwmma-samples
report=reports/rocwmma-samples.md

# A source tree's rocWMMA version, from its CMakeLists.txt.
version_of() {
    sed -n 's/^ *set *( *VERSION_STRING *"\([0-9.]*\)".*/\1/p' "$1/CMakeLists.txt" | head -n 1
}

# Rewriting the report (-r) needs neither the source tree nor the root.
if [ $report_only = 0 ]; then
    [ $# = 1 ] || { sed -n '2,/^set -eu/p' "$0" >&2; exit 2; }
    src=$(cd "$1" && pwd)
    [ -d "$src/library/include/rocwmma" ] && [ -d "$src/samples" ] || { echo "rocwmma-samples.sh: $src has no library/include/rocwmma or samples/" >&2; exit 2; }
    ver=$(version_of "$src")
    case $ver in
        1.*) rocm=6.4 root=${HIPSCOPE_ROCM_ROOT_64:-$HOME/.cache/hipscope/rocm-root-6.4}
             : "${gpus:=mi300x,rx7900xtx}" ;;
        2.*) rocm=7.2 root=${HIPSCOPE_ROCM_ROOT_72:-$HOME/.cache/hipscope/rocm-root-7.2}
             : "${gpus:=mi300x,mi355x,rx7900xtx}" ;;
        *) echo "rocwmma-samples.sh: $src/CMakeLists.txt: VERSION_STRING '$ver' is neither 1.x nor 2.x" >&2; exit 2 ;;
    esac
    [ -f "$root/usr/include/hip/hip_runtime.h" ] || { echo "rocwmma-samples.sh: no ROCm $rocm root at $root (scripts/rocm-root.sh $rocm)" >&2; exit 2; }
    # The device libraries of the root's LLVM (rocm-device-libs installs them per LLVM).
    devlib=$(ls -d "$root"/usr/lib/llvm-*/lib/clang/*/amdgcn/bitcode 2>/dev/null | sort -V | tail -n 1)
    [ -n "$devlib" ] || { echo "rocwmma-samples.sh: no amdgcn/bitcode device libraries in the ROCm $rocm root" >&2; exit 2; }
    hipscope=target/release/hipscope
    [ -x "$hipscope" ] || { echo "rocwmma-samples.sh: build hipscope first (cargo build --release)" >&2; exit 2; }
    mkdir -p "$out/bin" "$out/logs" "$out/include-$ver/rocwmma"
    # rocwmma-version.hpp is generated by rocWMMA's CMake; the samples only need it to exist.
    printf '#ifndef ROCWMMA_API_VERSION_HPP\n#define ROCWMMA_API_VERSION_HPP\n#endif\n' > "$out/include-$ver/rocwmma/rocwmma-version.hpp"
    # The bf16 prelude (see the header): headers first, so that their own float16_t stays f16.
    printf '%s\n' '#include <cmath>' '#include <iostream>' '#include <limits>' '#include <random>' \
        '#include <vector>' '#include <hip/hip_runtime.h>' '#include <hip/hip_fp16.h>' \
        '#include <rocwmma/rocwmma.hpp>' '#define float16_t bfloat16_t' > "$out/include-$ver/bf16-prelude.hpp"
fi
SAMPLES="simple_hgemm simple_hgemm_bf16 simple_sgemm simple_dgemm simple_sgemv simple_dgemv simple_dlrm"

# processor and wave size of each built-in GPU used here
proc() {
    case $1 in
        mi210) echo "gfx90a 64" ;;
        mi300x) echo "gfx942 64" ;;
        mi355x) echo "gfx950 64" ;;
        rx7900xtx) echo "gfx1100 32" ;;
        *) echo "rocwmma-samples.sh: no processor known for GPU $1" >&2; exit 2 ;;
    esac
}

build() { # sample processor wave
    exe="$out/bin/$1-$2-$ver"
    file=$1 extra=
    case $1 in *_bf16) file=${1%_bf16} extra="-include $out/include-$ver/bf16-prelude.hpp" ;; esac
    [ "$exe" -nt "$src/samples/$file.cpp" ] && [ "$exe" -nt "$0" ] && return 0
    [ -f "$src/samples/$file.cpp" ] || { echo "rocwmma-samples.sh: $src/samples/$file.cpp missing" >&2; exit 2; }
    res=$(clang++-22 -print-resource-dir)
    wavedef=
    [ "$rocm" = 6.4 ] && wavedef="-D__AMDGCN_WAVEFRONT_SIZE=$3"
    # shellcheck disable=SC2086
    clang++-22 -x hip -O2 -std=c++17 --hip-path="$root/usr" -nogpuinc -isystem "$res" \
        -isystem "$out/include-$ver" -isystem "$src/library/include" -isystem "$root/usr/include" \
        --rocm-device-lib-path="$devlib" \
        --offload-arch="$2" $wavedef -D__HIP_PLATFORM_AMD__ $extra \
        -I"$src/samples" -c "$src/samples/$file.cpp" -o "$exe.o"
    clang++-22 "$exe.o" -o "$exe" -L"$root/usr/lib/x86_64-linux-gnu" -lamdhip64 -Wl,--allow-shlib-undefined
    rm -f "$exe.o"
}

[ $report_only = 1 ] || {
    rows=$out/rows-$ver.tsv
    # Keep the rows of the GPUs not run this time.
    touch "$rows"
    for g in $(echo "$gpus" | tr ',' ' '); do
        awk -F'\t' -v g="$g" '$2 != g' "$rows" > "$rows.tmp" && mv "$rows.tmp" "$rows"
    done
    printf '%s\n' "$rocm" > "$out/rocm-$ver"
    for g in $(echo "$gpus" | tr ',' ' '); do
        set -- $(proc "$g")
        p=$1 wave=$2
        for s in $SAMPLES; do
            build "$s" "$p" "$wave"
            for m in $modes; do
                log="$out/logs/$s-$g-$m-$ver.log"
                start=$(date +%s.%N)
                rc=0
                timeout 1800 "$hipscope" exec --gpu "$g" --mode "$m" -- "$out/bin/$s-$p-$ver" > "$log" 2>&1 || rc=$?
                wall=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')
                pass=$(grep -c 'PASSED' "$log" || true)
                fail=$(grep -c 'FAILED' "$log" || true)
                skip=$(grep -c 'not supported on this device' "$log" || true)
                insts=$(grep -o '[0-9]* wave-instructions' "$log" | awk '{s += $1} END {print s + 0}')
                sim=$(grep -o '[0-9.]* ms, ' "$log" | awk '{s += $1} END {printf "%.3f", s}')
                printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f\t%s\n' "$s" "$g" "$p" "$m" "$pass" "$fail" "$skip" "$rc" "$wall" "$insts/$sim" >> "$rows"
                echo "rocWMMA $ver $s $g $m: passed $pass, failed $fail, skipped $skip, exit $rc"
            done
        done
    done
}

# section VERSION: the report section of one version, from its rows.
section() {
    v=$1
    r=$(cat "$out/rocm-$v" 2>/dev/null || echo '?')
    echo "## rocWMMA $v (ROCm $r HIP headers)"
    echo
    echo "| sample | GPU | processor | mode | passed | failed | skipped | exit | wall | wave-instructions | sim |"
    echo "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|"
    while IFS="$(printf '\t')" read -r s g p m pass fail skip rc wall isim; do
        insts=${isim%%/*} sim="${isim#*/} ms"
        [ "$m" = timing ] && [ "$insts" != 0 ] || sim=-
        [ "$insts" != 0 ] || insts=-
        echo "| \`$s\` | $g | $p | $m | $pass | $fail | $skip | $rc | $wall s | $insts | $sim |"
    done < "$out/rows-$v.tsv"
}

# The versions to rewrite: this run's, or (-r) -v's or every one with results.
if [ $report_only = 0 ]; then
    vers=$ver
elif [ -n "$only" ]; then
    vers=$only
else
    vers=$(ls "$out"/rows-*.tsv 2>/dev/null | sed 's|.*/rows-\(.*\)\.tsv|\1|')
fi
tmp=$(mktemp -d)
# Keep the sections of the other versions as they are in the report.
[ -f "$report" ] && awk -v dir="$tmp" '/^## rocWMMA / {f = dir "/" $3} f {print > f}' "$report"
for v in $vers; do
    [ -f "$out/rows-$v.tsv" ] || { echo "rocwmma-samples.sh: no results for rocWMMA $v ($out/rows-$v.tsv)" >&2; rm -rf "$tmp"; exit 2; }
    section "$v" > "$tmp/$v"
    echo >> "$tmp/$v"
done
{
    echo "# rocWMMA's samples under \`hipscope exec\`"
    echo
    echo "Made by \`scripts/rocwmma-samples.sh\` (its header says how): rocWMMA's own sample"
    echo "programs, built with clang-22 and a ROCm root's HIP headers, run unmodified; each checks"
    echo "its GPU result against its own CPU reference and prints PASSED! or FAILED! (per"
    echo "problem: simple_dlrm runs two). \`simple_hgemm_bf16\` is simple_hgemm compiled with bf16"
    echo "in place of f16 (the script's header says how). *skipped*: the sample found its data"
    echo "type unsupported on the device. *exit* 3: hipscope stopped the program at a kernel fault"
    echo "(the log in target/rocwmma-samples/logs/ names it). *sim* is the simulated kernel time"
    echo "(timing mode). One section per rocWMMA version, newest first."
    echo
    for f in $(ls "$tmp" | sort -rV); do cat "$tmp/$f"; done
} | sed -e '$ {/^$/d}' > "$report"
rm -rf "$tmp"
echo "wrote $report"
