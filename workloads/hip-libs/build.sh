#!/bin/sh
# workloads/hip-libs/build.sh -- build every *.cpp here into a stripped executable in bin/.
#
# The programs call Debian 12's precompiled ROCm 5.3 libraries (librocrand1, libhiprand1,
# librocsparse0, libhipsparse0; headers from the matching -dev packages in /usr/include):
#   apt-get install librocrand-dev libhiprand-dev librocsparse-dev libhipsparse-dev
# They include the HIP 5.2 runtime headers, so they need the toolchain of
# ../../../shared/tools/hip-toolchain/setup.sh (relative to this directory; it installs the
# headers and device libraries and prints the compile command); HIPCXX overrides that command.
#
# Device code is built for gfx90a and gfx1100: Debian's libraries hold code objects for gfx90a
# (and gfx803, gfx900, gfx906, gfx908, gfx1030) but not for gfx1100, so on an RDNA3 GPU the
# program's own code would run and the libraries refuse (hipErrorNoBinaryForGpu).
# Sources are compiled from inside this directory on bare file names, with -cuid=<stem> (by
# default clang hashes the input path into a __hip_cuid_* symbol), so the outputs do not
# depend on where the checkout lives.
set -eu

STRIP=${STRIP:-llvm-strip-19}
HIP_TOOLCHAIN=${HIP_TOOLCHAIN:-../../../shared/tools/hip-toolchain/setup.sh}
HIP_ARCHS="gfx90a gfx1100"

LC_ALL=C
export LC_ALL

cd "$(dirname "$0")"
if [ -z "${HIPCXX:-}" ]; then
  if [ ! -f "$HIP_TOOLCHAIN" ]; then
    echo "no $HIP_TOOLCHAIN and no HIPCXX: cannot build" >&2
    exit 1
  fi
  HIPCXX=$(sh "$HIP_TOOLCHAIN" /opt/hip-devlibs | tail -n 1)
fi

offload=""
for a in $HIP_ARCHS; do offload="$offload --offload-arch=$a"; done

rm -rf bin
mkdir -p bin
for f in *.cpp; do
  stem=${f%.cpp}
  # The library each program calls.
  case "$stem" in
    rocrand_*) libs="-lrocrand" ;;
    hiprand_*) libs="-lhiprand" ;;
    rocsparse_*) libs="-lrocsparse" ;;
    hipsparse_*) libs="-lhipsparse" ;;
    *) libs="" ;;
  esac
  # shellcheck disable=SC2086
  $HIPCXX $offload -cuid="$stem" "$f" $libs -o "bin/$stem"
  "$STRIP" "bin/$stem"
  echo "built bin/$stem"
done
