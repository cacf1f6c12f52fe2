#!/bin/sh
# rocm-root.sh -- build (once) a Debian unstable root holding real ROCm
# libraries and their upstream test binaries, for comparing hipscope's own
# libamdhip64 against the real thing (symbols, headers, code objects, gtests).
#
# Usage:
#   scripts/rocm-root.sh [6.4|7.2] [DIR]
#
#   6.4  (default) ROCm 6.4 as shipped in Debian unstable (libamdhip64-6).
#   7.2  ROCm 7.2 from Debian experimental (libamdhip64-7), on top of an
#        unstable base; only ROCm source packages are pinned to experimental.
#   DIR  the root directory to build. Default: $HIPSCOPE_ROCM_ROOT if set,
#        else $HOME/.cache/hipscope/rocm-root-6.4 (or rocm-root-7.2).
#
# Environment:
#   HIPSCOPE_ROCM_ROOT     root directory (as DIR above)
#   HIPSCOPE_ROCM_MIRROR   Debian mirror (default http://deb.debian.org/debian)
#   HIPSCOPE_ROCM_EXTRA    extra package names to install (space separated)
#
# What it does:
#   1. mmdebstrap --variant=apt of unstable (main contrib non-free
#      non-free-firmware) into DIR.tmp, renamed to DIR when complete.
#   2. chroot DIR: apt-get update, find the exact package names with
#      apt-cache (they carry sonames: librocblas4 vs librocblas5, ...), and
#      apt-get install --no-install-recommends them.
#   3. write DIR/var/lib/hipscope-rocm-root/done plus a package manifest
#      (packages.txt: "name version" of every ROCm package installed;
#      requested.txt: what was asked for; dpkg-l.txt: the whole dpkg -l).
#
# It is idempotent: a finished root (marker present) is left alone and the
# script only prints its summary; an interrupted run resumes at the stage it
# stopped at (apt keeps already downloaded .debs until the install succeeds).
# Needs root (mmdebstrap root mode, chroot, mounts), network access to the
# mirror, and room: about 17 GiB for 6.4 and 11 GiB for 7.2 (the gtest
# packages for rocprim/rocthrust/hipcub are 1-2.5 GiB each).
#
# Using the root afterwards (the test binaries need /proc and /dev):
#   mount -t proc proc DIR/proc && mount --bind /dev DIR/dev
#   chroot DIR /usr/libexec/rocm/librocblas4-tests/rocblas-test --gtest_list_tests
#   umount DIR/dev DIR/proc
#
# Everything the script prints names paths relative to the current
# directory or to ~ (never an absolute host path), so logs can be pasted.

set -eu

release=${1:-6.4}
case $release in
    6.4) suite=unstable; hip_soname_pkg=libamdhip64-6 ;;
    7.2) suite=experimental; hip_soname_pkg=libamdhip64-7 ;;
    -h|--help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "rocm-root: unknown release '$release' (use 6.4 or 7.2)" >&2; exit 2 ;;
esac
root=${2:-${HIPSCOPE_ROCM_ROOT:-$HOME/.cache/hipscope/rocm-root-$release}}
mirror=${HIPSCOPE_ROCM_MIRROR:-http://deb.debian.org/debian}
extra=${HIPSCOPE_ROCM_EXTRA:-}
components="main contrib non-free non-free-firmware"
state=var/lib/hipscope-rocm-root      # inside the root

# show PATH: print a path relative to $PWD, or to ~, or just its last part.
show() {
    case $1 in
        "$PWD"/*) printf '%s' "./${1#"$PWD"/}" ;;
        "$HOME"/*) printf '%s' "~/${1#"$HOME"/}" ;;
        /*) printf '%s' "…/${1##*/}" ;;
        *) printf '%s' "$1" ;;
    esac
}
say() { printf '[rocm-root %s] %s\n' "$release" "$*"; }
die() { say "error: $*" >&2; exit 1; }

# Summary of a finished root: disk use and the package manifest.
summary() {
    say "root: $(show "$root")"
    say "disk used: $(du -sh -x "$root" 2>/dev/null | cut -f1)"
    if [ -f "$root/$state/build-seconds" ]; then
        say "build time: $(cat "$root/$state/build-seconds") s"
    fi
    say "ROCm packages ($(wc -l < "$root/$state/packages.txt")), see $(show "$root/$state/packages.txt"):"
    sed 's/^/    /' "$root/$state/packages.txt"
}

# Make sure an absolute root path is used from here on (chroot needs it).
case $root in /*) ;; *) root=$PWD/$root ;; esac

if [ -f "$root/$state/done" ]; then
    say "already built (marker $(show "$root/$state/done")); nothing to do"
    summary
    exit 0
fi

[ "$(id -u)" = 0 ] || die "must run as root (mmdebstrap root mode, chroot, mount)"
command -v mmdebstrap >/dev/null || die "mmdebstrap not found (apt-get install mmdebstrap)"

start=$(date +%s)
mkdir -p "$(dirname "$root")"

# ---------------------------------------------------------------- stage 1
# Bootstrap into DIR.tmp and rename on success, so DIR exists only when the
# base system is complete. A leftover DIR.tmp is from an interrupted run.
if [ ! -f "$root/$state/bootstrap.done" ]; then
    [ -e "$root" ] && die "$(show "$root") exists but was not made by this script (no marker); remove it or pick another DIR"
    tmp=$root.tmp
    if [ -e "$tmp" ]; then
        say "removing leftover $(show "$tmp") from an interrupted bootstrap"
        rm -rf --one-file-system "$tmp"
    fi
    # Check-Valid-Until/Check-Date off: the mirror reachable from our
    # machines can be a frozen copy whose Release files have expired (and
    # the same lets HIPSCOPE_ROCM_MIRROR point at snapshot.debian.org).
    # APT::Sandbox::User root: we run as root anyway, and the _apt user
    # could not enter a root under ~ (mode 700) and apt would warn.
    # The aptopts end up in the root's /etc/apt/apt.conf.d/99mmdebstrap.
    # The experimental line is harmless for 6.4 too, but keep 6.4 plain
    # unstable so that its root is exactly "Debian unstable".
    set -- "deb $mirror unstable $components"
    if [ "$suite" = experimental ]; then
        set -- "$@" "deb $mirror experimental $components"
    fi
    say "stage 1/2: mmdebstrap --variant=apt unstable -> $(show "$tmp")"
    # Run from the parent directory with a relative target so that what
    # mmdebstrap prints names no absolute host path either.
    (cd "$(dirname "$tmp")" && mmdebstrap --mode=root --variant=apt --architectures=amd64 \
        --components="$components" \
        --aptopt='Acquire::Languages "none"' \
        --aptopt='Acquire::Check-Valid-Until "false"' \
        --aptopt='Acquire::Check-Date "false"' \
        --aptopt='APT::Install-Recommends "false"' \
        --aptopt='APT::Sandbox::User "root"' \
        unstable "$(basename "$tmp")" "$@")
    mkdir -p "$tmp/$state"
    date -u +%Y-%m-%dT%H:%M:%SZ > "$tmp/$state/bootstrap.done"
    mv "$tmp" "$root"
    say "stage 1/2 done: $(du -sh -x "$root" | cut -f1) base system"
else
    say "stage 1/2: base system already bootstrapped"
fi

# ---------------------------------------------------------------- stage 2
# Everything below runs inside the root. /proc, /sys and /dev are mounted
# for the duration (maintainer scripts and ldconfig triggers want them) and
# unmounted on exit, whatever happens.
mounted=""
cleanup() {
    for m in $mounted; do umount "$root/$m" 2>/dev/null || umount -l "$root/$m" 2>/dev/null || true; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
for m in proc sys dev dev/pts; do
    if ! mountpoint -q "$root/$m"; then
        case $m in
            proc) mount -t proc proc "$root/proc" ;;
            sys) mount -t sysfs sysfs "$root/sys" ;;
            dev) mount --bind /dev "$root/dev" ;;
            dev/pts) mount --bind /dev/pts "$root/dev/pts" ;;  # apt's term.log
        esac
        mounted="$m $mounted"
    fi
done
# Name resolution inside the root: take the host's resolver config.
if [ ! -s "$root/etc/resolv.conf" ] && [ -f /etc/resolv.conf ]; then
    cp -L /etc/resolv.conf "$root/etc/resolv.conf"
fi

inroot() {
    chroot "$root" /usr/bin/env -i \
        PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive "$@"
}

# Sources: unstable, plus experimental for 7.2. For 7.2 every ROCm *source*
# package is pinned to experimental (990) so that its binaries come from
# there, while the rest of the system (libc, libstdc++, ...) stays unstable.
{
    echo "deb $mirror unstable $components"
    if [ "$suite" = experimental ]; then echo "deb $mirror experimental $components"; fi
} > "$root/etc/apt/sources.list"
rm -f "$root/etc/apt/sources.list.d/"*.list "$root/etc/apt/sources.list.d/"*.sources 2>/dev/null || true
if [ "$suite" = experimental ]; then
    cat > "$root/etc/apt/preferences.d/hipscope-rocm-experimental" <<'EOF'
# Written by hipscope scripts/rocm-root.sh: ROCm 7.2 lives in experimental.
Package: src:rocm-hipamd src:rocm-llvm src:rocr-runtime src:rocm-core src:rocm-smi-lib src:rocprofiler-register src:roctracer src:rocdbgapi src:rocminfo src:rocm src:hipcc src:hipify src:pkg-rocm-tools src:rocblas src:hipblas src:hipblas-common src:hipblaslt src:rocsparse src:hipsparse src:hipsparselt src:rocrand src:hiprand src:rocfft src:hipfft src:rocsolver src:hipsolver src:rocprim src:hipcub src:rocthrust src:rocwmma src:rocalution
Pin: release a=experimental
Pin-Priority: 990
EOF
fi

say "stage 2/2: apt-get update"
inroot apt-get -q update

# exact names: every package whose name matches the extended regex $1 and
# which has a version in $suite (so 7.2 takes librocblas5 and not unstable's
# librocblas4; 6.4 has only unstable to choose from).
names=$(inroot apt-cache pkgnames | sort -u)
pick() {
    printf '%s\n' "$names" | grep -E "$1" |
    while read -r p; do
        if inroot apt-cache madison "$p" </dev/null | grep -q " $suite/"; then echo "$p"; fi
    done
}

say "stage 2/2: choosing packages from $suite"
# libamdhip64 itself: the soname package of this release (unstable also has
# libamdhip64-5) and the headers.
pkgs="$hip_soname_pkg libamdhip64-dev"
# device libraries (bitcode), versioned by LLVM major: rocm-device-libs-21/22.
pkgs="$pkgs $(pick '^rocm-device-libs-[0-9]+$')"
# math libraries: runtime (soname package), -dev, gtest packages and their
# data. Not libhipblaslt* (a separate 0.7-0.9 GiB library that nothing here
# needs), not -doc, not -bench.
pkgs="$pkgs $(pick '^lib(rocblas|hipblas|rocsparse|hipsparse|rocrand|hiprand|rocfft|rocsolver)[0-9]*(-dev|-tests|-tests-data)?$')"
# header-only template libraries and their gtests.
pkgs="$pkgs $(pick '^lib(rocprim|hipcub|rocthrust)-(dev|tests)$')"
# rocWMMA exists only for 7.2 (experimental); -tests-validate holds its GEMM tests (checked
# against rocBLAS), which scripts/rocm-suites.sh runs as rocwmma-validate.
pkgs="$pkgs $(pick '^librocwmma-(dev|tests|tests-validate)$')"
pkgs="$pkgs $extra"
pkgs=$(printf '%s\n' $pkgs | sort -u | tr '\n' ' ')
say "installing: $pkgs"

# Downloads are kept in the root's apt cache until the install succeeds, so
# an interrupted run resumes without downloading again.
# shellcheck disable=SC2086
inroot apt-get -q -y --no-install-recommends \
    -o Dpkg::Progress-Fancy=0 -o APT::Keep-Downloaded-Packages=true \
    install $pkgs
inroot apt-get clean

# For 7.2, check that every ROCm package really came from experimental.
if [ "$suite" = experimental ]; then
    for p in $hip_soname_pkg libamdhip64-dev; do
        v=$(inroot dpkg-query -W -f '${Version}' "$p")
        case $v in *~exp*) ;; *) die "$p $v is not the experimental (7.2) version" ;; esac
    done
fi

# Manifest: the ROCm packages installed (name, version), then the marker.
inroot dpkg-query -W -f '${db:Status-Abbrev} ${Package} ${Version} ${source:Package}\n' |
    awk '$1 == "ii" && ($4 ~ /^(roc|hip|rocm|rocr)/ || $2 ~ /^lib(amdhip|hsa|roc|hip|amd-comgr)/ || $2 ~ /^rocm/) { print $2, $3 }' |
    sort > "$root/$state/packages.txt"
printf '%s\n' $pkgs > "$root/$state/requested.txt"
inroot dpkg -l > "$root/$state/dpkg-l.txt"
end=$(date +%s)
echo $((end - start)) > "$root/$state/build-seconds"
date -u +%Y-%m-%dT%H:%M:%SZ > "$root/$state/done"
say "done in $((end - start)) s"
summary
