#!/bin/sh
# Quick start, first command: install what is missing, build, and run the default campaign
# (examples/quick.yaml: an address-mask sweep across request types) on the simulated bench;
# then export its results as CSV and JSON and draw the figures. Everything goes to
# results/quickstart/ (rewritten on each run). Only what that needs is installed and built
# (scripts/deps.sh quickstart, scripts/build.sh --quickstart: the library and the stackbench
# tool); ./scripts/test.sh installs and builds the rest.
set -eu
cd "$(dirname "$0")/.."
./scripts/deps.sh quickstart
./scripts/build.sh --quickstart build
sb=./build/host/cli/stackbench
out=results/quickstart
rm -rf "$out"
mkdir -p "$out"
$sb run examples/quick.yaml --db "$out/stackbench.db"
$sb export --db "$out/stackbench.db" --format csv --out "$out/points.csv"
$sb export --db "$out/stackbench.db" --format csv --table samples --out "$out/samples.csv"
$sb export --db "$out/stackbench.db" --format json --samples --out "$out/results.json"
$sb report --db "$out/stackbench.db" --plots "$out/figures"
echo
echo "quickstart: results database  $out/stackbench.db   (stackbench list --db $out/stackbench.db)"
echo "quickstart: CSV exports       $out/points.csv $out/samples.csv"
echo "quickstart: JSON export       $out/results.json"
echo "quickstart: figures           $out/figures/ (PNG and SVG; data and gnuplot scripts beside)"
