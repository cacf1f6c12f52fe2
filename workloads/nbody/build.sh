#!/bin/sh
# workloads/nbody/build.sh -- builds HIP-Examples' mini-nbody (Apache-2.0, LICENSE here) into
# bin/: nbody-orig and nbody-block unchanged (defaults: 30 000 bodies, 10 iterations; the first
# argument sets the number of bodies; built as upstream's HIP-*.sh scripts build them), and nbody-orig_check / nbody-block_check, the same
# programs compiled with -include result_dump.h (they also print the final bodies, for tests).
# The sources are not part of this repository; they are read from a clone of
# https://github.com/ROCm/HIP-Examples (a checkout or a bare git directory) at COMMIT below.
#
# Usage:  workloads/nbody/build.sh HIP_EXAMPLES_GIT_DIR
# Needs:  the toolchain of ../shared/tools/hip-toolchain/setup.sh (clang-19, Debian's HIP 5.2
#         headers); HIPCXX overrides its compile command.
# Code objects for gfx942 (mi300a, mi300x) and gfx90a (mi210); -cuid fixes the compilation-unit
# id and the sources are compiled from a temporary directory on bare file names, so the binaries
# do not depend on where the checkout lives.
set -eu
LC_ALL=C
export LC_ALL
SRC_GIT=${1:?usage: $0 HIP_EXAMPLES_GIT_DIR}
COMMIT=cdf9d101acd9a3fc89ee750f73c1f1958cbd5cc3
STRIP=${STRIP:-llvm-strip-19}
HERE=$(cd "$(dirname "$0")" && pwd)
HIP_TOOLCHAIN=${HIP_TOOLCHAIN:-$HERE/../../../shared/tools/hip-toolchain/setup.sh}
if [ -z "${HIPCXX:-}" ]; then
  HIPCXX=$(sh "$HIP_TOOLCHAIN" /opt/hip-devlibs | tail -n 1)
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/hip" "$HERE/bin"
git -C "$SRC_GIT" show "$COMMIT:mini-nbody/timer.h" > "$TMP/timer.h"
cp "$HERE/result_dump.h" "$TMP/hip/result_dump.h"
for prog in nbody-orig nbody-block; do
  git -C "$SRC_GIT" show "$COMMIT:mini-nbody/hip/$prog.cpp" > "$TMP/hip/$prog.cpp"
  (
    cd "$TMP/hip"
    # -I.. -DSHMOO as upstream's HIP-$prog.sh (timer.h sits one directory up; with SHMOO the
    # program prints one line, "bodies, billion interactions per second", and nbody-block only
    # compiles with it).
    # shellcheck disable=SC2086
    $HIPCXX -Wno-unused-result -I.. -DSHMOO --offload-arch=gfx942 --offload-arch=gfx90a -cuid="$prog" \
      "$prog.cpp" -o "$HERE/bin/$prog"
    # shellcheck disable=SC2086
    $HIPCXX -Wno-unused-result -I.. -DSHMOO --offload-arch=gfx942 --offload-arch=gfx90a -cuid="${prog}_check" \
      -include result_dump.h "$prog.cpp" -o "$HERE/bin/${prog}_check"
  )
  "$STRIP" "$HERE/bin/$prog" "$HERE/bin/${prog}_check"
done
ls -l "$HERE/bin"
