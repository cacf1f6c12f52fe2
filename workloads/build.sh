#!/bin/sh
# workloads/build.sh -- build every kernel source in workloads/src and workloads/scopes for every
# config, plus the offload bundles and the HIP host executable, and write the golden LLVM listings.
#
# Usage:  workloads/build.sh            rebuild workloads/bin and workloads/golden in place
#         workloads/build.sh --verify   rebuild into a temporary directory and compare it
#                                       byte for byte with the committed bin/ and golden/
#                                       (exit 1 if anything differs)
#         workloads/build.sh --only STEM  rebuild in place only the code objects and listings of
#                                       the kernel source STEM (e.g. contended) for every config,
#                                       or only the HIP test program hip/STEM.cpp (and its
#                                       variants), with the same commands as a full build
#         workloads/build.sh --config NAME  rebuild in place only the code objects and listings of
#                                       every kernel source for the config NAME (e.g. gfx900), with
#                                       the same commands as a full build
# Needs:  apt-get update && apt-get install -y clang-19 lld-19 llvm-19 clang-22 lld-22 llvm-22
# Tools can be overridden: CLANG, LLD, OBJDUMP, READELF, BUNDLER, STRIP; the gfx950 builds
# (CONFIGS22: gfx950 is not in LLVM 19) use CLANG22, LLD22, OBJDUMP22, READELF22.
#
# Outputs (all paths relative to workloads/):
#   bin/<config>/<stem>.co                  linked (ET_DYN) code object per source and config
#   golden/<config>/<stem>.objdump.txt      stdout of llvm-objdump-19 -d --no-show-raw-insn <stem>.co
#   golden/<config>/<stem>.objdump-w64.txt  the same with --mattr=+wavefrontsize64 (wave64 configs)
#   golden/<config>/<stem>.notes.txt        stdout of llvm-readelf-19 --notes <stem>.co
#                                           (llvm-objdump-22 / llvm-readelf-22 for gfx950*)
#   bin/bundles/<stem>.bundle               clang offload bundle (gfx90a, gfx942, gfx1100)
#   golden/bundles/<stem>.bundle.list.txt   clang-offload-bundler --list --type=o
#   bin/host/vadd_host                      stripped x86-64 HIP host executable with .hip_fatbin
#   golden/host/vadd_host.sections.txt      llvm-readelf-19 -S vadd_host
#   hip/bin/<prog>                          stripped x86-64 HIP test program per hip/<prog>.cpp, its
#                                           .hip_fatbin for every processor of HIP_ARCHS (or of
#                                           HIP_PROGRAM_ARCHS), and its HIP_VARIANTS
#   hip/bin/<stem>.co                       offload bundle of hip/<stem>.hip (device code only,
#                                           every processor of HIP_ARCHS) for hipModuleLoad
#   grading/bin/<config>/<stem>.co          coursework kernel objects (grading/*.hip) per config
#                                           (gfx950 by clang-22), with DWARF line tables
#   grading/golden/<config>/<stem>.debug_line.txt  llvm-dwarfdump-19 --debug-line <stem>.co
#                                           (gfx942 and gfx1100-w32-wgp)
# The HIP test programs include the HIP 5.2 runtime headers, so they need the toolchain of
# ../shared/tools/hip-toolchain/setup.sh (relative to the repository; it installs the headers and
# device libraries and prints the compile command). HIPCXX overrides that command; without
# either, the programs are not rebuilt (and --verify does not compare them).
# The tools run inside the output directory on relative file names, so no machine path ends
# up in a listing (the header line of each listing names only "<stem>.co"), and sources are
# compiled from inside their directory (src/ or scopes/) so the objects' STT_FILE symbols hold
# bare file names. Stems must be unique across the source directories.
set -eu

CLANG=${CLANG:-clang-19}
LLD=${LLD:-ld.lld-19}
OBJDUMP=${OBJDUMP:-llvm-objdump-19}
READELF=${READELF:-llvm-readelf-19}
BUNDLER=${BUNDLER:-/usr/lib/llvm-19/bin/clang-offload-bundler}
STRIP=${STRIP:-llvm-strip-19}
DWARFDUMP=${DWARFDUMP:-llvm-dwarfdump-19}
CLANG22=${CLANG22:-clang-22}
LLD22=${LLD22:-ld.lld-22}
OBJDUMP22=${OBJDUMP22:-llvm-objdump-22}
READELF22=${READELF22:-llvm-readelf-22}
# The LLVM the next build_config uses (use_llvm 19|22).
use_llvm() {
  case "$1" in
    19) CC_=$CLANG; LD_=$LLD; OD_=$OBJDUMP; RE_=$READELF ;;
    22) CC_=$CLANG22; LD_=$LLD22; OD_=$OBJDUMP22; RE_=$READELF22 ;;
  esac
}
HIP_TOOLCHAIN=${HIP_TOOLCHAIN:-../../shared/tools/hip-toolchain/setup.sh}

LC_ALL=C
export LC_ALL

HERE=$(cd "$(dirname "$0")" && pwd)
SRC="$HERE/src"

VERIFY=0
ONLY=""
ONLY_CONFIG=""
case "${1:-}" in
  --verify) VERIFY=1 ;;
  --only) ONLY=${2:?usage: $0 --only STEM} ;;
  --config) ONLY_CONFIG=${2:?usage: $0 --config NAME} ;;
  "") ;;
  *) echo "usage: $0 [--verify | --only STEM | --config NAME]" >&2; exit 2 ;;
esac

if [ "$VERIFY" = 1 ]; then
  OUT=$(mktemp -d)
else
  OUT="$HERE"
fi
TMP=$(mktemp -d)
cleanup() {
  rm -rf "$TMP"
  if [ "$VERIFY" = 1 ]; then rm -rf "$OUT"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# HIP test programs: host code + device code for every processor of a built-in GPU that
# clang-19 targets, one executable per hip/*.cpp and one device-code bundle per hip/*.hip, compiled from inside hip/ on bare file names
# (-cuid fixes the __hip_cuid_* symbol, as above), stripped like vadd_host.
HIP_ARCHS="gfx803 gfx908 gfx90a gfx942 gfx1030 gfx1100 gfx1201"
# Programs built a second time with more flags, as hip/bin/<stem>_<suffix>: stem:suffix:flags
# (flags separated by commas). Flags that name an --offload-arch replace the program's processors.
HIP_VARIANTS="host_pingpong:agent:-DAGENT_SCOPE host_pingpong:nc:-DNON_COHERENT host_pingpong:nc_agent:-DNON_COHERENT,-DAGENT_SCOPE peer_flag:agent:-DAGENT_SCOPE
seed_mp_fat:agent:-DAGENT_SCOPE seed_mp_fat:gfx1100:--offload-arch=gfx1100"
# Programs built for other processors than HIP_ARCHS: stem:processors (comma separated).
# seed_mp_fat: a fat binary of two targets that compile a work-group-scope release differently
# (gfx942) and alike (gfx1100), and its gfx1100-only build.
HIP_PROGRAM_ARCHS="seed_mp_fat:gfx942,gfx1100"
# hip_setup: HIPCXX (the toolchain's command unless given; empty without either) and the
# flags every HIP test program is compiled with.
hip_setup() {
  cd "$HERE"
  if [ -z "${HIPCXX:-}" ] && [ -f "$HIP_TOOLCHAIN" ]; then
    HIPCXX=$(sh "$HIP_TOOLCHAIN" /opt/hip-devlibs | tail -n 1)
  fi
  if [ -z "${HIPCXX:-}" ]; then return 0; fi
  offload=""
  for a in $HIP_ARCHS; do offload="$offload --offload-arch=$a"; done
  # Device code gets line tables (`hipscope grade --exec` names source lines); debug paths
  # are mapped so that no machine path ends up in an object: the compile directory is ".",
  # the toolchain's header directory "hip-toolchain".
  tools_dir=$(cd "$HERE" && cd "$(dirname "$HIP_TOOLCHAIN")" && pwd)
  lines="-gline-tables-only -fdebug-compilation-dir=. -fdebug-prefix-map=$tools_dir=hip-toolchain"
  device_lines=""
  for o in $lines; do device_lines="$device_lines -Xarch_device $o"; done
}
# build_hip_program STEM: hip/STEM.cpp and its HIP_VARIANTS into $OUT/hip/bin (after hip_setup).
build_hip_program() {
  (
    cd "$HERE/hip"
    archs=$offload
    for p in $HIP_PROGRAM_ARCHS; do
      if [ "${p%%:*}" = "$1" ]; then archs=""; for a in $(echo "${p#*:}" | tr ',' ' '); do archs="$archs --offload-arch=$a"; done; fi
    done
    # shellcheck disable=SC2086
    $HIPCXX $archs $device_lines -cuid="$1" "$1.cpp" -o "$OUT/hip/bin/$1"
    "$STRIP" "$OUT/hip/bin/$1"
    for v in $HIP_VARIANTS; do
      case "$v" in
        "$1":*)
          rest=${v#*:}; suffix=${rest%%:*}; flags=$(echo "${rest#*:}" | tr ',' ' ')
          v_archs=$archs
          case "$flags" in *--offload-arch=*) v_archs="" ;; esac
          # shellcheck disable=SC2086
          $HIPCXX $v_archs $device_lines $flags -cuid="$1_$suffix" "$1.cpp" -o "$OUT/hip/bin/$1_$suffix"
          "$STRIP" "$OUT/hip/bin/$1_$suffix"
          ;;
      esac
    done
  )
}

# Flags shared by every device compile. -cuid fixes the HIP compilation-unit id (by default
# clang hashes the input path into a __hip_cuid_* symbol, which would make objects depend on
# where the checkout lives).
COMMON="-O2 -nogpulib -mcode-object-version=5"
OCL="-x cl -cl-std=CL2.0 --target=amdgcn-amd-amdhsa $COMMON"
# -mprintf-kind=buffered: device printf writes the printf buffer of the hidden argument
# hidden_printf_buffer (no device libraries are linked for the hostcall kind).
HIP="-x hip --cuda-device-only -nogpuinc -mprintf-kind=buffered $COMMON"

# name : processor : extra flags (comma separated)
CONFIGS="
gfx803:gfx803:
gfx900:gfx900:
gfx908:gfx908:
gfx90a:gfx90a:
gfx942:gfx942:
gfx1010-w32-wgp:gfx1010:
gfx1010-w32-cu:gfx1010:-mcumode
gfx1010-w64-wgp:gfx1010:-mwavefrontsize64
gfx1010-w64-cu:gfx1010:-mwavefrontsize64,-mcumode
gfx1030-w32-wgp:gfx1030:
gfx1030-w32-cu:gfx1030:-mcumode
gfx1030-w64-wgp:gfx1030:-mwavefrontsize64
gfx1030-w64-cu:gfx1030:-mwavefrontsize64,-mcumode
gfx1100-w32-wgp:gfx1100:
gfx1100-w32-cu:gfx1100:-mcumode
gfx1100-w64-wgp:gfx1100:-mwavefrontsize64
gfx1100-w64-cu:gfx1100:-mwavefrontsize64,-mcumode
gfx1201:gfx1201:
"
# name : processor : flags, for the tgsplit builds of TGSPLIT_SOURCES only
TGSPLIT_CONFIGS="
gfx90a-tgsplit:gfx90a:-mtgsplit
gfx942-tgsplit:gfx942:-mtgsplit
"
# gfx950 (MI355X, CDNA4) is not in LLVM 19: clang-22 builds it, every source as for CONFIGS.
CONFIGS22="
gfx950:gfx950:
"
TGSPLIT_CONFIGS22="
gfx950-tgsplit:gfx950:-mtgsplit
"
TGSPLIT_SOURCES="scopes/scopes.hip scopes/contended.hip src/litmus_mp.hip src/mp.hip src/spin_wg.hip src/mm_lowering.hip"
BUNDLE_ARCHS="--offload-arch=gfx90a --offload-arch=gfx942 --offload-arch=gfx1100"
BUNDLE_SOURCES="vadd lds"

# --config NAME: keep that config alone (of whichever list holds it).
if [ -n "$ONLY_CONFIG" ]; then
  pick() { for c in $1; do if [ "${c%%:*}" = "$ONLY_CONFIG" ]; then echo "$c"; fi; done; }
  CONFIGS=$(pick "$CONFIGS"); TGSPLIT_CONFIGS=$(pick "$TGSPLIT_CONFIGS")
  CONFIGS22=$(pick "$CONFIGS22"); TGSPLIT_CONFIGS22=$(pick "$TGSPLIT_CONFIGS22")
  if [ -z "$CONFIGS$TGSPLIT_CONFIGS$CONFIGS22$TGSPLIT_CONFIGS22" ]; then echo "--config: no config $ONLY_CONFIG" >&2; exit 2; fi
fi
if [ -z "$ONLY$ONLY_CONFIG" ]; then rm -rf "$OUT/bin" "$OUT/golden"; fi
mkdir -p "$OUT/bin" "$OUT/golden"

# Kernel sources as <dir>/<file>, relative to workloads/: src/ first, then the scope suite;
# src/*_cov4.hip are built as code object v4 instead of v5.
cd "$HERE"
SOURCES="$(ls src/*.hip src/*.cl | grep -v '_cov4\.hip$') $(ls scopes/*.hip)"
COV4_SOURCES="$(ls src/*_cov4.hip)"
# --only STEM: keep the sources of that stem alone.
only() {
  for path in $1; do f=${path##*/}; if [ "${f%.*}" = "$ONLY" ]; then echo "$path"; fi; done
}
# --only STEM of a HIP test program (hip/STEM.cpp): that program and its variants alone.
if [ -n "$ONLY" ] && [ -f "$HERE/hip/$ONLY.cpp" ]; then
  hip_setup
  if [ -z "${HIPCXX:-}" ]; then echo "--only: no $HIP_TOOLCHAIN and no HIPCXX to build hip/$ONLY.cpp" >&2; exit 2; fi
  mkdir -p "$OUT/hip/bin"
  build_hip_program "$ONLY"
  echo "done: $ONLY"
  exit 0
fi
if [ -n "$ONLY" ]; then
  SOURCES=$(only "$SOURCES"); COV4_SOURCES=$(only "$COV4_SOURCES"); TGSPLIT_SOURCES=$(only "$TGSPLIT_SOURCES")
  if [ -z "$SOURCES$COV4_SOURCES" ]; then echo "--only: no kernel source $ONLY" >&2; exit 2; fi
fi

# listings <bin dir> <golden dir> <stem> <file>: objdump + notes, run from the bin dir.
# llvm-objdump decodes GFX10+ code as wave32 whatever the kernel descriptor says, so wave64
# builds also get a listing decoded with +wavefrontsize64 (*.objdump-w64.txt).
listings() {
  (cd "$1" && "$OD_" -d --no-show-raw-insn "$4") > "$2/$3.objdump.txt"
  case "$1" in
    *-w64-*) (cd "$1" && "$OD_" -d --no-show-raw-insn --mattr=+wavefrontsize64 "$4") > "$2/$3.objdump-w64.txt" ;;
  esac
  (cd "$1" && "$RE_" --notes "$4") > "$2/$3.notes.txt"
}

# build_config <name> <cpu> <extra flags, comma separated> <sources>: objects and listings.
build_config() {
  name=$1; cpu=$2; extra=$(echo "$3" | tr ',' ' ')
  bdir="$OUT/bin/$name"; gdir="$OUT/golden/$name"
  mkdir -p "$bdir" "$gdir"
  for path in $4; do
    dir=${path%/*}; f=${path##*/}
    stem=${f%.*}
    cd "$HERE/$dir"
    # Per-source flags. mm_lowering.hip (the grader's lowering probes) and contended.hip (the
    # scope suite's contended atomics): LLVM's atomic optimizer off, so every RMW stays one
    # atomic per lane, as a litmus thread's RMW is and as contention reaches the memory system.
    case "$stem" in
      mm_lowering|contended) xflags="-mllvm -amdgpu-atomic-optimizer-strategy=None" ;;
      *) xflags="" ;;
    esac
    case "$f" in
      *.cl)
        # shellcheck disable=SC2086
        "$CC_" $OCL -mcpu="$cpu" $extra $xflags -c "$f" -o "$TMP/$stem.o"
        "$LD_" -shared "$TMP/$stem.o" -o "$bdir/$stem.co"
        rm -f "$TMP/$stem.o"
        ;;
      *.hip)
        # shellcheck disable=SC2086
        "$CC_" $HIP --offload-arch="$cpu" $extra $xflags --no-gpu-bundle-output -cuid="$stem" \
          -c "$f" -o "$bdir/$stem.co"
        ;;
    esac
    listings "$bdir" "$gdir" "$stem" "$stem.co"
  done
  echo "built $name"
}

# build_all <configs> <tgsplit configs>: every source for each config (src/*_cov4.hip as code
# object v4: the later -mcode-object-version wins), and the tgsplit builds (gfx90a, gfx942,
# gfx950: a work-group's waves may run on different CUs, so work-group scope needs the L1
# treatment) of the kernels that show what scope costs.
build_all() {
  for c in $1; do
    name=${c%%:*}; rest=${c#*:}
    build_config "$name" "${rest%%:*}" "${rest#*:}" "$SOURCES"
    build_config "$name" "${rest%%:*}" "${rest#*:},-mcode-object-version=4" "$COV4_SOURCES"
  done
  for c in $2; do
    name=${c%%:*}; rest=${c#*:}
    build_config "$name" "${rest%%:*}" "${rest#*:}" "$TGSPLIT_SOURCES"
  done
}
use_llvm 19
build_all "$CONFIGS" "$TGSPLIT_CONFIGS"
use_llvm 22
build_all "$CONFIGS22" "$TGSPLIT_CONFIGS22"
use_llvm 19
if [ -n "$ONLY$ONLY_CONFIG" ]; then echo "done: $ONLY$ONLY_CONFIG"; exit 0; fi

# Offload bundles (what hipcc --genco / a .hip_fatbin section holds).
cd "$SRC"
mkdir -p "$OUT/bin/bundles" "$OUT/golden/bundles"
for stem in $BUNDLE_SOURCES; do
  # shellcheck disable=SC2086
  "$CLANG" $HIP $BUNDLE_ARCHS -cuid="$stem" -c "$stem.hip" -o "$OUT/bin/bundles/$stem.bundle"
  (cd "$OUT/bin/bundles" && "$BUNDLER" --list --type=o --input="$stem.bundle") \
    > "$OUT/golden/bundles/$stem.bundle.list.txt"
done
echo "built bundles"

# HIP host executable: host + device compile of src/host/vadd_host.hip, linked with the
# runtime stubs of src/host/hip_stubs.c, stripped.
mkdir -p "$OUT/bin/host" "$OUT/golden/host"
(
  cd "$SRC/host"
  # shellcheck disable=SC2086
  "$CLANG" -x hip $BUNDLE_ARCHS -nogpuinc -nogpulib -O2 -mcode-object-version=5 \
    -cuid=vadd_host -c vadd_host.hip -o "$TMP/vadd_host.o"
  "$CLANG" -O2 -c hip_stubs.c -o "$TMP/hip_stubs.o"
  "$CLANG" -fuse-ld=lld "$TMP/vadd_host.o" "$TMP/hip_stubs.o" -o "$OUT/bin/host/vadd_host"
)
"$STRIP" "$OUT/bin/host/vadd_host"
(cd "$OUT/bin/host" && "$READELF" -S vadd_host) > "$OUT/golden/host/vadd_host.sections.txt"
echo "built host executable"

# HIP test programs (hip_setup and build_hip_program, above).
HIP_BUILT=0
hip_setup
if [ -n "${HIPCXX:-}" ]; then
  rm -rf "$OUT/hip/bin"
  mkdir -p "$OUT/hip/bin"
  cd "$HERE/hip"
  for f in *.cpp; do
    build_hip_program "${f%.cpp}"
  done
  # hip/*.hip: device code only, one offload bundle per file (what hipModuleLoad reads).
  for f in *.hip; do
    stem=${f%.hip}
    # shellcheck disable=SC2086
    $HIPCXX $offload --cuda-device-only -cuid="$stem" "$f" -o "$OUT/hip/bin/$stem.co"
  done
  # grading/*.hip: the coursework kernels, one code object per source and config, with line
  # tables as above.
  cd "$HERE/grading"
  rm -rf "$OUT/grading/bin" "$OUT/grading/golden"
  # (HIP's headers refuse wave64 on GFX10, so the GFX10 wave64 configs are left out; the
  # gfx900 and gfx1010 builds, there for the kernels of the litmus-campaign GPUs vega64 and
  # rx5700xt, have no coursework objects yet.)
  for c in $CONFIGS; do
    name=${c%%:*}; rest=${c#*:}; cpu=${rest%%:*}; extra=$(echo "${rest#*:}" | tr ',' ' ')
    case "$name" in gfx1030-w64-*|gfx900|gfx1010-*) continue ;; esac
    mkdir -p "$OUT/grading/bin/$name"
    for f in *.hip; do
      stem=${f%.hip}
      # shellcheck disable=SC2086
      $HIPCXX --offload-arch="$cpu" $extra --cuda-device-only --no-gpu-bundle-output -cuid="$stem" \
        $lines -c "$f" -o "$OUT/grading/bin/$name/$stem.co"
    done
  done
  # gfx950 (CONFIGS22): clang-22 with the same HIP 5.2 headers and device libraries. Unlike
  # clang-19 it does not link hip.bc, where HIP 5.2's __atomic_work_item_fence (behind
  # __threadfence and __syncthreads) lives, nor predefine __AMDGCN_WAVEFRONT_SIZE, and it asks
  # for ABI-6 device libraries unless told code object v5; so: hip.bc linked explicitly, the
  # wave size defined, v5. The device libraries have no gfx950 ISA-version bitcode: gfx940's
  # stands in, as setup.sh does for gfx942 (only __oclc_ISA_version differs).
  devlibs=$(echo "$HIPCXX" | sed -n 's/.*--rocm-device-lib-path=\([^ ]*\).*/\1/p')
  devlibs950="$TMP/devlibs950"
  mkdir -p "$devlibs950"
  for b in "$devlibs"/*.bc; do ln -sf "$b" "$devlibs950/$(basename "$b")"; done
  ln -sf "$devlibs/oclc_isa_version_940.bc" "$devlibs950/oclc_isa_version_950.bc"
  HIPCXX22="$(echo "$HIPCXX" | sed "s/clang++-19/clang++-22/; s|--rocm-device-lib-path=[^ ]*|--rocm-device-lib-path=$devlibs950|")"
  HIPCXX22="$HIPCXX22 -mcode-object-version=5 -D__AMDGCN_WAVEFRONT_SIZE=64 -Xclang -mlink-builtin-bitcode -Xclang $devlibs950/hip.bc"
  for c in $CONFIGS22; do
    name=${c%%:*}; rest=${c#*:}; cpu=${rest%%:*}
    mkdir -p "$OUT/grading/bin/$name"
    for f in *.hip; do
      stem=${f%.hip}
      # shellcheck disable=SC2086
      $HIPCXX22 --offload-arch="$cpu" --cuda-device-only --no-gpu-bundle-output -cuid="$stem" \
        $lines -c "$f" -o "$OUT/grading/bin/$name/$stem.co"
    done
  done
  # The line tables as llvm-dwarfdump-19 reads them, for two builds (the line-table reader's
  # golden files).
  for name in gfx942 gfx1100-w32-wgp; do
    mkdir -p "$OUT/grading/golden/$name"
    for f in *.hip; do
      stem=${f%.hip}
      (cd "$OUT/grading/bin/$name" && "$DWARFDUMP" --debug-line "$stem.co") > "$OUT/grading/golden/$name/$stem.debug_line.txt"
    done
  done
  cd "$HERE"
  HIP_BUILT=1
  echo "built HIP test programs"
else
  echo "HIP test programs not rebuilt: no $HIP_TOOLCHAIN and no HIPCXX" >&2
fi

if [ "$VERIFY" = 1 ]; then
  status=0
  dirs="bin golden"
  if [ "$HIP_BUILT" = 1 ]; then dirs="$dirs hip/bin grading/bin grading/golden"; fi
  for d in $dirs; do
    if ! diff -r "$HERE/$d" "$OUT/$d" > "$TMP/diff.txt" 2>&1; then
      echo "MISMATCH in $d/:" >&2
      head -n 40 "$TMP/diff.txt" >&2
      status=1
    fi
  done
  if [ "$status" = 0 ]; then echo "verify: committed bin/ and golden/ are identical to a fresh build"; fi
  exit "$status"
fi
echo "done: $(find "$OUT/bin" -type f | wc -l) binaries, $(find "$OUT/golden" -type f | wc -l) golden files"
