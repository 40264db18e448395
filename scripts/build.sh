#!/bin/sh
# Configure and build stackbench into a build folder.
#   scripts/build.sh [BUILD_DIR] [extra cmake options...]
# BUILD_DIR defaults to ./build. Release (-O3: the build users get is the build the
# benchmarks and docs measure; a -DCMAKE_BUILD_TYPE=... given here wins). Warnings are errors
# (as in CI).
set -eu
cd "$(dirname "$0")/.."
dir=${1:-build}
[ $# -gt 0 ] && shift
cmake -S . -B "$dir" -DSB_WERROR=ON -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$dir" -j "$(nproc)"
