#!/bin/sh
# Build the libFuzzer harnesses (clang, ASan + UBSan) and run each for SECONDS (default 20) on
# a copy of its seed corpus: what CI runs. For long runs: scripts/fuzz.sh 3600.
#   scripts/fuzz.sh [SECONDS] [BUILD_DIR]
set -eu
cd "$(dirname "$0")/.."
secs=${1:-20}
dir=${2:-build-fuzz}
CC=clang-14 cmake -S . -B "$dir" -DSB_FUZZ=ON -DBUILD_TESTING=ON -DSB_BUILD_KMOD=OFF \
	-DCMAKE_BUILD_TYPE=Debug -DSB_FUZZ_SECONDS="$secs" >/dev/null
cmake --build "$dir" --target fuzzers -j "$(nproc)"
cd "$dir"
SB_FUZZ_SUMMARY=$PWD/fuzz-summary.txt
export SB_FUZZ_SUMMARY
: >"$SB_FUZZ_SUMMARY"
# one harness at a time per core
ctest --output-on-failure -L fuzz -j "$(nproc)" --timeout $((secs * 3 + 300))
sort "$SB_FUZZ_SUMMARY"
