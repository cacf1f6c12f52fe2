#!/bin/sh
# Rebuilds the compressed offload bundle (CCOB) test inputs of isa/tests/suite/ccob.rs from k.hip.
# The tests read the committed outputs and need no LLVM; run this only to regenerate them.
# Needs clang++-19, clang++-22 (Debian's LLVM packages), python3 and the zstd command.
#
# A fixed -cuid keeps the device code byte-identical between the plain and the compressed
# builds of one translation unit (by default clang names a `__hip_cuid_<hash>` variable with a
# hash that differs from build to build), so the plain bundle is the reference for the
# compressed one.
#
# clang 19 writes CCOB version 2, clang 22 version 3 (version 2 with
# COMPRESSED_BUNDLE_FORMAT_VERSION=2); both compress with zstd whenever LLVM was built with it,
# and neither has an option for zlib, nor writes version 1 (LLVM 18's format). Those are made
# here with python's zlib / the zstd command and the header layout of LLVM's
# clang/lib/Driver/OffloadBundler.cpp (`CompressedOffloadBundle`); the tests check them against
# the same plain bundle, so they do not depend on our reader to be right.
set -eu
cd "$(dirname "$0")"
DEV="-x hip -nogpulib -nogpuinc -O2 --offload-arch=gfx90a --offload-arch=gfx1100"
unset OFFLOAD_BUNDLER_COMPRESS COMPRESSED_BUNDLE_FORMAT_VERSION OFFLOAD_BUNDLER_IGNORE_ENV_VAR

# Device-only bundles (what `hipcc --genco` writes): plain references and compressed builds.
clang++-19 $DEV -cuid=ccob-k --cuda-device-only -c k.hip -o k.clang19.hipfb
clang++-19 $DEV -cuid=ccob-k --cuda-device-only --offload-compress -c k.hip -o k.clang19.zstd-v2.hipfb
clang++-22 $DEV -cuid=ccob-k --cuda-device-only -c k.hip -o k.clang22.hipfb
clang++-22 $DEV -cuid=ccob-k --cuda-device-only --offload-compress -c k.hip -o k.clang22.zstd-v3.hipfb
COMPRESSED_BUNDLE_FORMAT_VERSION=2 \
  clang++-22 $DEV -cuid=ccob-k --cuda-device-only --offload-compress -c k.hip -o k.clang22.zstd-v2.hipfb
clang++-22 $DEV -DKERNEL=k3 -cuid=ccob-k3 --cuda-device-only -c k.hip -o k3.clang22.hipfb

# HIP host objects: .hip_fatbin holds the bundle (4096-aligned). libk.so links three
# translation units, so its .hip_fatbin holds three bundles: k compressed by clang 19 (v2), k2
# plain, k3 compressed by clang 22 (v3). A shared library may leave the HIP runtime's symbols
# undefined, so no runtime is needed to link it.
clang++-19 $DEV -fPIC -cuid=ccob-k --offload-compress -c k.hip -o host-k.clang19.o
clang++-19 $DEV -fPIC -DKERNEL=k2 -cuid=ccob-k2 -c k.hip -o tu-k2.o
clang++-22 $DEV -fPIC -DKERNEL=k3 -cuid=ccob-k3 --offload-compress -c k.hip -o tu-k3.o
clang++-19 -shared -Wl,--build-id=none host-k.clang19.o tu-k2.o tu-k3.o -o libk.so
rm -f tu-k2.o tu-k3.o

# zlib (versions 1..3) and zstd version 1 from the plain clang 19 bundle. The header: "CCOB",
# u16 version, u16 method (0 zlib, 1 zstd), then v1: u32 uncompressed size; v2: u32 total
# size, u32 uncompressed size; v3: u64 total size, u64 uncompressed size; then the u64 hash
# (the first 8 bytes of the MD5 digest of the uncompressed bundle), then the stream. All
# little-endian; total size = header + stream.
zstd -q -19 -f -c k.clang19.hipfb > k.clang19.zst
python3 - <<'PY'
import hashlib, struct, zlib

plain = open("k.clang19.hipfb", "rb").read()
digest = struct.unpack("<Q", hashlib.md5(plain).digest()[:8])[0]

def ccob(version, method, stream):
    if version == 1:
        head = struct.pack("<4sHHIQ", b"CCOB", 1, method, len(plain), digest)
    elif version == 2:
        head = struct.pack("<4sHHIIQ", b"CCOB", 2, method, 24 + len(stream), len(plain), digest)
    else:
        head = struct.pack("<4sHHQQQ", b"CCOB", 3, method, 32 + len(stream), len(plain), digest)
    return head + stream

z = zlib.compress(plain, 9)
for v in (1, 2, 3):
    open(f"k.clang19.zlib-v{v}.hipfb", "wb").write(ccob(v, 0, z))
open("k.clang19.zstd-v1.hipfb", "wb").write(ccob(1, 1, open("k.clang19.zst", "rb").read()))
PY
rm -f k.clang19.zst
ls -l
