#!/bin/sh
# Quick start, second command (and what CI runs): install what is missing, build, run the whole
# test suite, then build with AddressSanitizer + UndefinedBehaviorSanitizer and run the C tests
# again there, then run every parser's libFuzzer harness for a bounded time (scripts/fuzz.sh).
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh
./scripts/build.sh build
(cd build && ctest --output-on-failure -j "$(nproc)")
./scripts/build.sh build-asan -DSB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
	ctest --output-on-failure -j "$(nproc)" -L 'unit|cli|regmap|integration|instruments|daemon|security|analysis')
# a fixed seed: CI repeats the same inputs (tests/fuzz/README.md); unseeded runs explore
SB_FUZZ_SEED=${SB_FUZZ_SEED-1} ./scripts/fuzz.sh "${SB_FUZZ_SECONDS:-20}"
echo "test.sh: all tests passed"
