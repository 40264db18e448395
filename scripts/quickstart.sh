#!/bin/sh
# Quick start, first command: install what is missing, build, and run the default campaign on
# the simulated bench. Until the campaign engine lands this shows the simulated board.
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh
./scripts/build.sh build
./build/host/cli/stackbench info sim:
