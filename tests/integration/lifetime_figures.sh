#!/bin/sh
# The lifetime histograms of `stackbench lifetimes --plots` on the SCALE-Sim sample: labelled
# ticks across the axis (not one power of ten), a key that says what the bars count, and every
# figure drawn.
#   lifetime_figures.sh STACKBENCH_EXE SAMPLE_RUN
set -eu
exe=$1
run=$2
work=$(mktemp -d /tmp/sb-ltfig-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "lifetime_figures: FAIL: $*" >&2; exit 1; }
"$exe" lifetimes -f scalesim "$run" --plots "$work/p" >"$work/out" 2>&1 || fail "$(cat "$work/out")"
gp=$work/p/plots.gp
for sp in ifmap filter ofmap; do
	[ "$(head -c 4 "$work/p/lifetimes-$sp.png" | od -An -tx1 | tr -d ' ')" = 89504e47 ] || fail "no PNG for $sp"
done
# the ifmap histogram spans 500..6590 ns: ticks at 500, 1000, 2000, 5000
grep -q "^set xtics (500, 1000, 2000, 5000)$" "$gp" || fail "ticks: $(grep xtics "$gp" | head -3)"
grep -q "title 'values whose lifetime falls in the bin (10 bins per decade)'" "$gp" || fail "key"
grep -q "^set ylabel 'values (count)'$" "$gp" || fail "y label"
! grep -q "title 'values'$" "$gp" || fail "a key still reads 'values'"
echo "lifetime_figures: ok"
