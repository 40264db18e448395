#!/bin/sh
# Configure and build stackbench into a build folder.
#   scripts/build.sh [--quickstart] [BUILD_DIR] [extra cmake options...]
# BUILD_DIR defaults to ./build. Release (-O3: the build users get is the build the
# benchmarks and docs measure; a -DCMAKE_BUILD_TYPE=... given here wins). Warnings are errors
# (as in CI).
# Without --quickstart: everything (library, tools, daemon, tests, RTL testbenches, kernel
# module, firmware where their tools are installed). With it: only the library and the
# stackbench tool, what scripts/quickstart.sh needs (packages: scripts/deps.sh quickstart); a
# folder built either way is reconfigured by the other.
set -eu
cd "$(dirname "$0")/.."
quick=false
if [ "${1:-}" = --quickstart ]; then
	quick=true
	shift
fi
dir=${1:-build}
[ $# -gt 0 ] && shift
if $quick; then
	cmake -S . -B "$dir" -DSB_WERROR=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
		-DSB_DAEMON=OFF "$@" >/dev/null
	cmake --build "$dir" -j "$(nproc)" --target stackbench_cli
else
	cmake -S . -B "$dir" -DSB_WERROR=ON -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON \
		-DSB_DAEMON=ON "$@" >/dev/null
	cmake --build "$dir" -j "$(nproc)"
fi
