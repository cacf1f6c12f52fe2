#!/usr/bin/env bash
# Grades Dartagnan's whole PTX and Vulkan litmus catalogue under --model ptx6.0, ptx7.5 and
# vulkan and prints the agreement with Dartagnan's expected tables (the ignored test
# `whole_catalogue_agreement` of grade/tests/suite/dartagnan_gpu.rs).
#
# Usage: scripts/dartagnan-gpu-catalogue.sh DAT3M
#   DAT3M: a Dat3M checkout (with litmus/PTX), or a bare git clone of it, whose HEAD is
#   extracted to a temporary directory first.
set -euo pipefail
src=${1:?usage: $0 DAT3M (a Dat3M checkout or bare clone)}
if [ -d "$src/litmus/PTX" ]; then
    dir=$src
else
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    git -C "$src" archive HEAD litmus/PTX litmus/VULKAN dartagnan/src/test/resources | tar -x -C "$dir"
fi
export CARGO_PROFILE_RELEASE_DEBUG=false
DAT3M_DIR=$dir cargo test --release -p hipscope-grade --test suite dartagnan_gpu:: -- --ignored --nocapture whole_catalogue_agreement
